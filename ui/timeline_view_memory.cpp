// The timeline's memory tracks: the allocator's Total Allocated and Total Reserved where the trace has
// them (absolute), or the running sum of the [memory] events' bytes (relative to the trace start), on
// a y-axis with units, with a hover readout (timeline_view.h).
#include <QPainter>

#include <algorithm>
#include <cstdlib>

#include "format_qt.h"
#include "timeline_view.h"

namespace awb::ui {

namespace {

const QColor kAllocatedColor(200, 50, 50);
const QColor kReservedColor(40, 100, 200);

}  // namespace

void TimelineView::setMemoryRelative(bool relative) {
    memory_relative_ = relative;
    update();
}

int TimelineView::memoryTrackTop(int track) const {
    return (data_ ? rows_.bottom : kRulerPx) + track * (kLaneHeaderPx + kMemoryTrackPx);
}

int TimelineView::memoryTrackAt(int y) const {
    for (int m = 0; m < int(memory_.size()); ++m)
        if (y >= memoryTrackTop(m) && y < memoryTrackTop(m) + kLaneHeaderPx + kMemoryTrackPx) return m;
    return -1;
}

std::pair<int64_t, int64_t> TimelineView::memoryRange(int track) const {
    // Absolute: from the lowest allocated level to the highest reserved one (the labels say where the
    // axis starts: a few MiB moving on 140 GiB of weights stay visible); relative: from zero or below.
    const MemorySeries& s = *memory_[size_t(track)];
    if (memory_relative_ || !s.has_totals())
        return {std::min<int64_t>(0, s.low_bytes), std::max<int64_t>(1, s.peak_bytes)};
    const int64_t hi = std::max(s.peak_allocated_bytes, s.peak_reserved_bytes);
    const int64_t lo = memory_low_[size_t(track)];
    const int64_t margin = std::max<int64_t>(1, (hi - lo) / 20);
    return {std::max<int64_t>(0, lo - margin), hi + margin};
}

void TimelineView::paintMemoryTracks(QPainter& p, const QRect& area) {
    const int x_base = area.left() + kGutterPx;
    for (size_t m = 0; m < memory_.size(); ++m) {
        const MemorySeries& s = *memory_[m];
        const int top = area.top() + memoryTrackTop(int(m));
        if (top > area.bottom() || top + kLaneHeaderPx + kMemoryTrackPx < area.top()) continue;
        p.fillRect(QRect(area.left(), top, area.width(), kLaneHeaderPx), palette().alternateBase());
        const QString label = QString::fromStdString(memory_series_label(s));
        const bool absolute = !memory_relative_ && s.has_totals();
        QString text;
        if (absolute)
            text = tr("Memory on %1: allocated (red, peak %2)").arg(label, format_bytes(s.peak_allocated_bytes)) +
                   (s.peak_reserved_bytes >= 0 ? tr(", reserved by the caching allocator (blue, peak %1)")
                                                     .arg(format_bytes(s.peak_reserved_bytes))
                                               : QString());
        else
            text = tr("Memory on %1 relative to the trace start (peak %2%3)")
                       .arg(label, format_bytes(s.peak_bytes),
                            s.has_totals() ? tr("; right-click for the allocator's totals")
                                           : tr("; the trace has no allocator totals"));
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(area.left() + 4, top, area.width() - 8, kLaneHeaderPx), Qt::AlignVCenter | Qt::AlignLeft,
                   text);
        const QRect track(x_base, top + kLaneHeaderPx, area.width() - kGutterPx, kMemoryTrackPx);
        const auto [lo, hi] = memoryRange(int(m));
        paintMemoryAxis(p, track, lo, hi);
        if (absolute) {
            paintMemoryCurve(p, track, s.reserved_points, lo, hi, QPen(kReservedColor, 1));
            paintMemoryCurve(p, track, s.allocated_points, lo, hi, QPen(kAllocatedColor, 1));
        } else {
            paintMemoryCurve(p, track, s.points, lo, hi, QPen(kAllocatedColor, 1));
        }
    }
}

