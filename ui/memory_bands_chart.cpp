#include "memory_bands_chart.h"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <climits>
#include <cmath>

#include "analysis/snapshot_text.h"
#include "format_qt.h"

namespace awb::ui {

namespace {

constexpr int kLeft = 78, kRight = 12, kTop = 22, kBottom = 30;

// A step function's value at x (points sorted by x; before the first: 0).
int64_t step_at(const std::vector<StepPoint>& points, int64_t x) {
    const auto it =
        std::upper_bound(points.begin(), points.end(), x, [](int64_t v, const StepPoint& p) { return v < p.first; });
    return it == points.begin() ? 0 : std::prev(it)->second;
}

// 1, 2 or 5 times a power of `base` units, giving about `ticks` ticks up to `range`.
double nice_step(double range, int ticks) {
    const double raw = range / std::max(ticks, 1);
    const double magnitude = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-12))));
    for (const double m : {1.0, 2.0, 5.0, 10.0})
        if (m * magnitude >= raw) return m * magnitude;
    return 10 * magnitude;
}

// Bytes ticks on binary units: a nice step of KiB, MiB or GiB.
double bytes_step(double range) {
    double unit = 1;
    for (const double u : {1024.0, 1024.0 * 1024, 1024.0 * 1024 * 1024})
        if (range >= 2 * u) unit = u;
    return nice_step(range / unit, 5) * unit;
}

}  // namespace

MemoryBandsChart::MemoryBandsChart(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setFocusPolicy(Qt::ClickFocus);
}

void MemoryBandsChart::setData(std::shared_ptr<const SnapshotShown> shown, int device_row) {
    shown_ = std::move(shown);
    device_row_ = device_row;
    pinned_ = kNothing;
    resetZoom();
}

const DeviceMemoryTimeline* MemoryBandsChart::device() const {
    if (!shown_ || device_row_ < 0 || size_t(device_row_) >= shown_->timeline().devices.size()) return nullptr;
    return &shown_->timeline().devices[size_t(device_row_)];
}

void MemoryBandsChart::resetZoom() {
    const DeviceMemoryTimeline* t = device();
    x0_ = 0;
    x1_ = t ? double(t->allocated.size()) : 1;
    // The scale fits the allocated bytes: the blocks are the subject, and a reserve many times larger (a
    // profile's made-up segment, a cache warmed by an earlier phase) would flatten them; the reserved
    // line then leaves the top and the legend says how high it goes.
    y_max_ = 1;
    if (t) {
        if (!t->allocated.empty())
            y_max_ = std::max(y_max_, double(t->allocated_max.max(t->allocated, 0, t->allocated.size())));
        if (!t->allocated_all.empty())
            y_max_ = std::max(y_max_, double(t->allocated_all_max.max(t->allocated_all, 0, t->allocated_all.size())));
        if (y_max_ <= 1 && t->reserved_recorded) y_max_ = std::max(1.0, double(t->peak_reserved));
    }
    y_max_ *= 1.08;
    update();
}

QRectF MemoryBandsChart::plotArea() const {
    return QRectF(kLeft, kTop, std::max(10, width() - kLeft - kRight), std::max(10, height() - kTop - kBottom));
}
double MemoryBandsChart::px(double x) const { return plotArea().left() + (x - x0_) / (x1_ - x0_) * plotArea().width(); }
double MemoryBandsChart::py(double bytes) const { return plotArea().bottom() - bytes / y_max_ * plotArea().height(); }
double MemoryBandsChart::eventAt(double wx) const {
    return x0_ + (wx - plotArea().left()) / plotArea().width() * (x1_ - x0_);
}
double MemoryBandsChart::bytesAt(double wy) const { return (plotArea().bottom() - wy) / plotArea().height() * y_max_; }

