#include "op_diff.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace awb {

std::vector<OperatorDiffRow> join_operators(const std::vector<OperatorRow>& a, const std::vector<OperatorRow>& b) {
    std::map<std::pair<std::string, std::string>, OperatorDiffRow> joined;
    auto add = [&](const std::vector<OperatorRow>& rows, bool OperatorDiffRow::*present, OperatorRow OperatorDiffRow::*slot) {
        for (const auto& r : rows) {
            auto& d = joined[{r.name, r.input_shapes}];
            d.name = r.name;
            d.input_shapes = r.input_shapes;
            d.*present = true;
            d.*slot = r;
        }
    };
    add(a, &OperatorDiffRow::in_a, &OperatorDiffRow::a);
    add(b, &OperatorDiffRow::in_b, &OperatorDiffRow::b);
    std::vector<OperatorDiffRow> out;
    out.reserve(joined.size());
    for (auto& [key, row] : joined) out.push_back(std::move(row));
    std::stable_sort(out.begin(), out.end(), [](const OperatorDiffRow& x, const OperatorDiffRow& y) {
        return std::llabs(x.self_cpu_delta_ns()) > std::llabs(y.self_cpu_delta_ns());
    });
    return out;
}

}  // namespace awb
