// The roofline chart (QCustomPlot, log-log): each roof as its bandwidth slope and peak with the ridge
// point marked, one point per attention call or sweep point (analysis/roofline.h), a colour per
// series, labels on the points when few, a read-out and a tooltip of the point under the mouse, a ring
// around the selected one, click to select, the legend under the chart (it covers no point), export
// at a chosen size (plot_export.h). plot_roofline draws the same into any plot (the sweep chart's roofline view).
#pragma once

#include <QColor>
#include <QWidget>

#include <vector>

#include "analysis/roofline.h"
#include "plot_export.h"

class QCustomPlot;
class QLabel;
class QMouseEvent;

namespace awb::ui {

// The colour of the i-th curve or series of a chart (the sweep chart's and the roofline's).
QColor series_color(int i);
// Clears the plot and draws the roofs and points on log-log axes; few points carry their labels.
void plot_roofline(QCustomPlot* plot, const std::vector<Roof>& roofs, const std::vector<RooflinePoint>& points);
// Up to max_points points get their tag beside them (a call's shape "2x8x1024x1024x64", a sweep point's
// "N = 2048"), one for points of one tag a few pixels apart, none when more than max_points; returns the labels placed.
int label_roofline_points(QCustomPlot* plot, const std::vector<RooflinePoint>& points, size_t max_points = 16);
// Moves the legend out of the axis rect into the plot layout's cell at its right (one column of entries)
// or below it (two columns), where it can cover no point.
void place_legend_outside(QCustomPlot* plot, bool right);
// The point nearest pos (pixels) within max_px, or -1: its position in points.
int nearest_roofline_point(const QCustomPlot* plot, const std::vector<RooflinePoint>& points, const QPointF& pos,
                           double max_px = 12);
// "flash fwd c10::BFloat16: 2x8x1024x64, 1.2 ms; 53.1 FLOP/byte, 120 TFLOP/s (12.1% of the roof)"
QString describe_roofline_point(const RooflinePoint& p, const std::vector<Roof>& roofs);

class RooflineChart : public QWidget {
    Q_OBJECT
public:
    explicit RooflineChart(QWidget* parent = nullptr);
    void setData(std::vector<Roof> roofs, std::vector<RooflinePoint> points);
    void setHighlighted(int index);  // a point's index (RooflinePoint::index); -1: none
    QCustomPlot* plot() const { return plot_; }
    const std::vector<RooflinePoint>& points() const { return points_; }
    QString readout() const;
    // .png, .pdf or .jpg at a chosen size (plot_export.h; default 1600 x 900 at 2x), not the widget's
    bool exportTo(const QString& path, QString* error = nullptr, const PlotExportSize& size = {});

signals:
    void pointClicked(int index);

protected:
    void resizeEvent(QResizeEvent* e) override;  // RooflinePoint::index of the clicked point

private:
    void showReadout(QMouseEvent* e);
    void show_note();
    std::vector<Roof> roofs_;
    std::vector<RooflinePoint> points_;
    QCustomPlot* plot_;
    QLabel* readout_;
    QLabel* note_;
    QString note_text_;  // whole; the label shows what fits on one line
    int highlighted_ = -1;
};

}  // namespace awb::ui