void MemoryBandsChart::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const DeviceMemoryTimeline* t = device();
    if (!t) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter,
                   tr("Open a memory snapshot (torch.cuda.memory._dump_snapshot's pickle) to see its memory here"));
        return;
    }
    paintAxes(p);
    p.save();
    p.setClipRect(plotArea());
    paintTraceSpan(p);
    paintCurves(p);
    paintBands(p);
    paintPeak(p);
    p.restore();
    paintMarks(p);
    paintLegend(p);
}

void MemoryBandsChart::setTraceSpan(std::pair<int64_t, int64_t> x) {
    trace_span_ = x;
    update();
}

// The linked trace's part of the run: a pale column from its first event to its last, named at the top.
void MemoryBandsChart::paintTraceSpan(QPainter& p) const {
    if (trace_span_.first < 0) return;
    const QRectF area = plotArea();
    const QRectF span(QPointF(px(double(trace_span_.first)), area.top()),
                      QPointF(px(double(trace_span_.second)), area.bottom()));
    p.fillRect(span, QColor(0x2c, 0xa0, 0x2c, 28));
    p.setPen(QColor(0x2c, 0x80, 0x2c));
    p.drawText(traceLabelRect(QFontMetricsF(p.font())), Qt::AlignLeft | Qt::AlignTop, tr("the trace"));
}

// The trace's name at its top left, or just right of the peak's label where that would cover it (a peak
// at the trace's left edge), or a line lower where there is no room beside it either.
QRectF MemoryBandsChart::traceLabelRect(const QFontMetricsF& fm) const {
    const double left = px(double(trace_span_.first)) + 4, right = px(double(trace_span_.second));
    QRectF label(left, plotArea().top() + 2, fm.horizontalAdvance(tr("the trace")) + 2, fm.height());
    const QRectF peak = peakLabelRect(fm);
    if (label.intersects(peak)) {
        label.moveLeft(peak.right() + 8);
        if (label.right() > right) label.moveTo(left, peak.bottom() + 2);
    }
    return label;
}

QString MemoryBandsChart::peakLabel() const { return tr("peak %1").arg(format_bytes(device()->peak_allocated)); }

QRectF MemoryBandsChart::peakLabelRect(const QFontMetricsF& fm) const {
    const double x = px(double(device()->peak_index) + 0.5) + 4, baseline = plotArea().top() + 12;
    return {x, baseline - fm.ascent(), fm.horizontalAdvance(peakLabel()), fm.height()};
}

void MemoryBandsChart::setMarks(std::vector<int64_t> alloc_events) {
    std::sort(alloc_events.begin(), alloc_events.end());
    marks_ = std::move(alloc_events);
    update();
}

bool MemoryBandsChart::marked(const BlockBand& band) const {
    return band.block.alloc_event >= 0 && std::binary_search(marks_.begin(), marks_.end(), band.block.alloc_event);
}

// A tick along the bottom of the plot at each marked allocation (its small blocks are not bands): where
// the selected operator allocated, over the events shown; one a pixel.
void MemoryBandsChart::paintMarks(QPainter& p) const {
    if (marks_.empty()) return;
    const QRectF area = plotArea();
    p.setPen(QPen(QColor(0xd0, 0x30, 0x00), 1.5));
    int last = INT_MIN;
    for (auto it = std::lower_bound(marks_.begin(), marks_.end(), int64_t(std::floor(x0_)) - 1);
         it != marks_.end() && double(*it) <= x1_; ++it) {
        const double x = px(double(*it) + 1);  // the block is alive from x = event + 1 on
        if (int(x) == last || x < area.left() || x > area.right()) continue;
        last = int(x);
        p.drawLine(QPointF(x, area.bottom() - 7), QPointF(x, area.bottom()));
    }
}

