#include "op_diff.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace awb {

std::vector<OperatorDiffRow> join_operators(const std::vector<OperatorRow>& a, const std::vector<OperatorRow>& b) {
    std::map<std::pair<std::string, std::string>, OperatorDiffRow> joined;
    for (const auto& r : a) {
        auto& d = joined[{r.name, r.input_shapes}];
        d.name = r.name;
        d.input_shapes = r.input_shapes;
        d.in_a = true;
        d.a = r;
    }
    for (const auto& r : b) {
        auto& d = joined[{r.name, r.input_shapes}];
        d.name = r.name;
        d.input_shapes = r.input_shapes;
        d.in_b = true;
        d.b = r;
    }
    std::vector<OperatorDiffRow> out;
    out.reserve(joined.size());
    for (auto& [key, row] : joined) out.push_back(std::move(row));
    std::stable_sort(out.begin(), out.end(), [](const OperatorDiffRow& x, const OperatorDiffRow& y) {
        return std::llabs(x.self_cpu_delta_ns()) > std::llabs(y.self_cpu_delta_ns());
    });
    return out;
}

}  // namespace awb
