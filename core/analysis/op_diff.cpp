#include "analysis/op_diff.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>

namespace awb {

std::vector<OperatorDiffRow> join_operators(const std::vector<OperatorRow>& a, const std::vector<OperatorRow>& b) {
    // A CPU op and a device row may share a name (attn_fwd's user annotation on both): the device is in the key.
    std::map<std::tuple<std::string, std::string, int>, OperatorDiffRow> joined;
    auto add = [&](const std::vector<OperatorRow>& rows, bool OperatorDiffRow::*present,
                   OperatorRow OperatorDiffRow::*slot) {
        for (const auto& r : rows) {
            auto& d = joined[{r.name, r.input_shapes, int(r.device)}];
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
    std::stable_sort(out.begin(), out.end(),
                     [](const OperatorDiffRow& x, const OperatorDiffRow& y) { return x.impact_ns() > y.impact_ns(); });
    return out;
}

int64_t OperatorDiffRow::impact_ns() const {
    return std::llabs(self_cpu_delta_ns()) + std::llabs(self_device_delta_ns());
}

std::vector<KernelDiffRow> join_kernels(const std::vector<KernelRow>& a, const std::vector<KernelRow>& b) {
    std::map<std::string, KernelDiffRow> joined;
    auto add = [&](const std::vector<KernelRow>& rows, bool KernelDiffRow::*present, int64_t KernelDiffRow::*calls,
                   int64_t KernelDiffRow::*total) {
        for (const auto& k : rows) {
            auto& d = joined[k.name];
            d.name = k.name;
            d.*present = true;
            d.*calls += k.calls;
            d.*total += k.total_ns;
        }
    };
    add(a, &KernelDiffRow::in_a, &KernelDiffRow::calls_a, &KernelDiffRow::total_a_ns);
    add(b, &KernelDiffRow::in_b, &KernelDiffRow::calls_b, &KernelDiffRow::total_b_ns);
    std::vector<KernelDiffRow> out;
    for (auto& [name, row] : joined) out.push_back(std::move(row));
    std::stable_sort(out.begin(), out.end(), [](const KernelDiffRow& x, const KernelDiffRow& y) {
        return std::llabs(x.delta_ns()) > std::llabs(y.delta_ns());
    });
    return out;
}

}  // namespace awb
