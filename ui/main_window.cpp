#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>

#include <optional>

#include "background.h"
#include "comparison_view.h"
#include "engine/device_caps.h"
#include "engine_worker.h"
#include "findings_view.h"
#include "format_qt.h"
#include "io/chrome_trace.h"
#include "io/json_io.h"
#include "io/results_json.h"
#include "kernel_table_model.h"
#include "operator_panel.h"
#include "report/report_html.h"
#include "run_panel.h"
#include "scroll_area.h"
#include "sweep_chart.h"
#include "timeline_widget.h"

namespace awb::ui {

namespace {
// "1 run", "3 runs".
QString counted(size_t n, const QString& one, const QString& many) { return QString::number(n) + QLatin1Char(' ') + (n == 1 ? one : many); }
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), engine_(new Engine(this)), run_panel_(new RunPanel(query_device_caps())),
      operators_(new OperatorPanel), kernels_(new KernelPanel), findings_(new FindingsView), timeline_(new TimelineWidget), chart_(new SweepChart), comparison_(new ComparisonView),
      timeline_scroll_(in_scroll_area(timeline_, false)),
      progress_(new QProgressBar), status_(new QLabel) {
    setWindowTitle(tr("Attention Workbench"));
    setAcceptDrops(true);
    setCentralWidget(timeline_scroll_);

    auto dock = [this](const QString& title, const char* name, QWidget* widget, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(QString::fromLatin1(name));  // the key of the saved layout
        d->setWidget(widget);
        addDockWidget(area, d);
        return d;
    };
    auto* run_dock = dock(tr("Run"), "run", in_scroll_area(run_panel_), Qt::LeftDockWidgetArea);
    auto* op_dock = dock(tr("Operators"), "operators", operators_, Qt::BottomDockWidgetArea);
    auto* kernel_dock = dock(tr("Kernels"), "kernels", kernels_, Qt::BottomDockWidgetArea);
    auto* findings_dock = dock(tr("Findings and checklist"), "findings", findings_, Qt::BottomDockWidgetArea);
    auto* compare_dock = dock(tr("Compare runs"), "compare", in_scroll_area(comparison_), Qt::BottomDockWidgetArea);
    auto* chart_dock = dock(tr("Sweep charts"), "sweeps", in_scroll_area(chart_), Qt::BottomDockWidgetArea);
    tabifyDockWidget(op_dock, findings_dock);
    tabifyDockWidget(findings_dock, kernel_dock);
    tabifyDockWidget(kernel_dock, compare_dock);
    tabifyDockWidget(compare_dock, chart_dock);
    op_dock->raise();
    default_docks_ = {run_dock, op_dock};

    progress_->setMaximumWidth(220);
    progress_->setVisible(false);
    statusBar()->addWidget(status_, 1);
    statusBar()->addPermanentWidget(progress_);

    auto* file = menuBar()->addMenu(tr("&File"));
    auto* open = file->addAction(tr("&Open..."), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a report, sweep, workspace or trace"), QString(),
                                                          tr("Reports, sweeps, workspaces and traces (*.json *.json.gz);;All files (*)"));
        if (!path.isEmpty()) openFile(path);
    });
    open->setShortcut(QKeySequence::Open);
    recent_menu_ = file->addMenu(tr("Open &recent"));
    file->addAction(tr("&Save sweep..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save sweep"), QStringLiteral("sweep.json"), tr("Sweep (*.json)"));
        QString error;
        if (!path.isEmpty() && !saveSweep(path, &error)) QMessageBox::warning(this, tr("Cannot save"), error);
    })->setShortcut(QKeySequence::Save);
    file->addAction(tr("Open &distributed run (folder)..."), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder with one trace per rank"));
        if (!dir.isEmpty()) openFile(dir);
    });
    file->addAction(tr("Save &workspace..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save workspace"), QStringLiteral("workspace.json"),
                                                          tr("Workspace (*.json)"));
        if (!path.isEmpty()) saveWorkspace(path);
    })->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    file->addAction(tr("Clear sweep charts"), this, [this] {
        chart_->clear();
        explainShown();
    });
    auto* exports = file->addMenu(tr("&Export"));
    auto export_action = [this, exports](const QString& text, const QString& suggested, const QString& filter, auto write) {
        exports->addAction(text, this, [this, suggested, filter, write, text] {
            QString title = text;
            title.remove(QLatin1Char('&'));  // the menu's mnemonic is no dialog title
            const QString path = QFileDialog::getSaveFileName(this, title, suggested, filter);
            QString error;
            if (path.isEmpty()) return;
            const QString before = status_->text();
            if (!write(path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
            // A writer that says what it does itself (a big report, written in the background) is left to.
            else if (status_->text() == before) status_->setText(tr("Wrote %1").arg(path));
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
    export_action(tr("Sweep chart as PNG/PDF..."), QStringLiteral("sweep.png"), tr("PNG (*.png);;PDF (*.pdf)"),
                  [this](const QString& p, QString* e) { return chart_->exportTo(p, e); });
    export_action(tr("Timeline as PNG..."), QStringLiteral("timeline.png"), tr("PNG (*.png)"), [this](const QString& p, QString* e) {
        const bool ok = timeline_->grab().save(p);
        if (!ok && e) *e = tr("Cannot write %1").arg(p);
        return ok;
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), this, &QWidget::close)->setShortcut(QKeySequence::Quit);
    auto* view = menuBar()->addMenu(tr("&View"));
    view->addAction(run_dock->toggleViewAction());
    view->addAction(op_dock->toggleViewAction());
    view->addAction(kernel_dock->toggleViewAction());
    view->addAction(findings_dock->toggleViewAction());
    view->addAction(chart_dock->toggleViewAction());
    view->addAction(compare_dock->toggleViewAction());

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
    check->setToolTip(tr("Check the Run panel's variant against the manual formula in float64: output and q, k, v "
                         "gradients, mask semantics (Ctrl+K); the checklist's numerical item reads it"));
    auto* cancel = tools->addAction(tr("Cancel"), this, [this] { engine_->cancel(); });
    cancel->setShortcut(QKeySequence(Qt::Key_Escape));
    cancel->setToolTip(tr("Stop the run after the current step (Esc)"));
    tools->addSeparator();
    tools->addAction(tr("Zoom in"), this, [this] { timeline_->setView(timeline_->view().zoomed(1.5, timeline_->view().width_px / 2)); })
        ->setShortcut(QKeySequence::ZoomIn);
    tools->addAction(tr("Zoom out"), this, [this] { timeline_->setView(timeline_->view().zoomed(1 / 1.5, timeline_->view().width_px / 2)); })
        ->setShortcut(QKeySequence::ZoomOut);
    tools->addAction(tr("Fit"), this, [this] { timeline_->fit(); })->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));

    connect(run_panel_, &RunPanel::runRequested, this, &MainWindow::startRun);
    connect(run_panel_, &RunPanel::cancelRequested, this, [this] { engine_->cancel(); });
    connect(run_panel_, &RunPanel::sweepRequested, this, &MainWindow::startSweep);
    connect(operators_, &OperatorPanel::operatorSelected, timeline_, &TimelineWidget::setHighlightedName);
    connect(kernels_, &KernelPanel::kernelSelected, timeline_, &TimelineWidget::setHighlightedName);
    EngineWorker* worker = engine_->worker();
    connect(worker, &EngineWorker::progress, this, [this](int done, int total, const QString& what) {
        progress_->setRange(0, std::max(0, total));  // total 0: busy indicator (trace import)
        progress_->setValue(done);
        const qint64 elapsed = QDateTime::currentMSecsSinceEpoch() - run_started_ms_;
        QString eta;
        if (done > 0 && done < total) eta = tr(", about %1 left").arg(format_duration_ns(double(elapsed) * 1e6 * (total - done) / done));
        status_->setText(what + eta);
    });
    connect(worker, &EngineWorker::profileFinished, this, [this](std::shared_ptr<const ProfileResult> r) {
        endJob();
        showResult(r);  // sets the status line
    });
    connect(worker, &EngineWorker::checkFinished, this, [this](std::shared_ptr<const CheckReport> r) {
        check_ = std::move(r);
        double worst = 0;
        for (const auto& v : check_->variants)
            for (const auto& t : v.tensors) worst = std::max(worst, t.error);
        finishRun(tr("Check of %1 in %2: %3 (worst error %4 of max |ref|, tolerance %5)")
                      .arg(QString::fromStdString(check_->variants.empty() ? std::string() : check_->variants[0].variant),
                           QString::fromStdString(to_string(check_->spec.dtype)),
                           check_->all_passed() ? tr("within tolerance") : tr("OUT OF TOLERANCE"))
                      .arg(worst, 0, 'e', 2)
                      .arg(check_->tolerance, 0, 'e', 1));
        explainShown();
    });
    connect(worker, &EngineWorker::failed, this, [this](const QString& title, const QString& message) {
        finishRun(title + tr("; what was shown is kept"));
        QMessageBox::warning(this, title, message);
    });
    connect(worker, &EngineWorker::cancelled, this, [this] { finishRun(tr("Cancelled; earlier results are kept")); });
    connect(worker, &EngineWorker::resultsOpened, this, &MainWindow::showOpened);
    connect(worker, &EngineWorker::workspaceSaved, this, [this](const QString& path) {
        finishRun(tr("Saved workspace %1 (%2, %3)").arg(path, counted(runs_.size(), tr("run"), tr("runs")),
                                                        counted(chart_->sweeps().size(), tr("sweep"), tr("sweeps"))));
        addRecent(path);
    });
    connect(worker, &EngineWorker::workspaceLoaded, this, [this](std::shared_ptr<const Workspace> w, const QString& path) {
        endJob();
        restoreWorkspace(std::move(w), path);
    });
    connect(worker, &EngineWorker::sweepPoint, this, [this](const SweepPoint& point, int index, int total) {
        live_sweep_.points.push_back(point);
        chart_->setSweep(live_sweep_, tr("this run"));
        if (point.status != PointStatus::Ok)
            statusBar()->showMessage(tr("Point %1/%2 %3: %4").arg(index + 1).arg(total)
                                         .arg(QString::fromStdString(to_string(point.status)), QString::fromStdString(point.reason)),
                                     8000);
    });
    connect(worker, &EngineWorker::sweepFinished, this, [this](std::shared_ptr<const SweepResult> r) {
        live_sweep_ = *r;
        chart_->setSweep(live_sweep_, tr("this run"));
        explainShown();
        int failed = 0;
        for (const auto& p : r->points) failed += p.status == PointStatus::Ok ? 0 : 1;
        finishRun(tr("Sweep: %1 of %2 points run, %3 refused or failed%4 (File > Save sweep keeps it)")
                      .arg(r->points.size())
                      .arg(r->planned_points)
                      .arg(failed)
                      .arg(r->stopped_early ? tr(", stopped early") : QString()));
    });

    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    layout_restored_ = restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    const QString last_spec = settings.value(QStringLiteral("run/spec")).toString();
    if (!last_spec.isEmpty()) {
        try {
            run_panel_->setSpec(nlohmann::json::parse(last_spec.toStdString()).get<RunSpec>());
        } catch (const std::exception&) {  // an old or edited setting: keep the defaults
        }
    }
    rebuildRecentMenu();
    status_->setText(tr("Ready: set a spec and press Run (Ctrl+R), or open a report (Ctrl+O)"));
}

MainWindow::~MainWindow() = default;

void MainWindow::showEvent(QShowEvent* e) {
    QMainWindow::showEvent(e);
    if (layout_restored_ || default_docks_.size() != 2) return;
    // Default proportions at the first show (a saved layout replaces them): the run panel about
    // 380 px wide, the bottom docks a third of the height, the timeline the rest.
    const QList<QDockWidget*> docks = default_docks_;
    default_docks_.clear();
    QTimer::singleShot(0, this, [this, docks] {  // once the layout has its real size
        resizeDocks({docks[0]}, {380}, Qt::Horizontal);
        resizeDocks({docks[1]}, {height() / 3}, Qt::Vertical);
    });
}

void MainWindow::closeEvent(QCloseEvent* e) {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("run/spec"), QString::fromStdString(nlohmann::json(run_panel_->spec()).dump()));
    QMainWindow::closeEvent(e);
}

namespace {

// Runs write(); a failure becomes the message in *error.
template <typename Write>
bool write_reporting(QString* error, Write&& write) {
    try {
        write();
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

}  // namespace

void MainWindow::beginJob(const QString& status) {
    run_started_ms_ = QDateTime::currentMSecsSinceEpoch();
    run_panel_->setRunning(true);
    progress_->setRange(0, 0);  // busy until the first progress report
    progress_->setVisible(true);
    status_->setText(status);
}

void MainWindow::endJob() {
    run_panel_->setRunning(false);
    progress_->setVisible(false);
}

void MainWindow::startRun(const RunSpec& spec, const ProfileOptions& options) {
    beginJob(tr("Running %1 %2...").arg(QString::fromStdString(spec.variant), QString::fromStdString(shape_string(spec))));
    engine_->profile(spec, options);
}

void MainWindow::startSweep(const SweepPlan& plan) {
    live_sweep_ = SweepResult{};
    live_sweep_.plan = plan;
    live_sweep_.planned_points = int(expand(plan).size());
    beginJob(tr("Sweep of %1 points...").arg(live_sweep_.planned_points));
    engine_->sweep(plan);
}

bool MainWindow::saveSweep(const QString& path, QString* error) const {
    if (live_sweep_.points.empty()) {
        if (error) *error = tr("No sweep has run in this window yet");
        return false;
    }
    return write_reporting(error, [&] { write_text_file(path.toStdString(), sweep_file_json(live_sweep_).dump(1) + "\n"); });
}

void MainWindow::finishRun(const QString& message) {
    endJob();
    status_->setText(message);
}

bool MainWindow::exportTrace(const QString& path, QString* error) const {
    if (!shown_) {
        if (error) *error = tr("No run on screen: run a spec first");
        return false;
    }
    return write_reporting(error, [&] {
        write_chrome_trace(shown_->trace, run_trace_info(*shown_, "attention-workbench"),
                           path.toStdString());
    });
}

bool MainWindow::exportReport(const QString& path, QString* error) const {
    if (!shown_) {
        if (error) *error = tr("No run on screen: run a spec first");
        return false;
    }
    return write_reporting(error, [&] { write_text_file(path.toStdString(), to_json(make_report(*shown_, false, shown_analysis_.get())).dump(1) + "\n"); });
}

void MainWindow::showResult(std::shared_ptr<const ProfileResult> result, const QString& label) {
    const QString name = !label.isEmpty() ? label
                                          : QStringLiteral("%1 %2 %3 %4")
                                                .arg(QString::fromStdString(result->spec.variant),
                                                     QString::fromStdString(shape_string(result->spec)),
                                                     QString::fromStdString(to_string(result->spec.dtype)),
                                                     QString::fromStdString(to_string(result->spec.mode)));
    // The run's analysis (operator and kernel tables, memory replay) is computed once, here, off the
    // GUI thread for a large trace; every view, the advisor, the comparison and the reports share it.
    const bool large = result->trace.events().size() >= kBackgroundEvents;
    if (large) status_->setText(tr("Analysing %1 events of %2...").arg(result->trace.events().size()).arg(name));
    compute_then(this, large, [result] { return analyze(result); }, [this, name](AnalyzedRun run) {
        addRun({name, std::move(run.run), std::move(run.analysis)});
        display(runs_.back());
    });
}

void MainWindow::addRun(NamedRun run) {
    // Every run of the session can be compared with any other.
    runs_.push_back(std::move(run));
    std::vector<NamedRun> numbered = runs_;
    for (size_t i = 0; i < numbered.size(); ++i) numbered[i].label = QStringLiteral("#%1 %2").arg(i + 1).arg(numbered[i].label);
    comparison_->setRuns(std::move(numbered));
}

void MainWindow::display(const NamedRun& run) {
    const std::shared_ptr<const ProfileResult>& result = run.result;
    shown_ = result;
    shown_analysis_ = run.analysis;
    timeline_->setRun(result, run.analysis->memory);
    const bool device_events = std::any_of(result->trace.events().begin(), result->trace.events().end(),
                                           [](const TraceEvent& e) { return e.device != DeviceKind::CPU; });
    operators_->setTrace(std::shared_ptr<const Trace>(result, &result->trace), run.analysis->operators, device_events);
    kernels_->setRows(run.analysis->kernels);
    explainShown();
    setWindowTitle(tr("Attention Workbench - %1 %2").arg(QString::fromStdString(result->spec.variant),
                                                         QString::fromStdString(shape_string(result->spec))));
    status_->setText(tr("%1 %2 %3: %4 events, median recorded step %5 (profiler on)")
                         .arg(QString::fromStdString(result->spec.variant), QString::fromStdString(shape_string(result->spec)),
                              QString::fromStdString(to_string(result->spec.dtype)))
                         .arg(result->trace.events().size())
                         .arg(format_duration_ns(median_recorded_step_ns(*result))));
}

std::shared_ptr<const SweepResult> MainWindow::sweepFor(const ProfileResult* run) const {
    std::shared_ptr<const SweepResult> best;
    size_t most = 0;
    for (const auto& [label, sweep] : chart_->sweeps()) {
        const size_t n = run ? (run->spec_known ? points_on_curve(sweep, run->spec) : 0) : sweep.points.size();
        if (n > most || (!run && n > 0)) {
            most = n;
            best = std::make_shared<const SweepResult>(sweep);
        }
    }
    return best;
}

void MainWindow::explainShown() {
    // The advisor and the checklist read the run with its sweep (a large trace: on the thread pool, like the tables).
    const std::shared_ptr<const ProfileResult> result = shown_;
    const std::shared_ptr<const RunAnalysis> analysis = shown_analysis_;
    const std::shared_ptr<const SweepResult> sweep = sweepFor(result.get());
    const std::shared_ptr<const BenchResult> bench = bench_;
    const std::shared_ptr<const CheckReport> check = check_;
    if (!result && !sweep && !bench && !check) {
        findings_->setFindings({}, {}, tr("Nothing measured yet"));
        return;
    }
    QString subject = result ? (result->spec_known ? QStringLiteral("%1 %2").arg(QString::fromStdString(result->spec.variant),
                                                                                 QString::fromStdString(shape_string(result->spec)))
                                                   : tr("Imported trace"))
                             : sweep ? tr("Sweep of %1 points").arg(sweep->points.size())
                                     : tr("Benchmark and check results");
    if (result && sweep) subject += tr(", with the sweep of %1 points on the chart").arg(sweep->points.size());
    if (bench) subject += tr(", a benchmark of %1").arg(QString::fromStdString(bench->spec.variant + " " + shape_string(bench->spec)));
    if (check) subject += tr(", a check of %1").arg(QString::fromStdString(check->variants.empty() ? "-" : check->variants[0].variant));
    using Explained = std::pair<std::vector<Finding>, std::vector<ChecklistItem>>;
    compute_then(
        this, result && result->trace.events().size() >= kBackgroundEvents,
        [result, analysis, sweep, bench, check] {
            const Measurements m{result.get(), bench.get(), sweep.get(), check.get(), analysis.get()};
            return Explained{advise(m), measurement_checklist(m)};
        },
        [this, result, subject](Explained x) {
            if (shown_ == result) findings_->setFindings(x.first, x.second, subject);
        });
}

bool MainWindow::exportHtmlReport(const QString& path, QString* error) {
    const std::shared_ptr<const SweepResult> sweep = sweepFor(shown_.get());
    if (!shown_ && !sweep && !bench_ && !check_) {
        if (error) *error = tr("Nothing to report: run a spec or a sweep, or open a trace");
        return false;
    }
    auto write = [run = shown_, analysis = shown_analysis_, bench = bench_, sweep, check = check_, file = path.toStdString()] {
        const Measurements m{run.get(), bench.get(), sweep.get(), check.get(), analysis.get()};
        std::optional<ProfileReport> profile;
        if (run) profile = make_report(*run, false, analysis.get());
        ReportInput in;
        in.profile = profile ? &*profile : nullptr;
        in.sweep = sweep.get();
        in.bench = bench.get();
        in.check = check.get();
        in.findings = advise(m);
        in.checklist = measurement_checklist(m);
        in.generated_by = "attention-workbench";
        write_html_report(in, file);
    };
    if (shown_ && shown_->trace.events().size() >= kBackgroundEvents) {
        status_->setText(tr("Writing report %1...").arg(path));
        compute_then(
            this, true,
            [write] {
                QString failure;
                write_reporting(&failure, write);
                return failure;
            },
            [this, path](const QString& failure) {
                if (failure.isEmpty()) status_->setText(tr("Wrote report %1").arg(path));
                else QMessageBox::warning(this, tr("Export failed"), failure);
            });
        return true;
    }
    return write_reporting(error, write);
}

std::shared_ptr<const Workspace> MainWindow::workspace() const {
    auto w = std::make_shared<Workspace>();
    w->panel_spec = run_panel_->spec();
    for (size_t i = 0; i < runs_.size(); ++i) {
        w->runs.push_back({runs_[i].label.toStdString(), runs_[i].result});
        if (runs_[i].result == shown_) w->shown = int(i);
    }
    for (const auto& [label, sweep] : chart_->sweeps()) w->sweeps.push_back({label.toStdString(), sweep});
    w->bench = bench_;
    w->check = check_;
    return w;
}

void MainWindow::saveWorkspace(const QString& path) {
    beginJob(tr("Saving workspace %1...").arg(path));
    engine_->saveWorkspace(workspace(), path);
}

void MainWindow::restoreWorkspace(std::shared_ptr<const Workspace> workspace, const QString& path) {
    // Each run's analysis once, as for a run that arrives (off the GUI thread when the runs are large).
    size_t events = 0;
    for (const auto& run : workspace->runs) events += run.result->trace.events().size();
    compute_then(
        this, events >= kBackgroundEvents,
        [workspace] {
            std::vector<std::shared_ptr<const RunAnalysis>> out;
            for (const auto& run : workspace->runs) out.push_back(analyze(run.result).analysis);
            return out;
        },
        [this, workspace, path](std::vector<std::shared_ptr<const RunAnalysis>> analyses) {
            restoreWorkspace(*workspace, analyses, path);
        });
}

void MainWindow::restoreWorkspace(const Workspace& w, const std::vector<std::shared_ptr<const RunAnalysis>>& analyses,
                                  const QString& path) {
    runs_.clear();
    comparison_->setRuns({});
    for (size_t i = 0; i < w.runs.size(); ++i) addRun({QString::fromStdString(w.runs[i].label), w.runs[i].result, analyses[i]});
    chart_->clear();
    for (const auto& s : w.sweeps) chart_->addSweep(s.sweep, QString::fromStdString(s.label));
    live_sweep_ = SweepResult{};
    bench_ = w.bench;
    check_ = w.check;
    run_panel_->setSpec(w.panel_spec);
    shown_.reset();
    shown_analysis_.reset();
    timeline_->setData(nullptr);
    operators_->setRows({}, false);
    kernels_->setRows({});
    if (w.shown >= 0) display(runs_[size_t(w.shown)]);
    else if (!runs_.empty()) display(runs_.back());
    else explainShown();  // the sweeps alone
    setWindowTitle(tr("Attention Workbench - %1").arg(QFileInfo(path).fileName()));
    status_->setText(tr("Opened workspace %1: %2, %3").arg(path, counted(w.runs.size(), tr("run"), tr("runs")),
                                                            counted(w.sweeps.size(), tr("sweep"), tr("sweeps"))));
    if (!w.problems.empty()) {
        QStringList lines;
        for (const auto& p : w.problems) lines << QString::fromStdString(p);
        QMessageBox::warning(this, tr("Workspace partly opened"), lines.join(QLatin1Char('\n')));
    }
}

bool MainWindow::openFile(const QString& path) {
    // Every file is read on the engine thread (open_results_file says what it is); what it holds
    // appears when it has been read, in showOpened.
    if (!QFileInfo::exists(path)) {
        QMessageBox::warning(this, tr("Cannot open file"), tr("%1:\nno such file or folder").arg(path));
        return false;
    }
    beginJob(tr("Opening %1...").arg(path));
    engine_->open(path);
    return true;
}

void MainWindow::showOpened(std::shared_ptr<const ResultsFile> file, const QString& path) {
    const QString name = QFileInfo(path).fileName();
    addRecent(path);
    switch (file->kind) {
        case ResultsKind::Trace: {
            endJob();
            // The run shares the file's ownership: no copy of its events.
            std::shared_ptr<const ProfileResult> run(file, &*file->run);
            showResult(run, name);
            setWindowTitle(tr("Attention Workbench - %1").arg(name));
            status_->setText(tr("Opened trace %1: %2 events, %3 memory events")
                                 .arg(path)
                                 .arg(run->trace.events().size())
                                 .arg(run->trace.memory().size()));
            return;
        }
        case ResultsKind::Workspace:
            beginJob(tr("Opening workspace %1...").arg(path));
            engine_->loadWorkspace(path);
            return;
        case ResultsKind::Sweep:
            endJob();
            chart_->addSweep(*file->sweep, name);
            explainShown();
            status_->setText(tr("Opened sweep %1: %2 points (%3)")
                                 .arg(path)
                                 .arg(file->sweep->points.size())
                                 .arg(QString::fromStdString(file->sweep->environment.device_name)));
            return;
        case ResultsKind::Bench:
        case ResultsKind::Check:
            endJob();
            if (file->bench) bench_ = std::shared_ptr<const BenchResult>(file, &*file->bench);
            if (file->check) check_ = std::shared_ptr<const CheckReport>(file, &*file->check);
            explainShown();
            status_->setText(tr("Opened %1: the checklist and the HTML report of the run on screen now use it").arg(path));
            return;
        case ResultsKind::ProfileReport: {
            endJob();
            const ProfileReport& report = *file->report;
            operators_->setRows(report.operators, report.spec.device.kind == DeviceKind::CUDA);
            kernels_->setRows({});
            run_panel_->setSpec(report.spec);
            timeline_->setData(nullptr);
            shown_.reset();
    shown_analysis_.reset();
            setWindowTitle(tr("Attention Workbench - %1").arg(name));
            status_->setText(tr("Opened %1: %2 operators, peak memory %3 (a report holds no events: open the chrome "
                                "trace written with it, attnwb profile --trace, for its timeline)")
                                 .arg(path)
                                 .arg(report.operators.size())
                                 .arg(format_bytes(report.peak_memory_bytes)));
            return;
        }
    }
}

void MainWindow::addRecent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("recent")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > 10) recent.removeLast();
    settings.setValue(QStringLiteral("recent"), recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    recent_menu_->clear();
    const QStringList recent = QSettings().value(QStringLiteral("recent")).toStringList();
    for (const QString& path : recent) recent_menu_->addAction(path, this, [this, path] { openFile(path); });
    recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
    for (const QUrl& url : e->mimeData()->urls())
        if (url.isLocalFile()) openFile(url.toLocalFile());
}

}  // namespace awb::ui
