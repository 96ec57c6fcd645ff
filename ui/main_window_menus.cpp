// The window's menus and toolbar, built in one place: File (open, recent, save, workspace, exports,
// quit), View (one toggle per dock) and the Main toolbar (Run, Check, Cancel, zoom).
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QToolBar>

#include "about_text.h"
#include "attention_view.h"
#include "engine_worker.h"
#include "gpu_time_view.h"
#include "main_window.h"
#include "operator_panel.h"
#include "plot_export.h"
#include "run_panel.h"
#include "session.h"
#include "sweep_chart.h"
#include "timeline_view.h"

namespace awb::ui {

namespace {

// A chart's export from the menu: its size asked after the file (plot_export.h); cancelling says so.
template <typename Chart>
auto sized_export(QWidget* parent, QLabel* status, Chart* chart) {
    return [parent, status, chart](const QString& path, QString* error) {
        PlotExportSize size;
        if (ask_export_size(parent, &size)) return chart->exportTo(path, error, size);
        status->setText(QObject::tr("Export cancelled"));
        return true;
    };
}

}  // namespace

void MainWindow::buildMenus(const QList<QDockWidget*>& docks) {
    auto* file = menuBar()->addMenu(tr("&File"));
    auto* open = file->addAction(tr("&Open..."), this, [this] {
        const QStringList paths = QFileDialog::getOpenFileNames(
            this, tr("Open a report, sweep, workspace, trace (or a graph replay with its capture) or memory snapshot"),
            QString(),
            tr("Reports, sweeps, workspaces and traces (*.json *.json.gz);;"
               "CUDA memory snapshots (*.pickle *.pickle.gz *.pkl);;All files (*)"));
        if (!paths.isEmpty()) openFiles(paths);
    });
    open->setShortcut(QKeySequence::Open);
    recent_menu_ = file->addMenu(tr("Open &recent"));
    file->addAction(tr("&Save sweep..."), this,
                    [this] {
                        const QString path = QFileDialog::getSaveFileName(
                            this, tr("Save sweep"), QStringLiteral("sweep.json"), tr("Sweep (*.json)"));
                        QString error;
                        if (!path.isEmpty() && !saveSweep(path, &error))
                            QMessageBox::warning(this, tr("Cannot save"), error);
                    })
        ->setShortcut(QKeySequence::Save);
    file->addAction(tr("Open &distributed run (folder)..."), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(
            this, tr("Folder with one trace per rank, or a replay with capture_traces/"));
        if (!dir.isEmpty()) openFile(dir);
    });
    file->addAction(tr("Save &workspace..."), this,
                    [this] {
                        const QString path = QFileDialog::getSaveFileName(
                            this, tr("Save workspace"), QStringLiteral("workspace.json"), tr("Workspace (*.json)"));
                        if (!path.isEmpty()) saveWorkspace(path);
                    })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    file->addAction(tr("Clear sweep charts"), session_, &Session::clearSweeps);
    buildExportMenu(file->addMenu(tr("&Export")));
    file->addSeparator();
    file->addAction(tr("&Quit"), this, &QWidget::close)->setShortcut(QKeySequence::Quit);
    auto* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : docks) view->addAction(dock->toggleViewAction());
    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Attention Workbench"), this, [this] {
        QMessageBox::about(
            this, tr("About Attention Workbench"),
            QString::fromStdString(about_text()).toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")) +
                tr("<p>Profiles attention in LibTorch and reads PyTorch/Kineto traces. Command line: attnwb.</p>"));
    });
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
    buildToolBar();
}

