// Process-wide settings that make repeated runs measure the workload rather than the C library.
#pragma once

#include <string>

namespace awb {

// glibc serves allocations above its mmap threshold (128 KiB, raised dynamically up to 32 MiB) with
// fresh mmap()s, so every [B,H,N,N] score tensor of every step page-faults its memory in again: on
// this machine that made the article's step 2x slower than in a long-lived Python process, whose
// thresholds had already risen. This raises the mmap and trim thresholds to 1 GiB so that freed
// blocks are reused, as in a warmed-up process. Skipped when AWB_MALLOC_DEFAULT=1. Call once at
// start-up, before any tensor exists; returns what it did (recorded in every Environment).
std::string tune_allocator_for_steady_state();

// The last description returned by tune_allocator_for_steady_state(), or "glibc defaults".
std::string allocator_setting();

}  // namespace awb
