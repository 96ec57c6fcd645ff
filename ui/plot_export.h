// A QCustomPlot chart to a file: .pdf as vectors, anything else as PNG; the error names the file.
#pragma once

#include <QString>

class QCustomPlot;

namespace awb::ui {

bool export_plot(QCustomPlot* plot, const QString& path, QString* error = nullptr);

}  // namespace awb::ui