QString MemoryBandsChart::legendText() const {
    if (!device()) return {};
    const DeviceMemoryTimeline& t = *device();
    QString text = tr(
        "Blocks coloured by the frame that allocated them (slate: no stack recorded; hatched: alive before recording); "
        "grey: smaller blocks");
    if (!t.reserved_recorded) {
        text += tr("; reserved: not recorded (a CPU profile's conversion)");
    } else {
        text += tr("; line: reserved");
        if (double(t.peak_reserved) > y_max_)
            text += tr(" (up to %1, above the scale)").arg(format_bytes(t.peak_reserved));
    }
    if (!t.allocated_all.empty()) text += tr("; dashed: every block");
    return text;
}

void MemoryBandsChart::paintLegend(QPainter& p) const {
    const QString text = legendText();
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRectF(kLeft, 2, width() - kLeft - kRight, kTop - 4), Qt::AlignLeft | Qt::AlignVCenter,
               p.fontMetrics().elidedText(text, Qt::ElideRight, width() - kLeft - kRight));
}

void MemoryBandsChart::paintAxes(QPainter& p) const {
    const QRectF area = plotArea();
    const QColor text = palette().color(QPalette::Text);
    p.setPen(QColor(0xe4, 0xe4, 0xe4));
    const double ystep = bytes_step(y_max_);
    for (double v = 0; v <= y_max_; v += ystep) p.drawLine(QPointF(area.left(), py(v)), QPointF(area.right(), py(v)));
    p.setPen(text);
    for (double v = 0; v <= y_max_; v += ystep)
        p.drawText(QRectF(0, py(v) - 8, kLeft - 6, 16), Qt::AlignRight | Qt::AlignVCenter, format_bytes(int64_t(v)));
    const double xstep = std::max(1.0, nice_step(x1_ - x0_, std::max(2, int(area.width() / 110))));
    for (double x = std::ceil(x0_ / xstep) * xstep; x <= x1_; x += xstep) {
        p.drawLine(QPointF(px(x), area.bottom()), QPointF(px(x), area.bottom() + 4));
        p.drawText(QRectF(px(x) - 50, area.bottom() + 5, 100, 16), Qt::AlignHCenter | Qt::AlignTop,
                   QString::number(qint64(x)));
    }
    p.drawText(QRectF(area.left(), height() - 14, area.width(), 14), Qt::AlignRight | Qt::AlignBottom,
               tr("trace events (allocs and frees, in order)"));
    p.drawRect(area);
}

// The allocated area (grey: what no band covers is the smaller blocks), the reserved line and, with a
// filter, every block's bytes: per pixel column, the most of the events under it.
void MemoryBandsChart::paintCurves(QPainter& p) const {
    const DeviceMemoryTimeline& t = *device();
    const QRectF area = plotArea();
    const int64_t n = int64_t(t.allocated.size());
    QPolygonF allocated, reserved, all;
    allocated << QPointF(area.left(), py(0));
    for (int c = 0; c < int(area.width()); ++c) {
        const int64_t a = std::clamp(int64_t(std::floor(eventAt(area.left() + c))), int64_t(0), n - 1);
        const int64_t b = std::clamp(int64_t(std::ceil(eventAt(area.left() + c + 1))), a + 1, n);
        const int64_t most = t.allocated_max.max(t.allocated, size_t(a), size_t(b));
        const double x0 = area.left() + c, x1 = x0 + 1;
        allocated << QPointF(x0, py(double(most))) << QPointF(x1, py(double(most)));
        const int64_t held = t.reserved_max.max(t.reserved, size_t(a), size_t(b));
        reserved << QPointF(x0, py(double(held))) << QPointF(x1, py(double(held)));
        if (!t.allocated_all.empty()) {
            const int64_t whole = t.allocated_all_max.max(t.allocated_all, size_t(a), size_t(b));
            all << QPointF(x0, py(double(whole))) << QPointF(x1, py(double(whole)));
        }
    }
    allocated << QPointF(area.right(), py(0));
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0xc8, 0xc8, 0xc8));
    p.drawPolygon(allocated);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(0x30, 0x30, 0x30), 1.5));
    if (t.reserved_recorded) p.drawPolyline(reserved);
    if (!all.isEmpty()) {
        p.setPen(QPen(QColor(0x60, 0x60, 0x60), 1, Qt::DashLine));
        p.drawPolyline(all);
    }
}

