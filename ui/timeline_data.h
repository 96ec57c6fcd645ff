// What the timeline draws, as plain data (no Qt, no widgets): events packed per lane (a CPU thread or
// a device stream) into levels of non-overlapping spans sorted by time, the time-to-pixel mapping, and
// the per-frame draw list of visible items, with runs of spans narrower than a few pixels folded into
// one counted item. Tested without a window (tests/ui).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.h"

namespace awb::ui {

// Pixels <-> nanoseconds for a view [start_ns, end_ns] drawn over width_px pixels.
struct TimeMapping {
    int64_t start_ns = 0;
    int64_t end_ns = 1;
    double width_px = 1;

    double ns_per_px() const { return double(end_ns - start_ns) / width_px; }
    double x_of(int64_t ns) const { return double(ns - start_ns) / ns_per_px(); }
    int64_t ns_at(double x) const { return start_ns + int64_t(x * ns_per_px()); }
    // Zoom by factor (> 1 zooms in) keeping the time under anchor_x where it is; never narrower than
    // min_span_ns.
    TimeMapping zoomed(double factor, double anchor_x, int64_t min_span_ns = 100) const;
    TimeMapping panned(double dx_px) const;  // dx > 0 moves the view later in time
    bool operator==(const TimeMapping&) const = default;
};

struct TimelineSpan {
    int64_t start_ns = 0;
    int64_t end_ns = 0;
    int32_t name = 0;    // index into TimelineData::names
    int32_t event = -1;  // index into the trace's events, -1 for synthetic data
};

struct TimelineLevel {
    std::vector<TimelineSpan> spans;  // sorted by start; no two overlap, so ends are sorted too
    bool frames_only = false;         // every span a Python frame (python_function): foldable
};

struct TimelineLane {
    std::string title;  // "CPU thread 1234", "cuda:0 stream 7", "Spans: PyTorch Profiler"
    std::string group;  // what it belongs to: its process ("python3.10 (pid 12)", "Spans") or device ("cuda:0")
    std::vector<TimelineLevel> levels;
    bool device = false;  // a device stream (of device_index, on rank)
    int device_index = -1;
    int32_t rank = -1;
};

struct TimelineData {
    std::vector<std::string> names;  // as the trace gives them (raw kernel names: selection matches these)
    std::vector<std::string>
        labels;  // as drawn: Itanium-mangled kernel names demangled (model/kernel_name.h); else empty
    const std::string& label(int32_t name) const {
        return size_t(name) < labels.size() && !labels[size_t(name)].empty() ? labels[size_t(name)]
                                                                             : names[size_t(name)];
    }
    std::vector<TimelineLane> lanes;
    struct Place {
        int32_t lane = -1, level = -1;
    };
    std::vector<Place> placed;  // where each trace event was drawn (by event index); empty for synthetic data
    int64_t start_ns = 0, end_ns = 0;
    size_t span_count() const;

    // Lanes: CPU threads ascending, then device streams; CPU events keep their nesting depth as level,
    // async and device events go to the first level where they fit.
    static TimelineData from_trace(const Trace& trace);
};

// Adds a span to the first level at or below `level` where it does not overlap (spans must come in
// start order per lane). Used by from_trace and by synthetic data.
// Returns the level it went to.
size_t place_span(TimelineLane& lane, TimelineSpan span, size_t level);

// How the lanes are shown: their order top to bottom, which are hidden or collapsed (header only),
// and whether a lane's deep Python frames are folded away.
struct LaneView {
    bool hidden = false;
    bool collapsed = false;
    bool frames_expanded = false;  // show the Python-frame-only levels beyond the fold depth
};

// The rows on screen, from the lane views: per lane its header's y and per level its row's y (-1 where
// not shown). Python-frame-only levels deeper than frame_depth are folded unless the lane expands them.
struct RowLayout {
    std::vector<int> order;               // shown lanes, top to bottom
    std::vector<int> header_y;            // per lane: -1 when hidden
    std::vector<std::vector<int>> row_y;  // per lane, per level: -1 when not shown
    std::vector<int> folded_levels;       // per lane: Python levels folded away
    int bottom = 0;                       // below the last shown lane
    int shownRows(int lane) const;        // rows of the lane on screen (0 when collapsed or hidden)
};
RowLayout layout_rows(const TimelineData& data, const std::vector<LaneView>& views, const std::vector<int>& order,
                      int top, int header_px, int row_px, size_t frame_depth);

// The lane order with the device lanes first (pinned on top), or back to the data's order.
std::vector<int> lane_order(const TimelineData& data, const std::vector<int>& order, bool gpu_on_top);

struct DrawItem {
    int lane = 0;
    int level = 0;
    double x0 = 0, x1 = 0;  // pixels, clipped to the view
    int32_t name = 0;       // of the first span
    int32_t event = -1;     // the span's event; -1 when folded
    int32_t count = 1;      // spans in this item (> 1: folded)
};

// The visible items of the view: per level, two binary searches find the visible range; a span
// narrower than min_px starts a folded item that swallows, by binary search, every span starting
// within min_px of it, so a frame costs O(visible pixels x log spans), not O(spans).
void build_draw_list(const TimelineData& data, const TimeMapping& view, double min_px, std::vector<DrawItem>& out);
// Only the rows of the layout that are shown and overlap [y0, y1): a frame costs what is on screen.
void build_draw_list(const TimelineData& data, const TimeMapping& view, double min_px, std::vector<DrawItem>& out,
                     const RowLayout& rows, int y0, int y1, int row_px);

// The span under a point, or nullptr.
const TimelineSpan* span_at(const TimelineData& data, const TimeMapping& view, int lane, int level, double x,
                            double tolerance_px = 1.0);

}  // namespace awb::ui
