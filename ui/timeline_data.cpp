#include "timeline_data.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "model/kernel_name.h"

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

namespace {

// Kineto's python_function spans (Python frames) come in with no kind of their own.
bool is_python_frame(const TraceEvent& e) { return e.device == DeviceKind::CPU && e.kind == EventKind::Other; }

std::string process_label(const TraceMeta& meta, uint64_t thread) {
    const auto pid = meta.thread_process.find(thread);
    if (pid == meta.thread_process.end()) return "CPU";
    const auto name = meta.process_names.find(pid->second);
    if (is_text_id(pid->second)) return name != meta.process_names.end() ? name->second : "CPU";
    return (name != meta.process_names.end() ? name->second + " " : std::string()) + "(pid " +
           std::to_string(pid->second) + ")";
}

// A lane's title and group, with the trace's thread, stream and process names where it has them; a
// thread or process whose id was a string is called by that string, not by its hash.
TimelineLane lane_for(const TraceMeta& meta, int32_t rank, DeviceKind device, int device_index, uint64_t thread) {
    TimelineLane lane;
    const bool cpu = device == DeviceKind::CPU;
    const auto& names = cpu ? meta.thread_names : meta.stream_names;
    const auto named = names.find(thread);
    const bool has_name = named != names.end();
    if (cpu) {
        lane.group = process_label(meta, thread);
        if (is_text_id(thread))
            lane.title = (lane.group != "CPU" ? lane.group + ": " : std::string()) +
                         (has_name ? named->second : std::string("thread"));
        else
            lane.title = has_name ? named->second + " (CPU " + std::to_string(thread) + ")"
                                  : "CPU thread " + std::to_string(thread);
    } else {
        lane.group = to_string(DeviceSpec{device, device_index});
        lane.title = lane.group + " " + (has_name ? named->second : "stream " + std::to_string(thread));
    }
    if (meta.ranks.size() > 1) {
        lane.title = "rank " + std::to_string(rank) + " " + lane.title;
        lane.group = "rank " + std::to_string(rank) + " " + lane.group;
    }
    lane.device = !cpu;
    lane.device_index = device_index;
    lane.rank = rank;
    return lane;
}

}  // namespace

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
        d.lanes.push_back(lane_for(meta, rank, DeviceKind(device), device_index, thread));
    }
    d.placed.resize(events.size());
    // A level holds only Python frames until a span of another kind lands on it.
    std::vector<std::vector<uint8_t>> other(d.lanes.size());
    for (size_t i = 0; i < events.size(); ++i) {  // events are in start order (Trace::build)
        const auto& e = events[i];
        auto [it, added] = name_ids.emplace(e.name, int32_t(d.names.size()));
        if (added) {
            d.names.push_back(e.name);
            d.labels.push_back(is_mangled_name(e.name.str()) ? demangled_kernel_name(e.name.str()) : std::string());
        }
        const size_t lane = lane_of[{e.rank, int(e.device), e.device_index, e.thread}];
        const size_t level = place_span(d.lanes[lane], TimelineSpan{e.start_ns, e.end_ns, it->second, int32_t(i)},
                                        nests_on_cpu(e) ? size_t(std::max(0, int(e.depth))) : 0);
        d.placed[i] = {int32_t(lane), int32_t(level)};
        if (other[lane].size() <= level) other[lane].resize(level + 1, 0);
        if (!is_python_frame(e)) other[lane][level] = 1;
    }
    for (size_t l = 0; l < d.lanes.size(); ++l)
        for (size_t v = 0; v < d.lanes[l].levels.size(); ++v)
            d.lanes[l].levels[v].frames_only = !d.lanes[l].device && v < other[l].size() && !other[l][v];
    return d;
}

int RowLayout::shownRows(int lane) const {
    int n = 0;
    for (int y : row_y[size_t(lane)]) n += y >= 0;
    return n;
}

