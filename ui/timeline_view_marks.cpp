// The timeline's marks of events across lanes: a collective on every rank's lane with its arrival skew.
#include <QPainter>

#include <algorithm>
#include <climits>

#include "format_qt.h"
#include "timeline_view.h"

namespace awb::ui {

void TimelineView::setMarkedEvents(std::vector<int> events, qint64 band_start_ns, qint64 band_end_ns,
                                   const QString& label) {
    marked_.clear();
    band_label_ = label;
    band_start_ns_ = band_start_ns;
    band_end_ns_ = band_end_ns;
    if (!data_) {
        update();
        return;
    }
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    bool relaid = false;
    for (int e : events) {
        if (e < 0 || size_t(e) >= data_->placed.size()) continue;
        marked_.push_back(e);
        const auto& at = data_->placed[size_t(e)];
        if (at.lane >= 0 && rows_.row_y[size_t(at.lane)][size_t(at.level)] < 0) {  // its lane shown, its row unfolded
            LaneView& v = lane_views_[size_t(at.lane)];
            v.hidden = v.collapsed = false;
            v.frames_expanded = true;
            relaid = true;
        }
        if (trace_) {
            lo = std::min(lo, trace_->events()[size_t(e)].start_ns);
            hi = std::max(hi, trace_->events()[size_t(e)].end_ns);
        }
    }
    if (relaid) relayout();
    if (lo < hi) {
        const int64_t pad =
            std::max<int64_t>(1000, (hi - lo) / 4);  // the marks with a quarter of their span either side
        setView({lo - pad, hi + pad, view_.width_px});
    }
    update();
}

void TimelineView::paintMarks(QPainter& p, const QRect& area, const TimeMapping& view) {
    if (marked_.empty() || !data_) return;
    const int x_base = area.left() + kGutterPx;
    auto x_of = [&](int64_t ns) { return x_base + std::clamp(view.x_of(ns), -1e6, 1e6); };
    if (band_end_ns_ > band_start_ns_) {  // the arrival skew: from the first rank's arrival to the last's
        const double x0 = x_of(band_start_ns_), x1 = x_of(band_end_ns_);
        p.fillRect(QRectF(x0, area.top(), std::max(1.0, x1 - x0), area.height()), QColor(255, 150, 0, 45));
        p.setPen(QPen(QColor(220, 110, 0), 1, Qt::DashLine));
        p.drawLine(QPointF(x0, area.top()), QPointF(x0, area.bottom()));
        p.drawLine(QPointF(x1, area.top()), QPointF(x1, area.bottom()));
    }
    p.setPen(QPen(QColor(230, 110, 0), 3));
    p.setBrush(Qt::NoBrush);
    for (int e : marked_) {
        const auto& at = data_->placed[size_t(e)];
        const int row = at.lane < 0 ? -1 : rows_.row_y[size_t(at.lane)][size_t(at.level)];
        if (row < 0 || !trace_) continue;
        const TraceEvent& ev = trace_->events()[size_t(e)];
        p.drawRect(QRectF(x_of(ev.start_ns), area.top() + row,
                          std::max(3.0, view.x_of(ev.end_ns) - view.x_of(ev.start_ns)), kRowPx - 2));
    }
}

}  // namespace awb::ui

namespace awb::ui {

void TimelineView::paintMarkLabel(QPainter& p, int top, const TimeMapping& view) {
    if (marked_.empty() || band_label_.isEmpty()) return;
    // Over the lane headers, just under the ruler, from the band's start (kept on screen).
    const QFontMetrics fm(p.font());
    const int w = fm.horizontalAdvance(band_label_) + 10, h = fm.height() + 4;
    const double x = std::clamp(kGutterPx + view.x_of(band_start_ns_) + 2, double(kGutterPx),
                                double(std::max(kGutterPx, width() - w)));
    const QRectF box(x, top + kRulerPx + 1, w, h);
    p.fillRect(box, QColor(255, 236, 205));
    p.setPen(QColor(160, 70, 0));
    p.drawRect(box);
    p.drawText(box, Qt::AlignCenter, band_label_);
}

}  // namespace awb::ui