void MainWindow::buildExportMenu(QMenu* exports) {
    auto export_action = [this, exports](const QString& text, const QString& suggested, const QString& filter,
                                         auto write) {
        exports->addAction(text, this, [this, suggested, filter, write, text] {
            QString title = text;
            title.remove(QLatin1Char('&'));  // the menu's mnemonic is no dialog title
            const QString path = QFileDialog::getSaveFileName(this, title, suggested, filter);
            QString error;
            if (path.isEmpty()) return;
            const QString before = status_->text();
            if (!write(path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
            // A writer that says what it does itself (a big report, written in the background) is left to.
            else if (status_->text() == before)
                status_->setText(tr("Wrote %1").arg(path));
        });
    };
    export_action(tr("Run as chrome trace..."), QStringLiteral("trace.json"), tr("Chrome trace (*.json)"),
                  [this](const QString& p, QString* e) { return exportTrace(p, e); });
    export_action(tr("Run as profile report..."), QStringLiteral("report.json"), tr("Profile report (*.json)"),
                  [this](const QString& p, QString* e) { return exportReport(p, e); });
    export_action(tr("Report as &HTML..."), QStringLiteral("report.html"), tr("HTML report (*.html)"),
                  [this](const QString& p, QString* e) { return exportHtmlReport(p, e); });
    export_action(tr("Operator table as CSV..."), QStringLiteral("operators.csv"), tr("CSV (*.csv)"),
                  [this](const QString& p, QString* e) { return operators_->exportCsv(p, e); });
    const QString charts = tr("PNG (*.png);;PDF (*.pdf);;JPEG (*.jpg)");
    export_action(tr("Sweep chart as PNG/PDF..."), QStringLiteral("sweep.png"), charts,
                  sized_export(this, status_, chart_));
    export_action(tr("GPU time chart as PNG/PDF..."), QStringLiteral("gpu-time.png"), charts,
                  sized_export(this, status_, gpu_time_));
    export_action(tr("Roofline as PNG/PDF..."), QStringLiteral("roofline.png"), charts,
                  sized_export(this, status_, attention_->roofline()));
    export_action(tr("Timeline as PNG..."), QStringLiteral("timeline.png"), tr("PNG (*.png)"),
                  [this](const QString& p, QString* e) {
                      const bool ok = timeline_->grab().save(p);
                      if (!ok && e) *e = tr("Cannot write %1").arg(p);
                      return ok;
                  });
}

void MainWindow::buildToolBar() {
    auto* tools = addToolBar(tr("Main"));
    tools->setObjectName(QStringLiteral("main-toolbar"));
    auto* run = tools->addAction(tr("Run"), this, [this] {
        if (run_panel_->problemsText().isEmpty()) startRun(run_panel_->spec(), run_panel_->profileOptions());
    });
    run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    run->setToolTip(tr("Profile the spec of the Run panel (Ctrl+R)"));
    auto* check = tools->addAction(tr("Check"), this, [this] {
        if (!run_panel_->problemsText().isEmpty()) return;
        const RunSpec spec = run_panel_->spec();
        beginJob(tr("Checking %1 in %2 against the float64 reference...")
                     .arg(QString::fromStdString(spec.variant), QString::fromStdString(to_string(spec.dtype))));
        engine_->check(spec);
    });
    check->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    check->setToolTip(
        tr("Check the Run panel's variant against the manual formula in float64: output and q, k, v "
           "gradients, mask semantics (Ctrl+K); the checklist's numerical item reads it"));
    auto* cancel = tools->addAction(tr("Cancel"), this, [this] { engine_->cancel(); });
    cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    cancel->setToolTip(tr("Stop the run after the current step (Esc)"));
    tools->addSeparator();
    tools
        ->addAction(tr("Zoom in"), this,
                    [this] { timeline_->setView(timeline_->view().zoomed(1.5, timeline_->view().width_px / 2)); })
        ->setShortcut(QKeySequence::ZoomIn);
    tools
        ->addAction(tr("Zoom out"), this,
                    [this] { timeline_->setView(timeline_->view().zoomed(1 / 1.5, timeline_->view().width_px / 2)); })
        ->setShortcut(QKeySequence::ZoomOut);
    tools->addAction(tr("Fit"), this, [this] { timeline_->fit(); })->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
}

}  // namespace awb::ui
