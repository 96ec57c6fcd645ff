#include "analysis/hta_view.h"

#include <cmath>
#include <set>
#include <string_view>

namespace awb {

bool HtaView::keeps(const TraceEvent& e, const std::vector<TraceEvent>& events, const LaunchCalls& launches) const {
    if (!filters) return true;
    const int32_t launch = launches.of(e);
    return launch >= 0 && start(events[size_t(launch)].start_ns) < start(last_step_start);
}

int64_t HtaView::start(int64_t start_ns) const {
    if (!fractional) return start_ns;
    return origin + int64_t(std::ceil(double(start_ns - origin) / 1000.0)) * 1000;
}

int64_t HtaView::end(int64_t start_ns, int64_t end_ns) const {
    if (!fractional) return end_ns;
    return origin + int64_t(std::floor(double(start_ns - origin) / 1000.0 + double(end_ns - start_ns) / 1000.0)) * 1000;
}

std::string HtaView::steps() const {
    return filters ? "launched before ProfilerStep#" + std::to_string(last_step) + " (the last) began" : "all";
}

std::map<int32_t, HtaView> hta_views(const Trace& trace) {
    const int64_t origin = trace.meta().origin_ns;
    std::map<int32_t, HtaView> out;
    std::map<int32_t, std::set<std::string_view>> step_names;
    for (const TraceEvent& e : trace.events()) {
        HtaView& h = out[e.rank];
        h.origin = origin;
        if (starts_off_whole_us(e, origin)) h.fractional = true;
        if (e.device != DeviceKind::CPU || e.name.view().find("ProfilerStep") == std::string_view::npos) continue;
        step_names[e.rank].insert(e.name.view());
        if (e.start_ns > h.last_step_start) {
            h.last_step_start = e.start_ns;
            h.last_step = profiler_step_number(e.name);
        }
    }
    for (auto& [rank, names] : step_names) out[rank].filters = names.size() >= 2;
    return out;
}

}  // namespace awb
