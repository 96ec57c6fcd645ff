// Two operator tables joined by operator (and input shapes when grouped): the rows of a run-vs-run
// comparison. Pure C++.
#pragma once

#include <string>
#include <vector>

#include "analysis/kernel_table.h"
#include "analysis/op_table.h"

namespace awb {

struct OperatorDiffRow {
    std::string name;
    std::string input_shapes;
    bool in_a = false, in_b = false;  // only in A: vanished in B; only in B: new
    OperatorRow a, b;                 // zero rows where absent
    int64_t self_cpu_delta_ns() const { return b.self_cpu_ns - a.self_cpu_ns; }
    int64_t self_device_delta_ns() const { return b.self_device_ns - a.self_device_ns; }
    int64_t impact_ns() const;  // |self CPU delta| + |self device delta|
};

// Joined by (name, input_shapes, device); sorted by impact descending (largest first), then by name.
std::vector<OperatorDiffRow> join_operators(const std::vector<OperatorRow>& a, const std::vector<OperatorRow>& b);

struct KernelDiffRow {
    std::string name;
    bool in_a = false, in_b = false;
    int64_t calls_a = 0, calls_b = 0;
    int64_t total_a_ns = 0, total_b_ns = 0;
    int64_t delta_ns() const { return total_b_ns - total_a_ns; }
};

// Kernel tables joined by name (launch configurations summed); sorted by |total time delta|.
std::vector<KernelDiffRow> join_kernels(const std::vector<KernelRow>& a, const std::vector<KernelRow>& b);

}  // namespace awb
