// Why a device stream idles, HolisticTraceAnalysis's way (get_idle_time_breakdown): on each stream, in
// start order, the gap before each kernel, copy or set (from the previous one's end to its start) is
//   - host wait when its launch (the runtime call) began after the previous one ended: the CPU was late;
//   - kernel wait when it was launched in time and the gap is under 30 us: the launch's own latency;
//   - other for the rest (a sync, a wait on another stream, an event).
// A gap belongs to the step whose ProfilerStep holds the launch of the event after it. A gap is summed
// as it is, negative where two events of one stream overlap in the trace, as HTA sums it. Beside the
// figures over every event, the same computed on what HTA 0.5.0 reads (analysis/hta_view.h: the last
// step left out, whole microseconds) to check the two against each other. The longest host waits name
// the CPU work that held their launch: the op around the runtime call and its Python frame. Pure C++.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/trace_links.h"
#include "model/trace.h"

namespace awb {

inline constexpr int64_t kKernelWaitNs = 30'000;  // HTA's consecutive_kernel_delay (30 us)

struct StreamIdle {
    int32_t rank = -1;
    int device_index = -1;
    int64_t stream = 0;  // the trace's stream id
    int step = -1;       // k of ProfilerStep#k; -1: the whole trace
    int64_t host_wait_ns = 0;
    int64_t kernel_wait_ns = 0;
    int64_t other_ns = 0;
    int64_t gaps = 0;
    int64_t idle_ns() const { return host_wait_ns + kernel_wait_ns + other_ns; }
    bool operator==(const StreamIdle&) const = default;
};

enum class IdleCause { HostWait, KernelWait, Other };
std::string to_string(IdleCause cause);  // "host wait", "kernel wait", "other"

// A long gap and what held it.
struct IdleGap {
    int32_t rank = -1;
    int64_t stream = 0;
    int64_t start_ns = 0, end_ns = 0;
    IdleCause cause = IdleCause::Other;
    int32_t next = -1;         // the event after the gap (index into the trace's events)
    int32_t launch = -1;       // its runtime call, -1 when not in the trace
    std::string held_by;       // the CPU op around the launch ("" when none)
    std::string python_frame;  // the innermost Python frame above it ("" when none)
    int64_t duration_ns() const { return end_ns - start_ns; }
    bool operator==(const IdleGap&) const = default;
};

struct IdleReport {
    int64_t origin_ns = 0;                     // the trace's time zero (the gaps' times are on the file's clock)
    std::vector<StreamIdle> rows;              // per rank and stream: the whole trace, then its steps in order
    std::vector<StreamIdle> hta;               // per rank and stream, on what HTA reads (step -1)
    std::map<int32_t, std::string> hta_steps;  // rank -> which steps its hta rows cover
    std::vector<IdleGap> longest;              // the longest gaps over all streams, longest first
    bool operator==(const IdleReport&) const = default;
};

// kernel_wait_ns: the gap under which a launched-in-time kernel waits on the launch itself; longest: how
// many of the longest gaps to name.
IdleReport idle_time(const Trace& trace, const LaunchCalls& launches, int64_t kernel_wait_ns = kKernelWaitNs,
                     size_t longest = 10);

// The rows and the longest gaps as text for attnwb inspect --idle.
std::string format_idle(const IdleReport& report, size_t rows);

}  // namespace awb