RowLayout layout_rows(const TimelineData& data, const std::vector<LaneView>& views, const std::vector<int>& order,
                      int top, int header_px, int row_px, size_t frame_depth) {
    RowLayout r;
    const size_t n = data.lanes.size();
    r.header_y.assign(n, -1);
    r.row_y.resize(n);
    r.folded_levels.assign(n, 0);
    int y = top;
    for (int l : order) {
        if (l < 0 || size_t(l) >= n) continue;
        const LaneView v = size_t(l) < views.size() ? views[size_t(l)] : LaneView{};
        const auto& levels = data.lanes[size_t(l)].levels;
        r.row_y[size_t(l)].assign(levels.size(), -1);
        if (v.hidden) continue;
        r.order.push_back(l);
        r.header_y[size_t(l)] = y;
        y += header_px;
        if (v.collapsed) continue;
        int rows = 0;
        for (size_t d = 0; d < levels.size(); ++d) {
            if (d >= frame_depth && levels[d].frames_only && !v.frames_expanded) {
                ++r.folded_levels[size_t(l)];
                continue;
            }
            r.row_y[size_t(l)][d] = y + rows++ * row_px;
        }
        y += std::max(1, rows) * row_px;
    }
    r.bottom = y;
    return r;
}

std::vector<int> lane_order(const TimelineData& data, const std::vector<int>& order, bool gpu_on_top) {
    std::vector<int> out = order;
    if (gpu_on_top) std::stable_partition(out.begin(), out.end(), [&](int l) { return data.lanes[size_t(l)].device; });
    return out;
}

namespace {

// First span whose end is after t (spans sorted by start and by end).
size_t first_ending_after(const std::vector<TimelineSpan>& spans, int64_t t) {
    return size_t(
        std::partition_point(spans.begin(), spans.end(), [t](const TimelineSpan& s) { return s.end_ns <= t; }) -
        spans.begin());
}

// First span at or after index from whose start is at or after t.
size_t first_starting_at(const std::vector<TimelineSpan>& spans, size_t from, int64_t t) {
    return size_t(std::partition_point(spans.begin() + long(from), spans.end(),
                                       [t](const TimelineSpan& s) { return s.start_ns < t; }) -
                  spans.begin());
}

}  // namespace

namespace {

// The items of one level: wide spans on their own, runs of narrow ones folded (see build_draw_list).
void add_level_items(const std::vector<TimelineSpan>& spans, int l, int d, const TimeMapping& view, int64_t min_ns,
                     std::vector<DrawItem>& out) {
    auto clip = [&](double x) { return std::clamp(x, -1.0, view.width_px + 1.0); };
    size_t i = first_ending_after(spans, view.start_ns);
    while (i < spans.size() && spans[i].start_ns < view.end_ns) {
        const TimelineSpan& s = spans[i];
        if (s.end_ns - s.start_ns >= min_ns) {  // wide enough: its own item
            out.push_back({l, d, clip(view.x_of(s.start_ns)), clip(view.x_of(s.end_ns)), s.name, s.event, 1});
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
        out.push_back({l, d, clip(view.x_of(spans[first].start_ns)), clip(view.x_of(fold_end)), spans[first].name, -1,
                       int32_t(i - first)});
    }
}

int64_t fold_ns(const TimeMapping& view, double min_px) { return int64_t(std::max(1.0, min_px * view.ns_per_px())); }

}  // namespace

void build_draw_list(const TimelineData& data, const TimeMapping& view, double min_px, std::vector<DrawItem>& out) {
    out.clear();
    const int64_t min_ns = fold_ns(view, min_px);
    for (size_t l = 0; l < data.lanes.size(); ++l) {
        const auto& levels = data.lanes[l].levels;
        for (size_t d = 0; d < levels.size(); ++d) add_level_items(levels[d].spans, int(l), int(d), view, min_ns, out);
    }
}

void build_draw_list(const TimelineData& data, const TimeMapping& view, double min_px, std::vector<DrawItem>& out,
                     const RowLayout& rows, int y0, int y1, int row_px) {
    out.clear();
    const int64_t min_ns = fold_ns(view, min_px);
    for (int l : rows.order) {
        const auto& levels = data.lanes[size_t(l)].levels;
        const auto& row_y = rows.row_y[size_t(l)];
        for (size_t d = 0; d < levels.size() && d < row_y.size(); ++d)
            if (row_y[d] >= 0 && row_y[d] + row_px > y0 && row_y[d] < y1)
                add_level_items(levels[d].spans, l, int(d), view, min_ns, out);
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
