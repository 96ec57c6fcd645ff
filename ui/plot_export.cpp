#include "plot_export.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>

#include <qcustomplot.h>

#include <unistd.h>

#include <cstdio>

namespace awb::ui {

// Like every file we write (io/atomic_file.h): QCustomPlot renders into a temporary beside the target,
// which is renamed over it only when whole, so a failed or killed export leaves the previous file.
bool export_plot(QCustomPlot* plot, const QString& path, QString* error) {
    const QFileInfo target(path);
    const QString temp = target.absolutePath() + QStringLiteral("/.") + target.fileName() +
                         QStringLiteral(".%1-export.tmp").arg(::getpid());
    const bool pdf = path.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive);
    bool ok = pdf ? plot->savePdf(temp) : plot->savePng(temp);
    ok = ok && QFileInfo(temp).size() > 0 && std::rename(temp.toLocal8Bit().constData(), path.toLocal8Bit().constData()) == 0;
    if (!ok) {
        QFile::remove(temp);
        if (error)
            *error = QCoreApplication::translate("awb::ui", "Cannot write %1 (is the folder writable, the disk full?); "
                                                            "the previous file is unchanged")
                         .arg(path);
    }
    return ok;
}

}  // namespace awb::ui
