// CUDA/HIP graph captures in a trace. Inference engines (vLLM, SGLang) record a "capture trace" while
// they capture their graphs: the kernel, copy and set launches between a thread's cudaStreamBeginCapture
// and cudaStreamEndCapture (hip* on ROCm) put nothing on the device; the graph's kernels run later, in
// a replay trace (results/graph_replay.h attributes them). Such a trace's device time is not the model's, and
// the tools must say so. Pure C++, no torch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace.h"

namespace awb {

// What a runtime call puts on a stream: a kernel (cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel,
// hipLaunchKernel, hipModuleLaunchKernel, hipExtModuleLaunchKernel, the cooperative ones), a copy or a
// set (the *Async calls); nothing for any other call.
std::optional<EventKind> launched_work(std::string_view runtime_call);

// One BeginCapture .. EndCapture region of one thread (end INT64_MAX while never closed).
struct CaptureRegion {
    int32_t rank = -1;
    uint64_t thread = 0;
    int64_t begin_ns = 0, end_ns = INT64_MAX;
    bool holds(int32_t r, uint64_t t, int64_t ns) const {
        return r == rank && t == thread && ns >= begin_ns && ns < end_ns;
    }
};
std::vector<CaptureRegion> capture_regions(const std::vector<TraceEvent>& events);  // in the order they began

struct GraphCaptureSummary {
    int64_t graphs = 0;         // capture regions
    int64_t launches = 0;       // kernel, copy and set launches inside them: did not run here
    int64_t device_events = 0;  // kernels, copies and sets the trace does hold (run outside the regions)
    int64_t device_ns = 0;      // their summed durations
    std::string begin_call;     // "cudaStreamBeginCapture" / "hipStreamBeginCapture"
    bool operator==(const GraphCaptureSummary&) const = default;
};
GraphCaptureSummary graph_capture_summary(const Trace& trace);

// "graph-capture trace: 25 graphs captured (hipStreamBeginCapture .. EndCapture); their 172 launches did
// not run here, ...": one line for the status bar, the CLI and the report; empty when graphs == 0.
std::string graph_capture_note(const GraphCaptureSummary& summary);

}  // namespace awb