void MemoryBandsChart::paintBands(QPainter& p) const {
    const DeviceMemoryTimeline& t = *device();
    for (size_t i = 0; i < t.bands.size(); ++i) {
        const BlockBand& band = t.bands[i];
        if (double(band.end) <= x0_ || double(band.begin) >= x1_ || py(0) - py(double(band.block.size)) < 0.02)
            continue;
        QPolygonF bottom, top;
        for (size_t k = 0; k < band.bottom.size(); ++k) {
            const double from = std::max(double(band.bottom[k].first), x0_ - 1);
            const double to =
                std::min(double(k + 1 < band.bottom.size() ? band.bottom[k + 1].first : band.end), x1_ + 1);
            if (to <= from) continue;
            // A step narrower than half a pixel, not the last: its edge joins the next one's (a band of a
            // big snapshot moves down at thousands of frees, far more often than there are columns).
            if (k + 1 < band.bottom.size() && !bottom.isEmpty() && px(to) - bottom.back().x() < 0.5) continue;
            const double b = double(band.bottom[k].second);
            bottom << QPointF(px(from), py(b)) << QPointF(px(to), py(b));
            top << QPointF(px(from), py(b + double(band.block.size)))
                << QPointF(px(to), py(b + double(band.block.size)));
        }
        std::reverse(top.begin(), top.end());
        const QPolygonF shape = bottom + top;
        const QColor colour = shown_->colourOf(band.block.stack);
        p.setPen(shape.boundingRect().height() > 4 ? QPen(colour.darker(125), 0.6) : Qt::NoPen);
        p.setBrush(colour);
        p.drawPolygon(shape);
        if (band.block.alloc_event < 0) {  // alive before recording began: hatched, not hidden
            p.setBrush(QBrush(colour.darker(170), Qt::BDiagPattern));
            p.drawPolygon(shape);
        }
        if (int(i) == pinned_ || marked(band)) {
            p.setBrush(Qt::NoBrush);
            p.setPen(QPen(int(i) == pinned_ ? QColor(Qt::black) : QColor(0xd0, 0x30, 0x00), 2));
            p.drawPolygon(shape);
        }
    }
}

void MemoryBandsChart::paintPeak(QPainter& p) const {
    const DeviceMemoryTimeline& t = *device();
    const double x = px(double(t.peak_index) + 0.5);
    p.setPen(QPen(QColor(0xb0, 0x00, 0x20), 1, Qt::DashLine));
    p.drawLine(QPointF(x, plotArea().top()), QPointF(x, plotArea().bottom()));
    const QFontMetricsF fm(p.font());
    p.drawText(peakLabelRect(fm), Qt::AlignLeft | Qt::AlignTop | Qt::TextDontClip, peakLabel());
}

int MemoryBandsChart::bandAt(const QPoint& pos) const {
    const DeviceMemoryTimeline* t = device();
    if (!t || !plotArea().contains(pos)) return kNothing;
    const int64_t x = int64_t(std::floor(eventAt(pos.x())));
    const double bytes = bytesAt(pos.y());
    if (x < 0 || x >= int64_t(t->allocated.size()) || bytes < 0) return kNothing;
    for (size_t i = 0; i < t->bands.size(); ++i) {
        const BlockBand& b = t->bands[i];
        if (b.begin <= x && x < b.end) {
            const double bottom = double(b.bottom_at(x));
            if (bytes >= bottom && bytes < bottom + double(b.block.size)) return int(i);
        }
    }
    return bytes >= double(step_at(t->banded, x)) && bytes < double(t->allocated[size_t(x)]) ? kSmallerBlocks
                                                                                             : kNothing;
}

