// Memory over time from a trace's [memory] events: per device, the allocator's own totals where the
// trace carries them (Kineto's "Total Allocated" and "Total Reserved": absolute, they include what was
// allocated before recording started, the weights), and the running sum of the events' bytes (relative
// to the level when recording started), each with its peak. Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.h"

namespace awb {

struct MemoryPoint {
    int64_t ts_ns = 0;
    int64_t bytes = 0;
    bool operator==(const MemoryPoint&) const = default;
};

struct MemorySeries {
    DeviceKind device = DeviceKind::CPU;
    int device_index = -1;
    int32_t rank = -1;                // of a distributed trace; -1 for one process
    std::vector<MemoryPoint> points;  // the running sum after each memory event (relative)
    int64_t peak_bytes = 0;           // max of the running sum, >= 0
    int64_t low_bytes = 0;            // min of the running sum, <= 0 (frees of memory allocated before)
    int64_t peak_ts_ns = 0;
    // The allocator's totals after each event that carries them (absolute); empty when the trace has
    // none. Reserved (the caching allocator's pool, >= allocated) only where the trace reports any.
    std::vector<MemoryPoint> allocated_points, reserved_points;
    int64_t peak_allocated_bytes = -1, peak_allocated_ts_ns = 0;  // -1: no totals in the trace
    int64_t peak_reserved_bytes = -1, peak_reserved_ts_ns = 0;
    int64_t allocated_bytes = 0;  // sum of allocations
    int64_t freed_bytes = 0;      // sum of frees (positive)
    int64_t allocations = 0;
    int64_t frees = 0;
    bool operator==(const MemorySeries&) const = default;

    bool has_totals() const { return peak_allocated_bytes >= 0; }
    // The peak to quote: the allocator's Total Allocated when the trace has it, else the relative one.
    int64_t quoted_peak_bytes() const { return has_totals() ? peak_allocated_bytes : peak_bytes; }
};

// What a quoted peak is: "allocated" (the allocator's total) or "relative" (above the level when
// recording started: memory allocated before is missing).
const char* memory_peak_basis(const MemorySeries& s);

// "2.52 GiB allocated, 2.60 GiB reserved" or "1.67 GiB above the level at trace start (relative: the
// trace has no allocator totals)".
std::string memory_peak_text(const MemorySeries& s);

// The level at t: the last point at or before it (points in time order); nullptr before the first.
const MemoryPoint* memory_level_at(const std::vector<MemoryPoint>& points, int64_t t);

// One series per (rank, device kind, index) present in the trace, CPU first.
std::vector<MemorySeries> replay_memory(const Trace& trace);

// "cpu", "cuda:0", "cuda:1 rank 3": which memory a series is.
std::string memory_series_label(const MemorySeries& s);

// At most about 2 * buckets points: the first and last point, and the min and the max of each time
// bucket in between, so that no peak disappears when a long series is drawn or stored.
std::vector<MemoryPoint> downsample_min_max(const std::vector<MemoryPoint>& points, size_t buckets);

}  // namespace awb
