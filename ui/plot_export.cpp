#include "plot_export.h"

#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QMessageBox>
#include <QSettings>
#include <QSpinBox>

#include <qcustomplot.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace awb::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("awb::ui::PlotExport", text); }

bool render(QCustomPlot* plot, const QString& file, const QString& path, const PlotExportSize& s) {
    if (path.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive)) return plot->savePdf(file, s.width, s.height);
    if (path.endsWith(QStringLiteral(".jpg"), Qt::CaseInsensitive) ||
        path.endsWith(QStringLiteral(".jpeg"), Qt::CaseInsensitive))
        return plot->saveJpg(file, s.width, s.height, s.scale, 95);
    return plot->savePng(file, s.width, s.height, s.scale);
}

QSpinBox* pixels(int value, const QString& tip) {
    auto* box = new QSpinBox;
    box->setRange(200, 8000);
    box->setSuffix(QStringLiteral(" px"));
    box->setValue(value);
    box->setToolTip(tip);
    return box;
}

}  // namespace

// Like every file we write (io/atomic_file.h): QCustomPlot renders into a temporary beside the target,
// which is renamed over it only when whole, so a failed or killed export leaves the previous file.
bool export_plot(QCustomPlot* plot, const QString& path, QString* error, const PlotExportSize& size) {
    const QFileInfo target(path);
    const QString temp = target.absolutePath() + QStringLiteral("/.") + target.fileName() +
                         QStringLiteral(".%1-export.tmp").arg(::getpid());
    bool ok = render(plot, temp, path, size);
    ok = ok && QFileInfo(temp).size() > 0 &&
         std::rename(temp.toLocal8Bit().constData(), path.toLocal8Bit().constData()) == 0;
    plot->replot();  // saving lays the plot out at the export size: back to the widget's
    if (!ok) {
        QFile::remove(temp);
        if (error)
            *error = tr("Cannot write %1 (is the folder writable, the disk full?); the previous file is unchanged")
                         .arg(path);
    }
    return ok;
}

bool ask_export_size(QWidget* parent, PlotExportSize* size) {
    QSettings settings;
    const PlotExportSize defaults;
    QDialog dialog(parent);
    dialog.setObjectName(QStringLiteral("plot-export-size"));
    dialog.setWindowTitle(tr("Export size"));
    const QString tip =
        tr("The chart is laid out at this size, so its labels keep their font size: larger means smaller text "
           "relative to the chart. PDF: points.");
    auto* width = pixels(settings.value(QStringLiteral("export/plot-width"), defaults.width).toInt(), tip);
    auto* height = pixels(settings.value(QStringLiteral("export/plot-height"), defaults.height).toInt(), tip);
    auto* scale = new QDoubleSpinBox;
    scale->setRange(1, 4);
    scale->setSingleStep(0.5);
    scale->setSuffix(QStringLiteral("x"));
    scale->setValue(settings.value(QStringLiteral("export/plot-scale"), defaults.scale).toDouble());
    scale->setToolTip(
        tr("Pixels per layout pixel in a PNG or JPEG (2x: 192 dpi at the layout's 96); no effect on a PDF"));
    auto* result = new QLabel;
    const auto update = [&] {
        result->setText(tr("PNG / JPEG: %1 x %2 px (%3 dpi at 96 dpi layout); PDF: %4 x %5 pt")
                            .arg(std::lround(width->value() * scale->value()))
                            .arg(std::lround(height->value() * scale->value()))
                            .arg(std::lround(96 * scale->value()))
                            .arg(width->value())
                            .arg(height->value()));
    };
    update();
    for (QSpinBox* b : {width, height}) QObject::connect(b, &QSpinBox::valueChanged, &dialog, update);
    QObject::connect(scale, &QDoubleSpinBox::valueChanged, &dialog, update);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto* form = new QFormLayout(&dialog);
    form->addRow(tr("Width:"), width);
    form->addRow(tr("Height:"), height);
    form->addRow(tr("Scale:"), scale);
    form->addRow(result);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted) return false;
    *size = {width->value(), height->value(), scale->value()};
    settings.setValue(QStringLiteral("export/plot-width"), size->width);
    settings.setValue(QStringLiteral("export/plot-height"), size->height);
    settings.setValue(QStringLiteral("export/plot-scale"), size->scale);
    return true;
}

bool export_plot_interactively(QWidget* parent, QCustomPlot* plot, const QString& title,
                               const QString& suggested_name) {
    const QString path = QFileDialog::getSaveFileName(parent, title, suggested_name,
                                                      tr("PNG (*.png);;PDF (*.pdf);;JPEG (*.jpg *.jpeg)"));
    PlotExportSize size;
    if (path.isEmpty() || !ask_export_size(parent, &size)) return false;
    QString error;
    if (export_plot(plot, path, &error, size)) return true;
    QMessageBox::warning(parent, tr("Export failed"), error);
    return false;
}

}  // namespace awb::ui
