// The kernel table of a trace with device events: kernels, copies and sets grouped by name and launch
// configuration (grid, block, registers, shared memory), like TensorBoard's "kernel properties" view,
// with calls, total / average / min / max time and the duration-weighted mean occupancy. Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.h"

namespace awb {

struct KernelRow {
    std::string name;
    EventKind kind = EventKind::Kernel;  // Kernel, Memcpy or Memset
    int device_index = -1;
    int64_t calls = 0;
    int64_t total_ns = 0;
    int64_t min_ns = 0;
    int64_t max_ns = 0;
    DeviceLaunch launch;          // grid, block, registers, shared memory of the group; bytes summed
    double mean_occupancy_pct = -1;  // weighted by duration; -1 when the trace has none (ROCm)
    double avg_ns() const { return calls ? double(total_ns) / double(calls) : 0.0; }
    bool operator==(const KernelRow&) const = default;
};

// Sorted by total time, largest first.
std::vector<KernelRow> kernel_table(const Trace& trace);

// "[1, 2, 16]", or "-" when the trace has no value.
std::string format_dim3(const std::array<int32_t, 3>& d);

}  // namespace awb
