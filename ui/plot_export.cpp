#include "plot_export.h"

#include <QCoreApplication>

#include <qcustomplot.h>

namespace awb::ui {

bool export_plot(QCustomPlot* plot, const QString& path, QString* error) {
    const bool ok = path.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive) ? plot->savePdf(path) : plot->savePng(path);
    if (!ok && error) *error = QCoreApplication::translate("awb::ui", "Cannot write %1").arg(path);
    return ok;
}

}  // namespace awb::ui
