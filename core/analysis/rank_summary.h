// A rank's summary (attnwb inspect RANK --summary FILE): the part of one rank's trace that joining it
// with the other ranks needs, small enough to copy off a cluster and open with the others' summaries.
// Kept whole: every kernel, copy and set (the kernel table, the GPU time breakdown, the overlap), the
// annotations (ProfilerStep, record_function ranges, nccl:* / gloo:*), the collective calls with every
// event under them and the launches of communication kernels (the collectives and their matching), and
// the outermost CPU ops (the CPU ranks' computation, attention calls). Left out: ops nested in another
// op, the other runtime calls, Python frames and memory events. Pure C++.
#pragma once

#include <cstdint>
#include <string>

#include "model/trace.h"

namespace awb {

struct RankSummary {
    Trace trace;                // the events kept, with the meta of the trace summarised
    int64_t events = 0;         // in the trace summarised
    int64_t nested_ops = 0;     // left out: CPU ops inside another op (and not part of a collective call)
    int64_t runtime_calls = 0;  // left out: CUDA/HIP runtime calls other than the communication kernels' launches
    int64_t other_cpu = 0;      // left out: Python frames and other CPU events
    int64_t memory_events = 0;  // left out: the allocator's [memory] events
};

RankSummary summarize_rank(const Trace& trace);

// "12,345 of 1,234,567 events kept; left out: 800,000 nested CPU ops, ..." (what a summary lacks).
std::string rank_summary_text(const RankSummary& s);

}  // namespace awb
