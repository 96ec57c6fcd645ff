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

#include "analysis/results_text.h"
#include "attention_view.h"
#include "background.h"
#include "collectives_view.h"
#include "ranks_view.h"
#include "comparison_view.h"
#include "engine/device_caps.h"
#include "io/json_write.h"
#include "engine_worker.h"
#include "findings_view.h"
#include "format_qt.h"
#include "gpu_time_view.h"
#include "results/chrome_trace.h"
#include "results/measurement_json.h"
#include "results/run_json.h"
#include "kernel_panel.h"
#include "memory_snapshot_view.h"
#include "operator_panel.h"
#include "report/report_html.h"
#include "report/report_sources.h"
#include "run_modules.h"
#include "run_panel.h"
#include "scroll_area.h"
#include "session.h"
#include "sweep_chart.h"
#include "timeline_view.h"

namespace awb::ui {

namespace {
// "1 run", "3 runs".
QString counted(size_t n, const QString& one, const QString& many) {
    return QString::number(n) + QLatin1Char(' ') + (n == 1 ? one : many);
}

// "Opened sweep s.json: 12 points (NVIDIA H200)"; a merged one says from how many shards and hosts,
// a shard which part it is, and a sweep with points missing says so.
QString sweepOpenedText(const QString& path, const SweepResult& s) {
    QString text =
        QObject::tr("Opened sweep %1: %2 (%3)")
            .arg(path, QString::fromStdString(sweep_count_text(s)), QString::fromStdString(s.environment.device_name));
    if (!s.merged_from.empty())
        text += QObject::tr(", merged from %1 shards, ran on %2%3")
                    .arg(s.merged_from.size())
                    .arg(QString::fromStdString(s.environment.host))
                    .arg(s.mixed_environments ? QObject::tr(" (mixed environments: hover a point for where it ran)")
                                              : QString());
    if (!s.shard.whole())
        text += QObject::tr(", shard %1 of %2 (attnwb merge joins the shards)").arg(s.shard.index).arg(s.shard.count);
    return text;
}

// A graph replay opened with its captures: what was attributed, and the first file that could not
// serve ("; CUDA graph replay: 361 of 361 kernels attributed ... (25 of 25 graph launches matched)").
QString graphReplayText(const GraphReplayReport& r) {
    QString text = QStringLiteral("; ") + QString::fromStdString(graph_replay_summary(r));
    if (!r.problems.empty())
        text += QObject::tr("; %1 (hover for all)").arg(QString::fromStdString(r.problems.front()));
    return text;
}

QString graphReplayLines(const GraphReplayReport& r) {
    QStringList lines;
    for (const std::string& line : graph_replay_lines(r)) lines << QString::fromStdString(line);
    return lines.join(QLatin1Char('\n'));
}
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      engine_(new EngineThread(this)),
      session_(new Session(this)),
      run_panel_(new RunPanel(query_device_caps())),
      operators_(new OperatorPanel),
      kernels_(new KernelPanel),
      attention_(new AttentionView),
      gpu_time_(new GpuTimeView),
      collectives_(new CollectivesView),
      ranks_(new RanksView),
      findings_(new FindingsView),
      timeline_(new TimelineView),
      chart_(new SweepChart),
      comparison_(new ComparisonView),
      snapshot_(new MemorySnapshotView),
      timeline_scroll_(in_scroll_area(timeline_, false)),
      progress_(new QProgressBar),
      status_(new QLabel) {
    setWindowTitle(tr("Attention Workbench"));
    status_->setObjectName(QStringLiteral("status"));  // the status line (tests read it)
    setAcceptDrops(true);
    setCentralWidget(timeline_scroll_);

    const QList<QDockWidget*> docks = buildDocks();
    progress_->setMaximumWidth(220);
    progress_->setVisible(false);
    statusBar()->addWidget(status_, 1);
    statusBar()->addPermanentWidget(progress_);

    buildMenus(docks);

    connect(run_panel_, &RunPanel::runRequested, this, &MainWindow::startRun);
    connect(run_panel_, &RunPanel::cancelRequested, this, [this] { engine_->cancel(); });
    connect(run_panel_, &RunPanel::sweepRequested, this, &MainWindow::startSweep);
    connect(operators_, &OperatorPanel::operatorSelected, timeline_,
            &TimelineView::showName);  // highlighted and scrolled to
    connect(operators_, &OperatorPanel::operatorSelected, snapshot_,
            &MemorySnapshotView::showOperator);  // its blocks, when a snapshot is open
    connect(kernels_, &KernelPanel::kernelSelected, timeline_, &TimelineView::showName);
    connect(attention_, &AttentionView::callSelected, this, [this](int event, qint64 start_ns, qint64 end_ns) {
        const qint64 pad =
            std::max<qint64>(1000, (end_ns - start_ns) / 4);  // the call with a quarter of it either side
        timeline_->setView({start_ns - pad, end_ns + pad, 1});
        timeline_->selectEvent(event);
        if (const int y = timeline_->eventY(event); y >= 0)
            timeline_scroll_->ensureVisible(0, y, 0, 3 * TimelineView::kRowPx);
    });
    connectSession();
    connectEngine();

    restoreSettings();
    rebuildRecentMenu();
    status_->setText(tr("Ready: set a spec and press Run (Ctrl+R), or open a report (Ctrl+O)"));
}

// The docks are hidden as QWidget's destructor destroys them, after this one: their visibilityChanged
// must not reach a window that is no longer a MainWindow (UBSan: member access of a QWidget).
MainWindow::~MainWindow() {
    for (QDockWidget* tall : tall_docks_) tall->disconnect(this);
}

// The docks around the timeline: the run panel on the left, the tables and views as tabs below. Returns
// them in the order of the View menu.
QList<QDockWidget*> MainWindow::buildDocks() {
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
    auto* attention_dock = dock(tr("Attention"), "attention", attention_, Qt::BottomDockWidgetArea);
    auto* gpu_dock = dock(tr("GPU time"), "gpu-time", in_scroll_area(gpu_time_), Qt::BottomDockWidgetArea);
    auto* collectives_dock = dock(tr("Collectives"), "collectives", collectives_, Qt::BottomDockWidgetArea);
    auto* ranks_dock = dock(tr("Ranks"), "ranks", ranks_, Qt::BottomDockWidgetArea);
    auto* findings_dock = dock(tr("Findings and checklist"), "findings", findings_, Qt::BottomDockWidgetArea);
    auto* compare_dock = dock(tr("Compare runs"), "compare", in_scroll_area(comparison_), Qt::BottomDockWidgetArea);
    auto* chart_dock = dock(tr("Sweep charts"), "sweeps", in_scroll_area(chart_), Qt::BottomDockWidgetArea);
    snapshot_dock_ =
        dock(tr("Memory snapshot"), "memory-snapshot", in_scroll_area(snapshot_), Qt::BottomDockWidgetArea);
    // The bottom docks as tabs, in this order.
    QDockWidget* const bottom[] = {op_dock,          findings_dock, kernel_dock,  attention_dock, gpu_dock,
                                   collectives_dock, ranks_dock,    compare_dock, chart_dock,     snapshot_dock_};
    for (size_t i = 1; i < std::size(bottom); ++i) tabifyDockWidget(bottom[i - 1], bottom[i]);
    op_dock->raise();
    default_docks_ = {run_dock, op_dock};
    // The comparison (verdict, a table of rows, two timelines) and the memory snapshot (a chart over its
    // tables) need height: raised in a short dock, they get 3/5 of the window.
    // Judged once the raise is laid out (a hidden tab's height is stale).
    tall_docks_ = {compare_dock, snapshot_dock_};
    for (QDockWidget* tall : tall_docks_)
        connect(tall, &QDockWidget::visibilityChanged, this, [this, tall](bool visible) {
            if (visible) {
                tall_on_top_ = tall;
                QTimer::singleShot(0, this, [this, tall] { growTallDock(tall); });
            } else if (tall_on_top_ == tall) {
                tall_on_top_ = nullptr;
            }
        });
    return {run_dock,   op_dock,       kernel_dock, attention_dock, gpu_dock,      collectives_dock,
            ranks_dock, findings_dock, chart_dock,  compare_dock,   snapshot_dock_};
}

// The layout and the spec of the last session (QSettings), where they were saved.
void MainWindow::restoreSettings() {
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
}

void MainWindow::showEvent(QShowEvent* e) {
    QMainWindow::showEvent(e);
    if (layout_restored_ || default_docks_.size() != 2) return;
    // Default proportions at the first show (a saved layout replaces them): the run panel about
    // 380 px wide, the bottom docks a third of the height, the timeline the rest.
    const QList<QDockWidget*> docks = default_docks_;
    default_docks_.clear();
    QTimer::singleShot(0, this, [this, docks] {  // once the layout has its real size
        resizeDocks({docks[0]}, {380}, Qt::Horizontal);
        if (tall_on_top_)  // raised before this ran (a snapshot read at once): it keeps its height
            resizeDocks({tall_on_top_}, {height() * 3 / 5}, Qt::Vertical);
        else
            resizeDocks({docks[1]}, {height() / 3}, Qt::Vertical);
    });
}

void MainWindow::growTallDock(QDockWidget* tall) {
    if (tall == tall_on_top_ && !tall->isFloating() && tall->height() < height() / 2)
        resizeDocks({tall}, {height() * 3 / 5}, Qt::Vertical);
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

void MainWindow::connectSession() {
    connect(session_, &Session::runsChanged, this, [this] {
        // Every run of the session can be compared with any other.
        std::vector<NamedRun> numbered = session_->runs();
        for (size_t i = 0; i < numbered.size(); ++i)
            numbered[i].label = QStringLiteral("#%1 %2").arg(i + 1).arg(numbered[i].label);
        comparison_->setRuns(std::move(numbered));
    });
    // The views of the run on screen take it from the session themselves, the timeline first.
    session_->addView(timeline_);
    session_->addView(operators_);
    session_->addView(kernels_);
    session_->addView(attention_);
    session_->addView(gpu_time_);
    session_->addView(collectives_);
    session_->addView(ranks_);
    // A rank opened as a run of its own: analysed and shown as any run; Compare runs compares it with the others.
    connect(
        ranks_, &RanksView::rankRunRequested, this,
        [this](std::shared_ptr<const ProfileResult> run, const QString& label) { showResult(std::move(run), label); });
    connect(collectives_, &CollectivesView::collectiveSelected, this,
            [this](const std::vector<int>& events, qint64 first_ns, qint64 last_ns, const QString& label) {
                timeline_->setMarkedEvents(events, first_ns, last_ns, label);
                if (!events.empty())
                    if (const int y = timeline_->eventY(events.front()); y >= 0)
                        timeline_scroll_->ensureVisible(0, y, 0, 3 * TimelineView::kRowPx);
            });
    connect(session_, &Session::shownChanged, this, &MainWindow::displayShown);
    connect(session_, &Session::viewsShown, this, &MainWindow::explainShown);
    connect(session_, &Session::sweepsChanged, this, [this] {
        chart_->setSweeps(session_->sweeps());
        explainShown();
    });
    // The chart's list of sweeps: its check boxes and Remove change the session, which redraws the chart.
    connect(chart_, &SweepChart::sweepShownChanged, session_, &Session::setSweepShown);
    connect(chart_, &SweepChart::removeRequested, session_, &Session::removeSweeps);
    connect(session_, &Session::measurementsChanged, this, &MainWindow::explainShown);
}

void MainWindow::connectEngine() {
    connect(engine_, &EngineThread::progress, this, [this](int done, int total, const QString& what) {
        progress_->setRange(0, std::max(0, total));  // total 0: busy indicator (trace import)
        progress_->setValue(done);
        const qint64 elapsed = QDateTime::currentMSecsSinceEpoch() - run_started_ms_;
        QString eta;
        if (done > 0 && done < total)
            eta = tr(", about %1 left").arg(format_duration_ns(double(elapsed) * 1e6 * (total - done) / done));
        status_->setText(what + eta);
    });
    connect(engine_, &EngineThread::profileFinished, this, [this](std::shared_ptr<const ProfileResult> r) {
        endJob();
        showResult(r);  // sets the status line
    });
    connect(engine_, &EngineThread::checkFinished, this, [this](std::shared_ptr<const CheckReport> r) {
        double worst = 0;
        for (const auto& v : r->variants)
            for (const auto& t : v.tensors) worst = std::max(worst, t.error);
        finishRun(tr("Check of %1 in %2: %3 (worst error %4 of max |ref|, tolerance %5)")
                      .arg(QString::fromStdString(r->variants.empty() ? std::string() : r->variants[0].variant),
                           QString::fromStdString(to_string(r->spec.dtype)),
                           r->all_passed() ? tr("within tolerance") : tr("OUT OF TOLERANCE"))
                      .arg(worst, 0, 'e', 2)
                      .arg(r->tolerance, 0, 'e', 1));
        session_->setCheck(std::move(r));
    });
    connect(engine_, &EngineThread::failed, this, [this](const QString& title, const QString& message) {
        finishRun(title + tr("; what was shown is kept"));
        QMessageBox::warning(this, title, message);
    });
    connect(engine_, &EngineThread::cancelled, this, [this] { finishRun(tr("Cancelled; earlier results are kept")); });
    connect(engine_, &EngineThread::mixedRuns, this, &MainWindow::offerSeparateRuns);
    connect(engine_, &EngineThread::resultsOpened, this, &MainWindow::showOpened);
    connect(engine_, &EngineThread::workspaceSaved, this, [this](const QString& path) {
        finishRun(tr("Saved workspace %1 (%2, %3)")
                      .arg(path, counted(session_->runs().size(), tr("run"), tr("runs")),
                           counted(session_->sweeps().size(), tr("sweep"), tr("sweeps"))));
        addRecent(path);
    });
    connect(engine_, &EngineThread::workspaceLoaded, this,
            [this](std::shared_ptr<const Workspace> w, const QString& path) {
                endJob();
                restoreWorkspace(std::move(w), path);
            });
    connect(engine_, &EngineThread::sweepPoint, this, [this](const SweepPoint& point, int index, int total) {
        session_->addLivePoint(point);
        if (point.status != PointStatus::Ok)
            statusBar()->showMessage(
                tr("Point %1/%2 %3: %4")
                    .arg(index + 1)
                    .arg(total)
                    .arg(QString::fromStdString(to_string(point.status)), QString::fromStdString(point.reason)),
                8000);
    });
    connect(engine_, &EngineThread::sweepFinished, this, [this](std::shared_ptr<const SweepResult> r) {
        session_->finishLiveSweep(*r);
        finishRun(tr("Sweep: %1 (File > Save sweep keeps it)").arg(QString::fromStdString(sweep_count_text(*r))));
    });
}

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
    beginJob(
        tr("Running %1 %2...").arg(QString::fromStdString(spec.variant), QString::fromStdString(shape_string(spec))));
    engine_->profile(spec, options);
}

void MainWindow::startSweep(const SweepPlan& plan) {
    session_->startLiveSweep(plan);
    beginJob(tr("Sweep of %1 points...").arg(session_->liveSweep().planned_points));
    engine_->sweep(plan);
}

bool MainWindow::saveSweep(const QString& path, QString* error) const {
    const SweepResult& live = session_->liveSweep();
    if (live.points.empty()) {
        if (error) *error = tr("No sweep has run in this window yet");
        return false;
    }
    const std::shared_ptr<const SweepAnalysis> analysis = session_->liveAnalysis();
    return write_reporting(
        error, [&] { write_text_file(path.toStdString(), our_file_text(sweep_file_json(live, *analysis))); });
}

void MainWindow::finishRun(const QString& message) {
    endJob();
    status_->setText(message);
}

bool MainWindow::exportTrace(const QString& path, QString* error) const {
    const std::shared_ptr<const ProfileResult>& shown = session_->shown().result;
    if (!shown) {
        if (error) *error = tr("No run on screen: run a spec first");
        return false;
    }
    return write_reporting(error, [&] {
        write_chrome_trace(shown->trace, run_trace_info(*shown, "attention-workbench"), path.toStdString());
    });
}

bool MainWindow::exportReport(const QString& path, QString* error) const {
    const NamedRun& shown = session_->shown();
    if (!shown.result) {
        if (error) *error = tr("No run on screen: run a spec first");
        return false;
    }
    return write_reporting(error, [&] {
        ReportSources sources;  // the run's analysis when it has not arrived yet
        sources.run = shown.result;
        sources.analysis = shown.analysis;
        complete_sources(sources);
        write_text_file(path.toStdString(), our_file_text(to_json(*sources.profile)));
    });
}

void MainWindow::showResult(std::shared_ptr<const ProfileResult> result, const QString& label) {
    QString name = !label.isEmpty() ? label
                                    : QStringLiteral("%1 %2 %3 %4")
                                          .arg(QString::fromStdString(result->spec.variant),
                                               QString::fromStdString(shape_string(result->spec)),
                                               QString::fromStdString(to_string(result->spec.dtype)),
                                               QString::fromStdString(to_string(result->spec.mode)));
    // Stopped while recording: what was recorded is kept, and says so.
    if (result->interrupted && label.isEmpty()) name += tr(" (stopped after step %1)").arg(result->steps.size());
    if (is_large(result->trace))
        status_->setText(tr("Analysing %1 events of %2...").arg(result->trace.events().size()).arg(name));
    session_->analyseAndAdd(std::move(result), name);
}

void MainWindow::displayShown() {
    const NamedRun& run = session_->shown();
    const std::shared_ptr<const ProfileResult>& result = run.result;
    // The memory snapshot's Operators page names the operators of the run on screen.
    snapshot_->setTrace(result ? std::shared_ptr<const Trace>(result, &result->trace) : nullptr, run.label);
    if (!result) return;        // nothing on screen (a workspace without runs, a profile report without events)
    if (!result->spec_known) {  // an imported trace: no spec of ours to name it by; the status line says how opened
        setWindowTitle(tr("Attention Workbench - %1").arg(run.label));
        noteTraceFacts();
        return;
    }
    setWindowTitle(
        tr("Attention Workbench - %1 %2")
            .arg(QString::fromStdString(result->spec.variant), QString::fromStdString(shape_string(result->spec))));
    status_->setToolTip(environment_modules_text(result->environment));  // a module run: which file, its sha256
    status_->setText(tr("%1 %2 %3: %4 events, median recorded step %5 (profiler on)")
                         .arg(QString::fromStdString(result->spec.variant),
                              QString::fromStdString(shape_string(result->spec)),
                              QString::fromStdString(to_string(result->spec.dtype)))
                         .arg(result->trace.events().size())
                         .arg(format_duration_ns(median_recorded_step_ns(*result))));
}

// An imported trace's status line says, once (the run may be shown again), that a capture trace's
// kernels did not run, and how many kinds of trouble its events show (the Findings tab lists them).
void MainWindow::noteTraceFacts() {
    const NamedRun& run = session_->shown();
    if (!run.result || run.result->spec_known || !run.analysis) return;
    QStringList notes;
    notes << QString::fromStdString(graph_capture_note(run.analysis->capture));
    const std::vector<std::string> quality = quality_lines(run.analysis->quality);
    const auto problems =
        std::count_if(quality.begin(), quality.end(), [](const std::string& l) { return l.rfind("  ", 0) != 0; });
    if (problems > 0) notes << tr("trace quality: %n problem(s), see Findings", nullptr, int(problems));
    for (const QString& note : notes)
        if (!note.isEmpty() && !status_->text().contains(note))
            status_->setText(status_->text() + QStringLiteral("; ") + note);
}

void MainWindow::explainShown() {
    // The advisor and the checklist read the run with its sweep (a large trace: on the thread pool, like the tables).
    const ReportSources shown = session_->reportSources();
    const std::shared_ptr<const ProfileResult>& result = shown.run;
    const std::shared_ptr<const RunAnalysis>& analysis = shown.analysis;
    const std::shared_ptr<const SweepResult>& sweep = shown.sweep;
    const std::shared_ptr<const BenchResult>& bench = shown.bench;
    const std::shared_ptr<const CheckReport>& check = shown.check;
    if (!shown.measured()) {
        findings_->setExplanation({}, tr("Nothing measured yet"));
        return;
    }
    QString subject =
        result  ? (result->spec_known ? QStringLiteral("%1 %2").arg(QString::fromStdString(result->spec.variant),
                                                                    QString::fromStdString(shape_string(result->spec)))
                                      : tr("Imported trace"))
        : sweep ? tr("Sweep of %1 points").arg(sweep->points.size())
                : tr("Benchmark and check results");
    if (result && sweep) subject += tr(", with the sweep of %1 points on the chart").arg(sweep->points.size());
    if (bench)
        subject += tr(", a benchmark of %1")
                       .arg(QString::fromStdString(bench->spec.variant + " " + shape_string(bench->spec)));
    if (check)
        subject += tr(", a check of %1")
                       .arg(QString::fromStdString(check->variants.empty() ? "-" : check->variants[0].variant));
    compute_then(
        this, result && is_large(result->trace),
        [shown] { return explain_sources(shown); },  // as the HTML report of it judges them
        [this, result, analysis, subject](const Explanation& explanation) {
            if (session_->shown().result == result)
                findings_->setExplanation(explanation, subject,
                                          analysis ? quality_lines(analysis->quality) : std::vector<std::string>{});
        });
}

bool MainWindow::exportHtmlReport(const QString& path, QString* error) {
    const NamedRun& shown = session_->shown();
    ReportSources sources = session_->reportSources();
    if (!sources.measured()) {
        if (error) *error = tr("Nothing to report: run a spec or a sweep, or open a trace");
        return false;
    }
    auto write = [shown_sources = std::move(sources), file = path.toStdString()] {
        ReportSources complete = shown_sources;  // what is computed here (a run's analysis) is this report's
        complete_sources(complete);
        ReportInput in = report_input(complete, explain_sources(complete));
        in.generated_by = "attention-workbench";
        write_html_report(in, file);
    };
    if (shown.result && is_large(shown.result->trace)) {
        status_->setText(tr("Writing report %1...").arg(path));
        compute_then(
            this, true,
            [write] {
                QString failure;
                write_reporting(&failure, write);
                return failure;
            },
            [this, path](const QString& failure) {
                if (failure.isEmpty())
                    status_->setText(tr("Wrote report %1").arg(path));
                else
                    QMessageBox::warning(this, tr("Export failed"), failure);
            });
        return true;
    }
    return write_reporting(error, write);
}

std::shared_ptr<const Workspace> MainWindow::workspace() const {
    std::vector<std::string> modules;
    for (const QString& path : run_panel_->modulePaths()) modules.push_back(path.toStdString());
    return session_->toWorkspace(run_panel_->spec(), std::move(modules));
}

void MainWindow::saveWorkspace(const QString& path) {
    beginJob(tr("Saving workspace %1...").arg(path));
    engine_->saveWorkspace(workspace(), path);
}

void MainWindow::restoreWorkspace(std::shared_ptr<const Workspace> workspace, const QString& path) {
    session_->analyseAndRestore(workspace, [this, workspace, path] { showRestored(*workspace, path); });
}

void MainWindow::showRestored(const Workspace& w, const QString& path) {
    QStringList modules;
    for (const std::string& path : w.panel_modules) modules << QString::fromStdString(path);
    run_panel_->setModules(modules);  // before the spec, which may select one of them
    run_panel_->setSpec(w.panel_spec);
    setWindowTitle(tr("Attention Workbench - %1").arg(QFileInfo(path).fileName()));
    status_->setText(tr("Opened workspace %1: %2, %3")
                         .arg(path, counted(w.runs.size(), tr("run"), tr("runs")),
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

bool MainWindow::openFiles(const QStringList& paths) {
    if (paths.size() == 1) return openFile(paths.front());
    for (const QString& path : paths)
        if (!QFileInfo::exists(path)) {
            QMessageBox::warning(this, tr("Cannot open file"), tr("%1:\nno such file or folder").arg(path));
            return false;
        }
    beginJob(tr("Opening %1 traces (the ranks of a run, or a graph replay with its capture)...").arg(paths.size()));
    engine_->openSelection(paths);
    return true;
}

void MainWindow::offerSeparateRuns(const QString& message, const QList<QStringList>& runs) {
    finishRun(tr("Not one run: %1 runs among the files; what was shown is kept").arg(runs.size()));
    const auto answer = QMessageBox::question(this, tr("Not the ranks of one run"),
                                              message + tr("\n\nOpen them as %1 separate runs?").arg(runs.size()),
                                              QMessageBox::Open | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer != QMessageBox::Open) return;
    for (const QStringList& run : runs) openFiles(run);  // each one run (or one file): opened as such
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
                                 .arg(run->trace.memory().size()) +
                             (file->graph_replay ? graphReplayText(*file->graph_replay) : QString()));
            status_->setToolTip(file->graph_replay ? graphReplayLines(*file->graph_replay) : QString());
            noteTraceFacts();  // when its analysis is already here (a small trace); else when it arrives
            return;
        }
        case ResultsKind::Workspace:  // the engine says workspaceLoaded for these
            endJob();
            restoreWorkspace(file->workspace, path);
            return;
        case ResultsKind::Sweep:
            endJob();
            session_->addSweep(*file->sweep, name);
            status_->setText(sweepOpenedText(path, *file->sweep));
            return;
        case ResultsKind::Bench:
        case ResultsKind::Check:
            endJob();
            if (file->bench) session_->setBench(std::shared_ptr<const BenchResult>(file, &*file->bench));
            if (file->check) session_->setCheck(std::shared_ptr<const CheckReport>(file, &*file->check));
            status_->setText(
                tr("Opened %1: the checklist and the HTML report of the run on screen now use it").arg(path));
            return;
        case ResultsKind::MemorySnapshot:
            endJob();
            snapshot_->setSnapshot(file->snapshot, name, file->snapshot_timeline);
            snapshot_dock_->show();
            snapshot_dock_->raise();
            status_->setText(tr("Opened memory snapshot %1 (pickle protocol %2): see the Memory snapshot tab")
                                 .arg(path)
                                 .arg(file->snapshot->pickle_protocol));
            return;
        case ResultsKind::ProfileReport: {
            endJob();
            const ProfileReport& report = *file->report;
            session_->clearShown();  // no events: no timeline or kernels, only the report's operator table
            operators_->setRows(report.operators, report.device_columns);
            run_panel_->setSpec(report.spec);
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
