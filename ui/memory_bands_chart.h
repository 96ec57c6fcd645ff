// The Memory snapshot tab's chart: memory over the trace's events as memory_viz draws it, the largest
// blocks as bands stacked in the order they were allocated (a free lets the ones above it down), each
// coloured by the frame that allocated it, hatched when it was alive before recording began; the
// smaller blocks as one grey area above them up to the allocated curve; the reserved bytes as a line;
// with a frame filter, every block's bytes as a dashed line. Hover a band for its block and stack;
// the wheel zooms the events, a drag pans, a double-click shows them all; a click pins a block. The
// allocations of a selected operator (the Operators page) are marked: their bands outlined, a tick
// under the axis at each.
#pragma once

#include <QWidget>

#include <memory>
#include <vector>

#include "snapshot_shown.h"

namespace awb::ui {

class MemoryBandsChart : public QWidget {
    Q_OBJECT
public:
    explicit MemoryBandsChart(QWidget* parent = nullptr);
    void setData(std::shared_ptr<const SnapshotShown> shown,
                 int device_row);  // device_row: index into timeline.devices
    void resetZoom();
    // Alloc events (indices into the shown device's trace) to mark; sorted here. Empty: none.
    void setMarks(std::vector<int64_t> alloc_events);
    const std::vector<int64_t>& marks() const { return marks_; }
    // The positions of the event axis the linked trace covers (TracePeak::first_x, last_x), shaded behind
    // the blocks; {-1, -1}: none.
    void setTraceSpan(std::pair<int64_t, int64_t> x);
    std::pair<int64_t, int64_t> traceSpan() const { return trace_span_; }
    QRectF traceLabelRect(
        const class QFontMetricsF& fm) const;  // where "the trace" is written (never over the peak's label)
    QRectF peakLabelRect(const class QFontMetricsF& fm) const;  // where the peak's label is written
    // What is under a point of the widget: a band's index (>= 0), kSmallerBlocks, or kNothing.
    static constexpr int kNothing = -1;
    static constexpr int kSmallerBlocks = -2;
    int bandAt(const QPoint& p) const;
    QString describe(const QPoint& p) const;  // the hover text there
    QString legendText() const;               // the line above the plot: what each colour and line is
    QPointF position(double event_x, double bytes) const { return {px(event_x), py(bytes)}; }  // where a point is drawn
    QSize sizeHint() const override { return {900, 320}; }
    QSize minimumSizeHint() const override { return {240, 140}; }

signals:
    void bandClicked(int band);  // -1: nothing

protected:
    void paintEvent(QPaintEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    bool event(QEvent* e) override;  // tooltips

private:
    const DeviceMemoryTimeline* device() const;
    QRectF plotArea() const;
    double px(double x) const;        // event axis -> widget x
    double py(double bytes) const;    // bytes -> widget y
    double eventAt(double wx) const;  // widget x -> event axis
    double bytesAt(double wy) const;
    void paintAxes(class QPainter& p) const;
    void paintCurves(class QPainter& p) const;
    void paintBands(class QPainter& p) const;
    void paintPeak(class QPainter& p) const;
    void paintLegend(class QPainter& p) const;
    QString peakLabel() const;  // "peak 103.0 MiB"
    void paintMarks(class QPainter& p) const;
    void paintTraceSpan(class QPainter& p) const;
    bool marked(const BlockBand& band) const;

    std::shared_ptr<const SnapshotShown> shown_;
    int device_row_ = 0;
    double x0_ = 0, x1_ = 1;  // the events shown
    double y_max_ = 1;
    int pinned_ = kNothing;
    std::vector<int64_t> marks_;
    std::pair<int64_t, int64_t> trace_span_{-1, -1};
    QPoint drag_from_;
    double drag_x0_ = 0;
    bool dragging_ = false;
};

}  // namespace awb::ui