void TimelineView::paintMemoryAxis(QPainter& p, const QRect& track, int64_t lo, int64_t hi) {
    // Labels in the gutter at the top, the middle and the bottom of the scale; light lines across.
    const QColor grid = palette().color(QPalette::Midlight);
    p.setPen(palette().color(QPalette::Text));
    for (int i = 0; i <= 2; ++i) {
        const int64_t bytes = lo + (hi - lo) * (2 - i) / 2;
        const int y = track.top() + 2 + (track.height() - 4) * i / 2;
        p.save();
        p.setPen(grid);
        p.drawLine(track.left(), y, track.right(), y);
        p.restore();
        const int label_top = std::clamp(y - 8, track.top(), track.bottom() - 16);  // inside the track
        p.drawText(QRect(track.left() - kGutterPx + 4, label_top, kGutterPx - 10, 16),
                   Qt::AlignRight | Qt::AlignVCenter,
                   bytes < 0 ? QStringLiteral("-") + format_bytes(-bytes) : format_bytes(bytes));
    }
}

void TimelineView::paintMemoryCurve(QPainter& p, const QRect& track, const std::vector<MemoryPoint>& points, int64_t lo,
                                    int64_t hi, const QPen& pen) {
    if (points.empty()) return;
    TimeMapping view = view_;
    view.width_px = track.width();
    auto y_of = [&](int64_t bytes) {
        return track.bottom() - 2 - double(bytes - lo) / double(hi - lo) * (track.height() - 4);
    };
    // Min and max per pixel column, so that no peak vanishes; the level before the view carries in
    // (none before the first point: the curve starts there).
    auto first = std::partition_point(points.begin(), points.end(),
                                      [&](const MemoryPoint& m) { return m.ts_ns < view.start_ns; });
    QPolygonF line;
    int64_t level = first == points.begin() ? first->bytes : std::prev(first)->bytes;
    line.append(QPointF(first == points.begin() ? track.left() + std::max(0.0, view.x_of(first->ts_ns)) : track.left(),
                        y_of(level)));
    for (auto it = first; it != points.end() && it->ts_ns <= view.end_ns;) {
        const int col = int(view.x_of(it->ts_ns));
        const int64_t line_level = level;
        int64_t low = level, high = level;
        for (; it != points.end() && int(view.x_of(it->ts_ns)) == col; ++it) {
            low = std::min(low, it->bytes);
            high = std::max(high, it->bytes);
            level = it->bytes;
        }
        line.append(QPointF(track.left() + col, y_of(line_level)));  // a step, not a slope
        line.append(QPointF(track.left() + col, y_of(low)));
        line.append(QPointF(track.left() + col, y_of(high)));
        line.append(QPointF(track.left() + col, y_of(level)));
    }
    if (points.back().ts_ns >= view.start_ns || first != points.begin())
        line.append(QPointF(track.right(), y_of(level)));
    p.save();
    p.setClipRect(track);
    p.setPen(pen);
    p.drawPolyline(line);
    p.restore();
}

QString TimelineView::memoryReadout(int track, int64_t t) const {
    if (track < 0 || size_t(track) >= memory_.size()) return {};
    const MemorySeries& s = *memory_[size_t(track)];
    const int64_t origin = data_ ? data_->start_ns : trace_ ? trace_->begin_ns() : 0;
    QString text = tr("<b>Memory on %1</b> at %2 after trace start")
                       .arg(QString::fromStdString(memory_series_label(s)), format_duration_ns(double(t - origin)));
    auto value = [&](const std::vector<MemoryPoint>& points) {
        const MemoryPoint* m = memory_level_at(points, t);
        return m ? format_bytes(m->bytes) : tr("not known before the first [memory] event");
    };
    if (s.has_totals()) {
        text += tr("<br>allocated %1 (peak %2)").arg(value(s.allocated_points), format_bytes(s.peak_allocated_bytes));
        if (s.peak_reserved_bytes >= 0)
            text += tr("<br>reserved %1 (peak %2)").arg(value(s.reserved_points), format_bytes(s.peak_reserved_bytes));
    }
    const MemoryPoint* rel = memory_level_at(s.points, t);
    const int64_t r = rel ? rel->bytes : 0;
    text += tr("<br>relative to the trace start %1%2")
                .arg(r < 0 ? QStringLiteral("-") : QStringLiteral("+"), format_bytes(std::abs(r)));
    if (!s.has_totals())
        text += tr("<br><i>the trace has no allocator totals: memory allocated before it started is not counted</i>");
    return text;
}

QString TimelineView::memoryTooltip(int track, int x) const {
    TimeMapping view = view_;
    view.width_px = std::max(1, width() - kGutterPx);
    return memoryReadout(track, view.ns_at(x));
}

}  // namespace awb::ui
