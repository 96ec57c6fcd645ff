// One row of an operator table (PyTorch's key_averages()): what a profiled run, a sweep point and a
// comparison carry; analysis/op_table.h computes the rows from a trace.
#pragma once

#include <cstdint>
#include <string>

#include "model/run_spec.h"

namespace awb {

struct OperatorRow {
    std::string name;                     // "ProfilerStep*" for all ProfilerStep#k, as PyTorch rewrites them
    std::string input_shapes;             // Python's str() of the shapes, only when grouped by shape
    DeviceKind device = DeviceKind::CPU;  // CUDA for rows made of kernels themselves
    bool user_annotation = false;  // a device-side user annotation (gpu_user_annotation): no kernel time of its own
    int64_t calls = 0;
    int64_t self_cpu_ns = 0;
    int64_t cpu_total_ns = 0;
    int64_t self_device_ns = 0;
    int64_t device_total_ns = 0;
    int64_t cpu_memory_bytes = 0;
    int64_t self_cpu_memory_bytes = 0;
    int64_t device_memory_bytes = 0;
    int64_t self_device_memory_bytes = 0;
    bool operator==(const OperatorRow&) const = default;
};

}  // namespace awb
