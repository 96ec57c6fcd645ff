// The timeline: one lane per CPU thread / device stream, nested events by level, the memory tracks
// under the lanes. Zoom (wheel, +/-, shift-drag a range), pan (drag, arrow keys), fit (F, Home); hover
// shows an event's details, a click selects it. Lanes collapse (click the header) and expand, can be
// hidden, moved and the GPU lanes pinned on top (the header's context menu); Python-frame-only levels
// beyond kFrameDepth are folded until expanded. Memory tracks draw the allocator's Total Allocated and
// Total Reserved where the trace has them, or the running sum relative to the trace start (a toggle),
// on a y-axis with units and a hover readout. Each frame paints only the draw list of the visible
// rows and window (timeline_data.h).
#pragma once

#include <QWidget>

class QMenu;

#include <memory>
#include <set>
#include <vector>

#include "analysis/memory_replay.h"
#include "analysis/run_analysis.h"
#include "analysis/trace_links.h"
#include "model/profile_result.h"
#include "run_view.h"
#include "timeline_data.h"

namespace awb::ui {

class TimelineView : public QWidget, public RunView {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);
    void showRun(const NamedRun& run, bool large) override;  // setRun, or empty without a result

    // trace may be null (synthetic data: no details on hover); memory: one track per series (CPU, each
    // device, each rank), each labelled with what it is and its peak; may be empty.
    void setData(std::shared_ptr<const TimelineData> data, std::shared_ptr<const Trace> trace = {},
                 std::vector<MemorySeries> memory = {});
    // A run with its analysis: a memory track for every device its trace allocated on (the analysis's
    // memory replay), and hover tooltips that give an operator's or kernel's totals in the run (its
    // row of the operator or kernel table); the draw lists are built off the GUI thread for a large trace.
    void setRun(std::shared_ptr<const ProfileResult> run, std::shared_ptr<const RunAnalysis> analysis);
    const TimeMapping& view() const { return view_; }
    // The memory tracks shown (series with points), in the run's analysis or the ones given to setData.
    const std::vector<const MemorySeries*>& memoryTracks() const { return memory_; }
    void setView(const TimeMapping& view);
    void fit();
    // Outline the spans with these names (indices into TimelineData::names); empty clears.
    void setHighlightedNames(std::set<int32_t> names);
    void setHighlightedName(const QString& name);
    // Select an event (index into the trace's events, -1 clears): it is outlined and arrows are drawn
    // from each launch it takes part in to the kernels, copies and sets it started.
    void selectEvent(int event);
    // The y of an event's row in the widget (its lane's top, header and level), -1 when it is not placed:
    // the scroll area around the timeline scrolls there (a call on a lane far down, a graph replay's).
    int eventY(int event) const;
    int selectedEvent() const { return selected_; }
    // Highlights the spans of an operator (as setHighlightedName) and brings its first one in the view
    // (or the first one at all) on screen: the lane revealed, the time panned to it, the scroll area
    // around scrolled to its row. Returns the event shown, -1 when none has the name.
    int showName(const QString& name);
    // Scroll the scroll area around the widget (if any) to an event's row; unhides, expands its lane.
    void scrollToEvent(int event);
    // Marks events across lanes (a collective on every rank: its ops and their work) with a thick
    // outline, and the band [band_start, band_end) (its arrival skew) shaded over the whole height with
    // label at its top; an empty list clears. Their lanes are revealed and the view is fitted around them.
    void setMarkedEvents(std::vector<int> events, qint64 band_start_ns, qint64 band_end_ns, const QString& label);
    const std::vector<int>& markedEvents() const { return marked_; }

    // Lanes: hidden, collapsed (header only), Python frames expanded, order, GPU lanes on top.
    const RowLayout& rows() const { return rows_; }
    const std::vector<LaneView>& laneViews() const { return lane_views_; }
    void setLaneHidden(int lane, bool hidden);
    void setLaneCollapsed(int lane, bool collapsed);
    void setFramesExpanded(int lane, bool expanded);
    void setGroupCollapsed(const std::string& group, bool collapsed);  // every lane of a process or device
    void moveLane(int lane, int delta);                                // up (-1) or down (+1) among the shown lanes
    void showAllLanes();
    void setGpuOnTop(bool on);
    bool gpuOnTop() const { return gpu_on_top_; }
    int laneAtHeader(int y) const;  // the lane whose header is at y, -1 when none
    // The header's context menu (collapse, hide, move, show hidden, GPU on top); the caller owns it.
    QMenu* laneMenu(int lane);

