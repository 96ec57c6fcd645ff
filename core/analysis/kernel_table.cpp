#include "analysis/kernel_table.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace awb {

std::vector<KernelRow> kernel_table(const Trace& trace) { return kernel_table(trace, kernel_classes(trace)); }

std::vector<KernelRow> kernel_table(const Trace& trace, const std::vector<KernelClass>& classes) {
    using Key =
        std::tuple<std::string, int, std::array<int32_t, 3>, std::array<int32_t, 3>, int32_t, int64_t, int, int>;
    std::map<Key, KernelRow> groups;
    std::map<Key, double> occupancy_weight;
    for (size_t i = 0; i < trace.events().size(); ++i) {
        const TraceEvent& e = trace.events()[i];
        if (!is_device_work(e)) continue;
        const DeviceLaunch l = e.launch ? *e.launch : DeviceLaunch{};
        const Key key{e.name,         int(e.kind),    l.grid, l.block, l.registers_per_thread, l.shared_memory_bytes,
                      e.device_index, int(classes[i])};
        KernelRow& r = groups[key];
        const int64_t d = e.duration_ns();
        if (r.calls == 0) {
            r.name = e.name;
            r.kind = e.kind;
            r.cls = classes[i];
            r.device_index = e.device_index;
            r.launch = l;
            r.launch.bytes = 0;
            r.min_ns = r.max_ns = d;
        }
        ++r.calls;
        r.total_ns += d;
        r.min_ns = std::min(r.min_ns, d);
        r.max_ns = std::max(r.max_ns, d);
        if (l.bytes > 0) r.launch.bytes += l.bytes;
        if (l.occupancy_pct >= 0) {
            double& w = occupancy_weight[key];
            const double weight = double(std::max<int64_t>(d, 1));
            r.mean_occupancy_pct = (std::max(r.mean_occupancy_pct, 0.0) * w + l.occupancy_pct * weight) / (w + weight);
            w += weight;
        }
    }
    std::vector<KernelRow> rows;
    rows.reserve(groups.size());
    for (auto& [key, row] : groups) rows.push_back(std::move(row));
    std::stable_sort(rows.begin(), rows.end(),
                     [](const KernelRow& a, const KernelRow& b) { return a.total_ns > b.total_ns; });
    return rows;
}

std::vector<KernelRow> kernels_by_class(const std::vector<KernelRow>& rows) {
    std::map<std::pair<int, int>, KernelRow> groups;  // (class, device)
    std::map<std::pair<int, int>, double> occupancy_time;
    for (const KernelRow& r : rows) {
        const std::pair<int, int> key{int(r.cls), r.device_index};
        KernelRow& g = groups[key];
        if (g.calls == 0) {
            g.name = to_string(r.cls);
            g.kind = r.kind;
            g.cls = r.cls;
            g.device_index = r.device_index;
            g.launch.bytes = 0;
            g.min_ns = r.min_ns;
            g.max_ns = r.max_ns;
        }
        if (r.mean_occupancy_pct >= 0) {
            double& w = occupancy_time[key];
            const double weight = double(std::max<int64_t>(r.total_ns, 1));
            g.mean_occupancy_pct =
                (std::max(g.mean_occupancy_pct, 0.0) * w + r.mean_occupancy_pct * weight) / (w + weight);
            w += weight;
        }
        g.calls += r.calls;
        g.total_ns += r.total_ns;
        g.min_ns = std::min(g.min_ns, r.min_ns);
        g.max_ns = std::max(g.max_ns, r.max_ns);
        if (r.launch.bytes > 0) g.launch.bytes += r.launch.bytes;
    }
    std::vector<KernelRow> out;
    for (auto& [key, g] : groups) out.push_back(std::move(g));
    std::stable_sort(out.begin(), out.end(),
                     [](const KernelRow& a, const KernelRow& b) { return a.total_ns > b.total_ns; });
    return out;
}

std::string format_dim3(const std::array<int32_t, 3>& d) {
    if (d[0] <= 0) return "-";
    return "[" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + "]";
}

}  // namespace awb
