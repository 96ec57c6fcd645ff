// Two operator tables joined by operator (and input shapes when grouped): the rows of a run-vs-run
// comparison. Pure C++.
#pragma once

#include <string>
#include <vector>

#include "op_table.h"

namespace awb {

struct OperatorDiffRow {
    std::string name;
    std::string input_shapes;
    bool in_a = false, in_b = false;  // only in A: vanished in B; only in B: new
    OperatorRow a, b;                 // zero rows where absent
    int64_t self_cpu_delta_ns() const { return b.self_cpu_ns - a.self_cpu_ns; }
};

// Joined by (name, input_shapes); sorted by |self CPU delta| descending (largest impact first),
// then by name.
std::vector<OperatorDiffRow> join_operators(const std::vector<OperatorRow>& a, const std::vector<OperatorRow>& b);

}  // namespace awb