QString MemoryBandsChart::describe(const QPoint& pos) const {
    const DeviceMemoryTimeline* t = device();
    if (!t || !plotArea().contains(pos)) return {};
    const int64_t x = std::clamp(int64_t(std::floor(eventAt(pos.x()))), int64_t(0), int64_t(t->allocated.size()) - 1);
    QString where = x == 0 ? tr("Before the first event") : tr("After event %1").arg(x - 1);
    where += tr(": allocated %1, reserved %2")
                 .arg(format_bytes(t->allocated[size_t(x)]),
                      QString::fromStdString(reserved_text(t->reserved_recorded, t->reserved[size_t(x)])));
    if (!t->allocated_all.empty()) where += tr(" (every block: %1)").arg(format_bytes(t->allocated_all[size_t(x)]));
    const int band = bandAt(pos);
    if (band == kSmallerBlocks)
        return where + tr("\nSmaller blocks, not drawn one by one: %1 here (the %2 largest blocks are drawn)")
                           .arg(format_bytes(t->allocated[size_t(x)] - step_at(t->banded, x)))
                           .arg(t->bands.size());
    if (band < 0) return where;
    const BlockBand& b = t->bands[size_t(band)];
    const QString born = b.block.alloc_event < 0
                             ? tr("alive before recording began (reconstructed from the final state)")
                             : tr("allocated at event %1").arg(b.block.alloc_event);
    const QString died =
        b.end >= int64_t(t->allocated.size()) ? tr("alive at the snapshot") : tr("freed at event %1").arg(b.end - 1);
    return where + tr("\n\nBlock of %1 at %2, %3, %4\nAllocated by %5\n\nStack, innermost first:\n%6")
                       .arg(format_bytes(b.block.size), format_address(b.block.addr), born, died,
                            shown_->frameText(shown_->allocatingFrame(b.block.stack)),
                            shown_->stackText(b.block.stack));
}

bool MemoryBandsChart::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QString text = describe(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(e);
}

void MemoryBandsChart::mousePressEvent(QMouseEvent* e) {
    if (e->button() != Qt::LeftButton) return;
    drag_from_ = e->pos();
    drag_x0_ = x0_;
    dragging_ = true;
}

void MemoryBandsChart::mouseMoveEvent(QMouseEvent* e) {
    if (!dragging_ || !(e->buttons() & Qt::LeftButton)) return;
    const double span = x1_ - x0_;
    const double shift = double(drag_from_.x() - e->pos().x()) / plotArea().width() * span;
    const double n = device() ? double(device()->allocated.size()) : 1;
    x0_ = std::clamp(drag_x0_ + shift, 0.0, std::max(0.0, n - span));
    x1_ = x0_ + span;
    update();
}

void MemoryBandsChart::mouseReleaseEvent(QMouseEvent* e) {
    if (e->button() != Qt::LeftButton || !dragging_) return;
    dragging_ = false;
    if ((e->pos() - drag_from_).manhattanLength() > 3) return;  // a drag, not a click
    const int band = bandAt(e->pos());
    pinned_ = band >= 0 ? band : kNothing;
    update();
    emit bandClicked(pinned_);
}

void MemoryBandsChart::mouseDoubleClickEvent(QMouseEvent*) { resetZoom(); }

void MemoryBandsChart::wheelEvent(QWheelEvent* e) {
    const DeviceMemoryTimeline* t = device();
    if (!t || e->angleDelta().y() == 0) return;
    const double n = double(t->allocated.size());
    const double at = eventAt(e->position().x());
    const double factor = e->angleDelta().y() > 0 ? 0.8 : 1.25;
    const double span = std::clamp((x1_ - x0_) * factor, std::min(8.0, n), n);
    x0_ = std::clamp(at - (at - x0_) / (x1_ - x0_) * span, 0.0, n - span);
    x1_ = x0_ + span;
    update();
    e->accept();
}

}  // namespace awb::ui
