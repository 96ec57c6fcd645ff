// Where a GPU's time goes (HolisticTraceAnalysis's temporal breakdown, TraceLens's gpu_timeline), per
// rank and device, for the whole trace and for each ProfilerStep. Definitions (docs/inspect.md "GPU time
// breakdown"):
//   - device events: kernels, memcpy and memset (device-side user annotations are spans, not work);
//     each has its kernel class (kernel_class.h): communication (NCCL/RCCL), memcpy and memset
//     (ROCm's copy and fill kernels too), and computation for every other class, which is also
//     measured class by class;
//   - every figure is the length of a union of intervals, merged across all streams of the device,
//     so two kernels that overlap on two streams count once;
//   - busy = union of all device events; idle = span - busy;
//   - exposed communication = communication not overlapped by computation on any stream; exposed
//     memcpy = memcpy not overlapped by computation;
//   - the whole-trace span runs from the device's first event to its last; step k's span runs from
//     the first device event of step k to the first of step k+1 (the last step: to its last event's
//     end); a device event belongs to the step whose CPU ProfilerStep#k holds its launch (the runtime
//     call with its correlation id, on its rank), or, without a launch, its own start.
// Pure C++: no torch, no Qt.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/kernel_class.h"
#include "analysis/trace_links.h"
#include "model/trace.h"

namespace awb {

struct GpuBreakdown {
    int32_t rank = -1;  // -1 for a single-process trace
    int device_index = -1;
    int step = -1;         // k of ProfilerStep#k; -1: the whole trace
    int64_t start_ns = 0;  // the span, on the trace's clock (like the file's ts)
    int64_t end_ns = 0;
    int64_t kernels = 0;  // device events in the span (kernels, copies, sets)
    int64_t computation_ns = 0;
    int64_t communication_ns = 0;
    int64_t memcpy_ns = 0;
    int64_t memset_ns = 0;
    int64_t busy_ns = 0;
    int64_t idle_ns = 0;
    int64_t exposed_communication_ns = 0;
    int64_t exposed_memcpy_ns = 0;
    // Time each class's kernels run on any stream (computation classes sum to at least computation_ns:
    // two classes overlapping on two streams count in both).
    std::array<int64_t, kKernelClassCount> class_ns{};
    int64_t span_ns() const { return end_ns - start_ns; }
    double share(int64_t ns) const { return span_ns() > 0 ? double(ns) / double(span_ns()) : 0.0; }
    bool operator==(const GpuBreakdown&) const = default;
};

// One row per (rank, device) for the whole trace, followed by its steps in order; ordered by rank,
// then device. Empty when the trace has no device events.
std::vector<GpuBreakdown> gpu_breakdown(const Trace& trace);
// The same with the trace's kernel classes already computed (kernel_classes(trace)).
std::vector<GpuBreakdown> gpu_breakdown(const Trace& trace, const std::vector<KernelClass>& classes);
// ... and its launches already indexed (trace_links.h).
std::vector<GpuBreakdown> gpu_breakdown(const Trace& trace, const std::vector<KernelClass>& classes,
                                        const LaunchCalls& launches);

// A device's idle gaps: where no kernel, copy or set runs on any of its streams, between its first
// event and its last, in time order (they sum to the whole-trace row's idle_ns).
struct DeviceIdle {
    int32_t rank = -1;
    int device_index = -1;
    std::vector<std::pair<int64_t, int64_t>> gaps;  // [start, end) on the trace's clock
    bool operator==(const DeviceIdle&) const = default;
};
std::vector<DeviceIdle> gpu_idle_gaps(const Trace& trace);

// The rows as a text table (times in us or ms, each with its share of the span), for attnwb inspect.
std::string format_gpu_breakdown(const std::vector<GpuBreakdown>& rows);

}  // namespace awb
