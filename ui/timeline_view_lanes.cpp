// The timeline's lanes: which are shown, collapsed, in what order, their headers and context menu, and
// bringing an event or an operator on screen (timeline_view.h).
#include <QContextMenuEvent>
#include <QMenu>
#include <QPainter>
#include <QScrollArea>

#include <algorithm>
#include <numeric>

#include "timeline_view.h"

namespace awb::ui {

void TimelineView::resetLanes() {
    const size_t n = data_ ? data_->lanes.size() : 0;
    lane_views_.assign(n, LaneView{});
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), 0);
    relayout();
}

void TimelineView::relayout() {
    if (data_)
        rows_ = layout_rows(*data_, lane_views_, lane_order(*data_, order_, gpu_on_top_), kRulerPx, kLaneHeaderPx,
                            kRowPx, kFrameDepth);
    else
        rows_ = RowLayout{};
    setMinimumHeight(std::max(120, contentHeight()));
    update();
}

void TimelineView::setLaneHidden(int lane, bool hidden) {
    if (lane < 0 || size_t(lane) >= lane_views_.size()) return;
    lane_views_[size_t(lane)].hidden = hidden;
    relayout();
}

void TimelineView::setLaneCollapsed(int lane, bool collapsed) {
    if (lane < 0 || size_t(lane) >= lane_views_.size()) return;
    lane_views_[size_t(lane)].collapsed = collapsed;
    relayout();
}

void TimelineView::setFramesExpanded(int lane, bool expanded) {
    if (lane < 0 || size_t(lane) >= lane_views_.size()) return;
    lane_views_[size_t(lane)].frames_expanded = expanded;
    relayout();
}

void TimelineView::setGroupCollapsed(const std::string& group, bool collapsed) {
    for (size_t l = 0; l < lane_views_.size(); ++l)
        if (data_->lanes[l].group == group) lane_views_[l].collapsed = collapsed;
    relayout();
}

void TimelineView::moveLane(int lane, int delta) {
    // Among the lanes shown, in the order on screen: swap with the neighbour in the user's order.
    const auto& shown = rows_.order;
    const auto at = std::find(shown.begin(), shown.end(), lane);
    if (at == shown.end()) return;
    const long to = long(at - shown.begin()) + delta;
    if (to < 0 || to >= long(shown.size())) return;
    const int other = shown[size_t(to)];
    if (gpu_on_top_ && data_->lanes[size_t(other)].device != data_->lanes[size_t(lane)].device) return;  // pinned apart
    auto a = std::find(order_.begin(), order_.end(), lane), b = std::find(order_.begin(), order_.end(), other);
    std::iter_swap(a, b);
    relayout();
}

void TimelineView::showAllLanes() {
    for (auto& v : lane_views_) v.hidden = false;
    relayout();
}

void TimelineView::setGpuOnTop(bool on) {
    gpu_on_top_ = on;
    relayout();
}

int TimelineView::laneAtHeader(int y) const {
    for (int l : rows_.order)
        if (y >= rows_.header_y[size_t(l)] && y < rows_.header_y[size_t(l)] + kLaneHeaderPx) return l;
    return -1;
}

void TimelineView::addGroupActions(QMenu* menu, int lane) {
    const std::string group = data_->lanes[size_t(lane)].group;
    int members = 0;
    for (const auto& l : data_->lanes) members += l.group == group;
    if (members < 2) return;
    const QString name = QString::fromStdString(group);
    menu->addAction(tr("Collapse all %1 lanes of %2").arg(members).arg(name), this,
                    [this, group] { setGroupCollapsed(group, true); });
    menu->addAction(tr("Expand all %1 lanes of %2").arg(members).arg(name), this,
                    [this, group] { setGroupCollapsed(group, false); });
}

QMenu* TimelineView::laneMenu(int lane) {
    auto* menu = new QMenu(this);
    if (!data_ || lane < 0 || size_t(lane) >= lane_views_.size()) return menu;
    const LaneView v = lane_views_[size_t(lane)];
    menu->addAction(v.collapsed ? tr("Expand lane") : tr("Collapse lane"), this,
                    [this, lane, v] { setLaneCollapsed(lane, !v.collapsed); });
    if (rows_.folded_levels[size_t(lane)] > 0 || v.frames_expanded)
        menu->addAction(v.frames_expanded
                            ? tr("Fold deep Python frames")
                            : tr("Show all Python frames (%1 levels folded)").arg(rows_.folded_levels[size_t(lane)]),
                        this, [this, lane, v] { setFramesExpanded(lane, !v.frames_expanded); });
    addGroupActions(menu, lane);
    menu->addSeparator();
    menu->addAction(tr("Hide lane"), this, [this, lane] { setLaneHidden(lane, true); });
    menu->addAction(tr("Move up"), this, [this, lane] { moveLane(lane, -1); });
    menu->addAction(tr("Move down"), this, [this, lane] { moveLane(lane, +1); });
    const auto hidden =
        std::count_if(lane_views_.begin(), lane_views_.end(), [](const LaneView& x) { return x.hidden; });
    menu->addAction(tr("Show all hidden lanes (%1)").arg(hidden), this, [this] { showAllLanes(); })
        ->setEnabled(hidden > 0);
    menu->addSeparator();
    QAction* pin = menu->addAction(tr("Pin GPU lanes on top"), this, [this](bool on) { setGpuOnTop(on); });
    pin->setCheckable(true);
    pin->setChecked(gpu_on_top_);
    return menu;
}

