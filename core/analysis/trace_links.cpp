#include "analysis/trace_links.h"

#include <unordered_map>
#include <unordered_set>

namespace awb {

namespace {

bool is_launch(const TraceEvent& e) { return e.kind == EventKind::Runtime && e.device == DeviceKind::CPU; }

// The kernels of the given launches: one pass over the device events (O(events) per selection).
void add_kernels(const Trace& trace, const std::vector<int32_t>& launches, std::vector<FlowLink>& out) {
    std::unordered_map<int64_t, std::vector<int32_t>> by_correlation;
    const int32_t rank = launches.empty() ? -1 : trace.events()[size_t(launches.front())].rank;
    for (int32_t l : launches) {
        const int64_t id = trace.events()[size_t(l)].correlation_id;
        if (id > 0) by_correlation[id].push_back(l);
    }
    if (by_correlation.empty()) return;
    const auto& events = trace.events();
    for (int32_t i = 0; i < int32_t(events.size()); ++i) {
        if (events[size_t(i)].device == DeviceKind::CPU || events[size_t(i)].rank != rank) continue;
        const auto it = by_correlation.find(events[size_t(i)].correlation_id);
        if (it != by_correlation.end())
            for (int32_t l : it->second) out.push_back({l, i});
    }
}

}  // namespace

namespace {

// The events that pass keep, by link_key(rank, correlation_id): the first of a key wins. Counted first,
// so the table is sized once (millions of ops in a run of several ranks).
template <class Keep>
void index_by_link(const std::vector<TraceEvent>& events, MixedMap<int32_t>& out, Keep keep) {
    size_t n = 0;
    for (const TraceEvent& e : events) n += keep(e) && e.correlation_id > 0;
    out.max_load_factor(0.85f);  // robin hood probes stay short; half the table of the default 0.5 (GBs of events)
    out.reserve(n);
    for (size_t i = 0; i < events.size(); ++i)
        if (keep(events[i]) && events[i].correlation_id > 0)
            out.emplace(link_key(events[i].rank, events[i].correlation_id), int32_t(i));
}

}  // namespace

LaunchingOps::LaunchingOps(const Trace& trace) {
    index_by_link(trace.events(), ops_,
                  [](const TraceEvent& e) { return e.device == DeviceKind::CPU && e.kind == EventKind::CpuOp; });
}

int32_t LaunchingOps::of(const TraceEvent& e) const {
    if (e.linked_correlation_id <= 0) return -1;
    const auto it = ops_.find(link_key(e.rank, e.linked_correlation_id));
    return it == ops_.end() ? -1 : it->second;
}

LaunchCalls::LaunchCalls(const Trace& trace) : events_(&trace.events()) { index_by_link(*events_, calls_, is_launch); }

int32_t LaunchCalls::of(const TraceEvent& e) const {
    if (e.correlation_id <= 0) return -1;
    const auto it = calls_.find(link_key(e.rank, e.correlation_id));
    return it == calls_.end() ? -1 : it->second;
}

int64_t LaunchCalls::launched_at(const TraceEvent& e) const {
    const int32_t launch = of(e);
    return launch >= 0 ? (*events_)[size_t(launch)].start_ns : e.start_ns;
}

std::vector<FlowLink> launch_flows(const Trace& trace, int32_t event) {
    const auto& events = trace.events();
    std::vector<FlowLink> out;
    if (event < 0 || event >= int32_t(events.size())) return out;
    const TraceEvent& e = events[size_t(event)];
    if (e.device != DeviceKind::CPU) {  // a kernel: the launch with its correlation id
        if (e.correlation_id <= 0) return out;
        for (int32_t i = 0; i < int32_t(events.size()); ++i)
            if (is_launch(events[size_t(i)]) && events[size_t(i)].correlation_id == e.correlation_id &&
                events[size_t(i)].rank == e.rank)
                out.push_back({i, event});
        return out;
    }
    if (is_launch(e)) {
        add_kernels(trace, {event}, out);
        return out;
    }
    // An op: the External ids of it and the ops nested under it (they follow it in start order on
    // its thread and start before it ends), then the launches that carry one of them.
    std::unordered_set<int64_t> ops;
    if (e.correlation_id > 0) ops.insert(e.correlation_id);
    for (size_t i = size_t(event) + 1; i < events.size() && events[i].start_ns < e.end_ns; ++i) {
        const TraceEvent& c = events[i];
        if (c.device == DeviceKind::CPU && c.thread == e.thread && c.rank == e.rank && c.end_ns <= e.end_ns &&
            c.correlation_id > 0 && !is_launch(c))
            ops.insert(c.correlation_id);
    }
    if (ops.empty()) return out;
    std::vector<int32_t> launches;
    for (int32_t i = 0; i < int32_t(events.size()); ++i)
        if (is_launch(events[size_t(i)]) && events[size_t(i)].rank == e.rank &&
            ops.count(events[size_t(i)].linked_correlation_id))
            launches.push_back(i);
    add_kernels(trace, launches, out);
    return out;
}

}  // namespace awb
