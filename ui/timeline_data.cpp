#include "timeline_data.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace awb::ui {

TimeMapping TimeMapping::zoomed(double factor, double anchor_x, int64_t min_span_ns) const {
    const double span = double(end_ns - start_ns);
    const double new_span = std::max(double(min_span_ns), span / factor);
    const double anchor_ns = double(start_ns) + anchor_x / width_px * span;
    TimeMapping m = *this;
    m.start_ns = int64_t(anchor_ns - anchor_x / width_px * new_span);
    m.end_ns = m.start_ns + std::max<int64_t>(1, int64_t(new_span));
    return m;
}

TimeMapping TimeMapping::panned(double dx_px) const {
    const auto dt = int64_t(dx_px * ns_per_px());
    TimeMapping m = *this;
    m.start_ns += dt;
    m.end_ns += dt;
    return m;
}

size_t TimelineData::span_count() const {
    size_t n = 0;
    for (const auto& lane : lanes)
        for (const auto& level : lane.levels) n += level.spans.size();
    return n;
}

size_t place_span(TimelineLane& lane, TimelineSpan span, size_t level) {
    while (level < lane.levels.size() && !lane.levels[level].spans.empty() &&
           lane.levels[level].spans.back().end_ns > span.start_ns)
        ++level;
    if (level >= lane.levels.size()) lane.levels.resize(level + 1);
    lane.levels[level].spans.push_back(span);
    return level;
}

TimelineData TimelineData::from_trace(const Trace& trace) {
    TimelineData d;
    d.start_ns = trace.begin_ns();
    d.end_ns = std::max(trace.end_ns(), trace.begin_ns() + 1);
    std::unordered_map<std::string, int32_t> name_ids;
    // (rank, device kind, device index, thread) -> lane; std::map orders ranks, then CPU (enum 0) first,
    // threads ascending. Lanes carry the trace's thread and stream names where it has them.
    using LaneKey = std::tuple<int32_t, int, int, uint64_t>;
    std::map<LaneKey, size_t> lane_of;
    const auto& events = trace.events();
    const TraceMeta& meta = trace.meta();
    for (const auto& e : events) lane_of.emplace(LaneKey{e.rank, int(e.device), e.device_index, e.thread}, 0);
    for (auto& [key, index] : lane_of) {
        index = d.lanes.size();
        const auto& [rank, device, device_index, thread] = key;
        TimelineLane lane;
        const bool cpu = DeviceKind(device) == DeviceKind::CPU;
        const auto& names = cpu ? meta.thread_names : meta.stream_names;
        const auto named = names.find(thread);
        if (cpu)
            lane.title = named != names.end() ? named->second + " (CPU " + std::to_string(thread) + ")" : "CPU thread " + std::to_string(thread);
        else
            lane.title = to_string(DeviceSpec{DeviceKind(device), device_index}) + " " +
                         (named != names.end() ? named->second : "stream " + std::to_string(thread));
        if (meta.ranks.size() > 1) lane.title = "rank " + std::to_string(rank) + " " + lane.title;
        lane.device = !cpu;
        lane.device_index = device_index;
        lane.rank = rank;
        d.lanes.push_back(std::move(lane));
    }
    d.placed.resize(events.size());
    for (size_t i = 0; i < events.size(); ++i) {  // events are in start order (Trace::build)
        const auto& e = events[i];
        auto [it, added] = name_ids.emplace(e.name, int32_t(d.names.size()));
        if (added) d.names.push_back(e.name);
        const size_t lane = lane_of[{e.rank, int(e.device), e.device_index, e.thread}];
        const size_t level = place_span(d.lanes[lane], TimelineSpan{e.start_ns, e.end_ns, it->second, int32_t(i)},
                                        nests_on_cpu(e) ? size_t(std::max(0, int(e.depth))) : 0);
        d.placed[i] = {int32_t(lane), int32_t(level)};
    }
    return d;
}

namespace {

// First span whose end is after t (spans sorted by start and by end).
size_t first_ending_after(const std::vector<TimelineSpan>& spans, int64_t t) {
    return size_t(std::partition_point(spans.begin(), spans.end(), [t](const TimelineSpan& s) { return s.end_ns <= t; }) -
                  spans.begin());
}

// First span at or after index from whose start is at or after t.
size_t first_starting_at(const std::vector<TimelineSpan>& spans, size_t from, int64_t t) {
    return size_t(std::partition_point(spans.begin() + long(from), spans.end(),
                                       [t](const TimelineSpan& s) { return s.start_ns < t; }) -
                  spans.begin());
}

}  // namespace

void build_draw_list(const TimelineData& data, const TimeMapping& view, double min_px, std::vector<DrawItem>& out) {
    out.clear();
    const double ns_per_px = view.ns_per_px();
    const auto min_ns = int64_t(std::max(1.0, min_px * ns_per_px));
    auto clip = [&](double x) { return std::clamp(x, -1.0, view.width_px + 1.0); };
    for (size_t l = 0; l < data.lanes.size(); ++l) {
        const auto& levels = data.lanes[l].levels;
        for (size_t d = 0; d < levels.size(); ++d) {
            const auto& spans = levels[d].spans;
            size_t i = first_ending_after(spans, view.start_ns);
            while (i < spans.size() && spans[i].start_ns < view.end_ns) {
                const TimelineSpan& s = spans[i];
                if (s.end_ns - s.start_ns >= min_ns) {  // wide enough: its own item
                    out.push_back({int(l), int(d), clip(view.x_of(s.start_ns)), clip(view.x_of(s.end_ns)), s.name, s.event, 1});
                    ++i;
                    continue;
                }
                // Fold: swallow every span that starts within min_ns of the fold's end, as long as it
                // is narrow too; a wide span stops the fold and gets drawn on its own.
                const size_t first = i;
                int64_t fold_end = s.end_ns;
                ++i;
                while (i < spans.size() && spans[i].start_ns < view.end_ns) {
                    const size_t j = first_starting_at(spans, i, fold_end + min_ns);
                    if (j == i) break;  // a gap of at least min_px: the fold ends
                    // spans [i, j) start within reach; stop before the first wide one among them.
                    size_t k = i;
                    const size_t last = j - 1;
                    if (spans[last].end_ns - spans[last].start_ns >= min_ns) {
                        // rare: look for the first wide span linearly (the range is small on screen)
                        while (k < j && spans[k].end_ns - spans[k].start_ns < min_ns) ++k;
                        if (k > i) fold_end = std::max(fold_end, spans[k - 1].end_ns);
                        i = k;
                        break;
                    }
                    fold_end = std::max(fold_end, spans[last].end_ns);
                    i = j;
                }
                out.push_back({int(l), int(d), clip(view.x_of(spans[first].start_ns)), clip(view.x_of(fold_end)),
                               spans[first].name, -1, int32_t(i - first)});
            }
        }
    }
}

const TimelineSpan* span_at(const TimelineData& data, const TimeMapping& view, int lane, int level, double x,
                            double tolerance_px) {
    if (lane < 0 || lane >= int(data.lanes.size())) return nullptr;
    const auto& levels = data.lanes[size_t(lane)].levels;
    if (level < 0 || level >= int(levels.size())) return nullptr;
    const auto& spans = levels[size_t(level)].spans;
    const int64_t t = view.ns_at(x);
    const auto tol = int64_t(tolerance_px * view.ns_per_px());
    const size_t i = first_ending_after(spans, t - tol);
    if (i < spans.size() && spans[i].start_ns <= t + tol) return &spans[i];
    return nullptr;
}

}  // namespace awb::ui
