// Hand-made trace events for the core tests: CPU ops, kernels and runtime calls with times in
// microseconds, as the importer would give them (ops on thread 1, kernels on device 0 stream 7).
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "model/trace.h"

namespace awb::test_traces {

// An op with its External id and what it recorded (shapes, dtypes, stack, Concrete Inputs); none when empty.
inline TraceEvent cpu_op(const std::string& name, int64_t start_us, int64_t end_us, int64_t external_id,
                         EventInputs inputs = {}) {
    TraceEvent e;
    e.name = name;
    e.kind = EventKind::CpuOp;
    e.start_ns = start_us * 1000;
    e.end_ns = end_us * 1000;
    e.thread = 1;
    e.correlation_id = external_id;
    if (!inputs.empty()) e.inputs = std::make_shared<const EventInputs>(std::move(inputs));
    return e;
}

// A kernel launched by the op with external_id; correlation: its launch's (a graph launch's, say).
inline TraceEvent gpu_kernel(const std::string& name, int64_t start_us, int64_t end_us, int64_t external_id,
                             int64_t correlation = 0) {
    TraceEvent e;
    e.name = name;
    e.kind = EventKind::Kernel;
    e.device = DeviceKind::CUDA;
    e.device_index = 0;
    e.thread = 7;
    e.start_ns = start_us * 1000;
    e.end_ns = end_us * 1000;
    e.linked_correlation_id = external_id;
    e.correlation_id = correlation;
    return e;
}

// A runtime call (cudaLaunchKernel, cudaGraphLaunch) on thread 1, inside the op with external_id.
inline TraceEvent runtime_call(const std::string& name, int64_t start_us, int64_t end_us, int64_t external_id,
                               int64_t correlation) {
    TraceEvent e = cpu_op(name, start_us, end_us, correlation);
    e.kind = EventKind::Runtime;
    e.linked_correlation_id = external_id;
    return e;
}

}  // namespace awb::test_traces