void TimelineView::contextMenuEvent(QContextMenuEvent* e) {
    if (const int track = memoryTrackAt(e->pos().y()); track >= 0) {
        QMenu menu(this);
        QAction* relative =
            menu.addAction(tr("Memory relative to the trace start"), this, [this](bool on) { setMemoryRelative(on); });
        relative->setCheckable(true);
        relative->setChecked(memory_relative_);
        relative->setToolTip(
            tr("The running sum of the [memory] events' bytes from zero at the trace start, instead of the "
               "allocator's Total Allocated / Total Reserved"));
        menu.exec(e->globalPos());
        return;
    }
    const int lane = laneAtHeader(e->pos().y());
    const Hit h = rowAt(e->pos().y());
    QMenu* menu = laneMenu(lane >= 0 ? lane : h.lane);
    if (!menu->isEmpty()) menu->exec(e->globalPos());
    delete menu;
}

void TimelineView::paintLaneHeaders(QPainter& p, const QRect& area) {
    // Titles on a band across; a triangle says collapsed or expanded, a note what is folded away.
    p.setPen(palette().color(QPalette::Text));
    const QFontMetrics fm(p.font());
    for (int l : rows_.order) {
        const int top = area.top() + rows_.header_y[size_t(l)];
        if (top + kLaneHeaderPx < area.top() || top > area.bottom()) continue;
        const LaneView& v = lane_views_[size_t(l)];
        const auto& lane = data_->lanes[size_t(l)];
        p.fillRect(QRect(area.left(), top, area.width(), kLaneHeaderPx), palette().alternateBase());
        QString text =
            (v.collapsed ? QStringLiteral("\u25B8 ") : QStringLiteral("\u25BE ")) + QString::fromStdString(lane.title);
        if (v.collapsed)
            text += tr("  (collapsed: %1 rows)").arg(std::max<size_t>(1, lane.levels.size()));
        else if (rows_.folded_levels[size_t(l)] > 0)
            text +=
                tr("  (%1 levels of Python frames folded: right-click to show)").arg(rows_.folded_levels[size_t(l)]);
        p.drawText(QRect(area.left() + 4, top, area.width() - 8, kLaneHeaderPx), Qt::AlignVCenter | Qt::AlignLeft,
                   text);
    }
}

void TimelineView::scrollToEvent(int event) {
    const int y = eventY(event);
    if (y < 0) return;
    for (QWidget* w = parentWidget(); w; w = w->parentWidget())
        if (auto* area = qobject_cast<QScrollArea*>(w)) {
            area->ensureVisible(0, y, 0, 3 * kRowPx);
            return;
        }
}

int TimelineView::showName(const QString& name) {
    setHighlightedName(name);
    if (!trace_ || highlighted_.empty()) return -1;
    // The first span of the name in the view, else the first of all.
    int first = -1, in_view = -1;
    const auto& events = trace_->events();
    const std::string wanted = name.toStdString();
    for (size_t i = 0; i < events.size() && i < data_->placed.size() && in_view < 0; ++i) {
        if (data_->placed[i].lane < 0 || !(events[i].name == wanted)) continue;
        if (first < 0) first = int(i);
        if (events[i].end_ns > view_.start_ns && events[i].start_ns < view_.end_ns) in_view = int(i);
    }
    const int shown = in_view >= 0 ? in_view : first;
    if (shown < 0) return -1;
    const TraceEvent& e = events[size_t(shown)];
    if (in_view < 0) {  // pan there, keeping the zoom unless the span is wider than the view
        const int64_t span = std::max(view_.end_ns - view_.start_ns, e.duration_ns() * 2);
        const int64_t mid = e.start_ns + e.duration_ns() / 2;
        setView({mid - span / 2, mid + span / 2, view_.width_px});
    }
    selectEvent(shown);
    scrollToEvent(shown);
    return shown;
}

}  // namespace awb::ui
