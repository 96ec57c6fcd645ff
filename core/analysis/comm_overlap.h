// Communication hidden under computation, per rank, over the whole trace and per step: how much of the
// time a rank communicates some computation runs beside it (hidden), and how much nothing else runs
// (exposed), by collective.
//
// On a GPU rank (HolisticTraceAnalysis's get_comm_comp_overlap): communication is the union of its
// communication kernels (kernel_class.h) over all its streams and devices, computation the union of its
// computation kernels; hidden = |communication ∩ computation|. A step's row measures the communication
// kernels launched in that step (its ProfilerStep holds the launch) against all of the rank's
// computation, so the steps' hidden times add up to the whole trace's. On a CPU rank (gloo): the
// communication is the calls' work (gloo's annotations on its worker threads, the ops otherwise), the
// computation the rank's CPU ops outside every collective.
//
// Beside it, the figure HTA 0.5.0 prints (HtaOverlap), computed its way, so that the two can be
// checked against each other: only kernels whose launch is in the trace and began before the rank's
// last ProfilerStep began (when there are two steps or more: HTA leaves the last step out by default),
// times rounded to whole microseconds (start up, end down) when the trace has fractional ones, memcpy,
// memset and syncs neither side, the percentage rounded to two decimals. Pure C++.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/attention.h"
#include "analysis/collectives.h"
#include "analysis/hta_view.h"
#include "analysis/kernel_class.h"
#include "analysis/trace_links.h"
#include "model/trace.h"

namespace awb {

struct CommOverlap {
    int32_t rank = -1;
    int step = -1;                                         // k of ProfilerStep#k; -1: the whole trace
    bool on_device = false;                                // measured on the device's kernels (else on the CPU: gloo)
    int64_t comm_ns = 0;                                   // union of the communication
    int64_t hidden_ns = 0;                                 // ... under computation
    std::map<std::string, int64_t> exposed_by_collective;  // collective name -> its exposed time
    int64_t exposed_ns() const { return comm_ns - hidden_ns; }
    double hidden_share() const { return comm_ns > 0 ? double(hidden_ns) / double(comm_ns) : 0.0; }
    bool operator==(const CommOverlap&) const = default;
};

struct HtaOverlap {
    int32_t rank = -1;
    std::string steps;    // which steps it covers: "all", "before ProfilerStep#6 (the last)"
    int64_t comm_ns = 0;  // in whole microseconds where HTA rounds
    int64_t hidden_ns = 0;
    double pct = 0;  // round(100 * hidden / comm, 2): HTA's comp_comm_overlap_pctg
    bool operator==(const HtaOverlap&) const = default;
};

// An attention call and the communication it issues: context-parallel / ring attention passes K and V
// around the ranks by send/recv or all_gather inside each call. The calls are the run's attention calls
// (analysis/attention.h) and the record_function ranges named like attention ("ring_attention",
// "attn"), outermost per thread; their communication, the collectives their rank issued in the call's
// span, measured as the overlap is (against the rank's computation).
struct AttentionComm {
    int32_t rank = -1;
    std::string name;    // the call's op or range
    int32_t event = -1;  // index into the trace's events
    int64_t start_ns = 0, end_ns = 0;
    int64_t collectives = 0;  // calls issued in it
    int64_t bytes = 0;        // their bytes (those known)
    int64_t comm_ns = 0;      // the union of their work
    int64_t hidden_ns = 0;    // ... under computation
    int64_t exposed_ns() const { return comm_ns - hidden_ns; }
    bool operator==(const AttentionComm&) const = default;
};

struct OverlapReport {
    std::vector<CommOverlap> rows;         // per rank: the whole trace, then its steps in order
    std::vector<HtaOverlap> hta;           // per GPU rank with communication
    std::vector<AttentionComm> attention;  // attention calls that communicate, in trace order
    bool operator==(const OverlapReport&) const = default;
};

// attention: the run's attention calls (analysis/attention.h), for the calls' communication; may be empty.
OverlapReport comm_overlap(const Trace& trace, const std::vector<KernelClass>& classes,
                           const CollectiveReport& collectives, const std::vector<AttentionInstance>& attention = {});
// ... and the trace's launches already indexed (trace_links.h).
OverlapReport comm_overlap(const Trace& trace, const std::vector<KernelClass>& classes,
                           const CollectiveReport& collectives, const std::vector<AttentionInstance>& attention,
                           const LaunchCalls& launches);

// The attention calls' communication as text (nothing when none communicates).
std::string format_attention_comm(const std::vector<AttentionComm>& calls, size_t rows);

// The rows as a text table for attnwb inspect --collectives.
std::string format_overlap(const OverlapReport& report);

}  // namespace awb