    // Memory: the allocator's totals (default, where the trace has them) or the relative running sum.
    void setMemoryRelative(bool relative);
    bool memoryRelative() const { return memory_relative_; }
    int memoryTrackAt(int y) const;       // the memory track at y (header or curve), -1 when none
    int memoryTrackTop(int track) const;  // its header's y
    // The hover readout of a track at time t: the levels at t with units.
    QString memoryReadout(int track, int64_t t) const;
    const std::vector<FlowLink>& flows() const { return flows_; }
    const TimelineData* data() const { return data_.get(); }  // null while none is set or prepared
    // The idle gap of a device lane's GPU at time t (no kernel, copy or set on any of its streams),
    // as {start, end}; {0, 0} when it is busy there or the lane is no device's.
    std::pair<int64_t, int64_t> idleGapAt(int lane, int64_t t) const;
    // The tooltip of a span: name, duration, self time, shapes, launch details and, for a run, the
    // totals of its operator or kernel in the run.
    QString describe(const TimelineSpan& span) const;

    // Paints one frame into any paint device (the benchmark paints into a QImage) and returns the
    // number of draw items.
    size_t paintTo(QPainter& painter, const QRect& area);
    double lastPaintMs() const { return last_paint_ms_; }

    static constexpr int kGutterPx = 130;
    static constexpr int kRulerPx = 20;
    static constexpr int kRowPx = 18;
    static constexpr int kLaneHeaderPx = 18;
    static constexpr int kMemoryTrackPx = 70;
    static constexpr double kFoldPx = 3.0;
    static constexpr size_t kFrameDepth = 3;  // Python-frame-only levels deeper than this start folded

signals:
    void eventClicked(int event);  // index into the trace's events
    void viewChanged(qint64 start_ns, qint64 end_ns);

protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    void contextMenuEvent(QContextMenuEvent* e) override;
    bool event(QEvent* e) override;  // tooltips

private:
    struct Hit {
        int lane = -1, level = -1;
    };
    Hit rowAt(int y) const;
    int laneTop(int lane) const;
    int contentHeight() const;
    QString totalsInRun(const TraceEvent& event) const;  // "in this run: ..." from the analysis's tables
    void paintMemoryTracks(QPainter& p, const QRect& area);
    void paintMemoryAxis(QPainter& p, const QRect& track, int64_t lo, int64_t hi);
    void paintMemoryCurve(QPainter& p, const QRect& track, const std::vector<MemoryPoint>& points, int64_t lo,
                          int64_t hi, const QPen& pen);
    void paintLaneHeaders(QPainter& p, const QRect& area);
    void paintIdle(QPainter& p, const QRect& area, const TimeMapping& view);
    void paintItems(QPainter& p, const QRect& area);
    std::pair<int64_t, int64_t> memoryRange(int track) const;  // the y-axis's bytes, low and high
    void relayout();    // rows_ from the lane views and order; the widget's height
    void resetLanes();  // every lane shown in the data's order (a new trace)
    void addGroupActions(QMenu* menu, int lane);
    QString memoryTooltip(int track, int x) const;
    void paintRuler(QPainter& p, const QRect& ruler, const TimeMapping& view);
    void paintFlows(QPainter& p, const QRect& area, const TimeMapping& view);
    void paintMarks(QPainter& p, const QRect& area, const TimeMapping& view);  // setMarkedEvents
    void paintMarkLabel(QPainter& p, int top, const TimeMapping& view);        // ... its label, over the lanes' headers

    std::shared_ptr<const TimelineData> data_;
    std::shared_ptr<const Trace> trace_;
    std::shared_ptr<const RunAnalysis> analysis_;  // the run's tables, for tooltips; null for bare data
    const DeviceIdle* idleOf(int lane) const;      // the idle gaps of a device lane's GPU, or null
    void showPrepared(std::shared_ptr<const TimelineData> data, std::shared_ptr<const Trace> trace,
                      std::shared_ptr<const RunAnalysis> analysis);
    std::vector<MemorySeries> owned_memory_;   // setData's tracks
    std::vector<const MemorySeries*> memory_;  // the tracks with points: in owned_memory_ or the analysis
    TimeMapping view_;
    std::set<int32_t> highlighted_;
    int selected_ = -1;
    std::vector<int> marked_;  // setMarkedEvents
    int64_t band_start_ns_ = 0, band_end_ns_ = 0;
    QString band_label_;
    uint64_t requests_ = 0;  // setRun / setData calls: a background result of an older one is dropped
    size_t preparing_ = 0;   // events of the trace being prepared in the background, 0 when none
    std::vector<FlowLink> flows_;
    std::vector<DrawItem> items_;
    std::vector<LaneView> lane_views_;
    std::vector<int> order_;  // lanes top to bottom as the user ordered them
    bool gpu_on_top_ = false;
    bool memory_relative_ = false;
    std::vector<int64_t> memory_low_;  // per track: the lowest Total Allocated, the absolute axis's bottom
    RowLayout rows_;
    QRect paint_clip_;  // the exposed part of the widget during paintEvent (null: paint all)
    double last_paint_ms_ = 0;
    // Mouse state: drag to pan, shift-drag to select a range.
    bool dragging_ = false, selecting_ = false;
    QPoint press_pos_;
    int64_t press_start_ns_ = 0;
    double select_x0_ = 0, select_x1_ = 0;
};

}  // namespace awb::ui
