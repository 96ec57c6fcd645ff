// The kernel table of a trace with device events: kernels, copies and sets grouped by name and launch
// configuration (grid, block, registers, shared memory), like TensorBoard's "kernel properties" view,
// with calls, total / average / min / max time and the duration-weighted mean occupancy. Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/kernel_class.h"
#include "model/trace.h"

namespace awb {

struct KernelRow {
    std::string name;
    EventKind kind = EventKind::Kernel;    // Kernel, Memcpy or Memset
    KernelClass cls = KernelClass::Other;  // from the name and the launching op (kernel_class.h)
    int device_index = -1;
    int64_t calls = 0;
    int64_t total_ns = 0;
    int64_t min_ns = 0;
    int64_t max_ns = 0;
    DeviceLaunch launch;             // grid, block, registers, shared memory of the group; bytes summed
    double mean_occupancy_pct = -1;  // weighted by duration; -1 when the trace has none (ROCm)
    double avg_ns() const { return calls ? double(total_ns) / double(calls) : 0.0; }
    bool operator==(const KernelRow&) const = default;
};

// Grouped by name, launch configuration, device and class; sorted by total time, largest first.
std::vector<KernelRow> kernel_table(const Trace& trace);
// The same with the trace's kernel classes already computed (kernel_classes(trace)).
std::vector<KernelRow> kernel_table(const Trace& trace, const std::vector<KernelClass>& classes);

// The rows summed per class and device (name: the class's name; calls, total, min, max and bytes
// summed; occupancy weighted by time; no launch configuration), sorted by total time.
std::vector<KernelRow> kernels_by_class(const std::vector<KernelRow>& rows);

// "[1, 2, 16]", or "-" when the trace has no value.
std::string format_dim3(const std::array<int32_t, 3>& d);

}  // namespace awb
