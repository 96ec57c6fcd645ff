// A QCustomPlot chart to a file at a chosen size, not the widget's: .pdf as vectors (width x height in
// points), .jpg / .jpeg as JPEG, anything else as PNG of (width x scale) x (height x scale) pixels, laid
// out at width x height so that fonts keep their size relative to the chart; the error names the file.
// (SVG would need Qt Svg, which the build does not use: PDF is the vector format.)
#pragma once

#include <QString>

class QCustomPlot;
class QWidget;

namespace awb::ui {

struct PlotExportSize {
    int width = 1600;  // layout width, px (PDF: points)
    int height = 900;
    double scale =
        2.0;  // PNG / JPEG pixels per layout pixel: 2 gives 3200 x 1800, sharp on slides and high-DPI screens
};

bool export_plot(QCustomPlot* plot, const QString& path, QString* error = nullptr, const PlotExportSize& size = {});

// The size dialog (width, height, scale, the resulting pixels), starting from the last size chosen
// (QSettings "export/plot-size"); false when cancelled.
bool ask_export_size(QWidget* parent, PlotExportSize* size);

// The whole export from a chart's button: a file (PNG / PDF / JPEG), then its size; failures in a
// message box. False when cancelled or failed.
bool export_plot_interactively(QWidget* parent, QCustomPlot* plot, const QString& title, const QString& suggested_name);

}  // namespace awb::ui
