// The workbench window: run panel (left dock), operator table (bottom dock), timeline (centre),
// toolbar and File menu (main_window_menus.cpp); runs go to the engine thread, what they produce goes
// to the window's Session, whose signals the panels follow; window layout, last spec and recent files
// are restored from QSettings.
#pragma once

#include <QMainWindow>

#include <memory>

#include "analysis/run_analysis.h"
#include "model/profile_result.h"
#include "model/sweep.h"
#include "results/results_file.h"
#include "results/workspace.h"

class QDockWidget;
class QLabel;
class QProgressBar;
class QScrollArea;
class QMenu;

namespace awb::ui {

class ComparisonView;
class EngineThread;
class FindingsView;
class CollectivesView;
class RanksView;
class GpuTimeView;
class KernelPanel;
class MemorySnapshotView;
class AttentionView;
class OperatorPanel;
class RunPanel;
class Session;
class SweepChart;
class TimelineView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;
    // Opens any results file or trace on the engine thread (true: the job is queued; a failure shows
    // one message titled with what failed and keeps what is on screen).
    bool openFile(const QString& path);
    // Several files at once (File > Open's multi-selection): a graph replay and its capture traces, read
    // on the engine thread into one trace whose replayed kernels name the ops of the capture.
    bool openFiles(const QStringList& paths);
    bool saveSweep(const QString& path, QString* error = nullptr) const;  // the last sweep run here
    // The session (runs with their traces, sweeps on the chart, the run panel's spec, the run on
    // screen), written on the engine thread; File > Open of the file brings it back.
    void saveWorkspace(const QString& path);
    std::shared_ptr<const Workspace> workspace() const;
    // The run on screen as a chrome trace (Perfetto, chrome://tracing) or its profile report (JSON).
    bool exportTrace(const QString& path, QString* error = nullptr) const;
    bool exportReport(const QString& path, QString* error = nullptr) const;
    // A self-contained HTML report of the run on screen (or, without one, of the sweep on the chart):
    // environment, spec, checklist, findings, operators, charts; the sweep covering the run goes in too.
    // For a large trace it is written on the thread pool (true: started; a failure shows a message).
    bool exportHtmlReport(const QString& path, QString* error = nullptr);
    // label names the run in the comparison (default: its variant and shape)
    void showResult(std::shared_ptr<const ProfileResult> result, const QString& label = {});
    // The advisor's findings and the measurement checklist of the run on screen with the sweep on the
    // chart that covers it, into the Findings tab (done on every change of the session).
    void explainShown();
    // Runs, the run on screen, sweeps, benchmark and check of this window (tests add to it directly).
    Session* session() const { return session_; }
    RunPanel* runPanel() const { return run_panel_; }
    OperatorPanel* operatorPanel() const { return operators_; }
    KernelPanel* kernelPanel() const { return kernels_; }
    AttentionView* attention() const { return attention_; }
    GpuTimeView* gpuTime() const { return gpu_time_; }
    CollectivesView* collectives() const { return collectives_; }
    RanksView* ranks() const { return ranks_; }
    FindingsView* findings() const { return findings_; }
    TimelineView* timeline() const { return timeline_; }
    SweepChart* sweepChart() const { return chart_; }
    ComparisonView* comparison() const { return comparison_; }
    MemorySnapshotView* memorySnapshot() const { return snapshot_; }
    EngineThread* engine() const { return engine_; }

protected:
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    void growTallDock(QDockWidget* tall);  // to 3/5 of the window when it is on top, docked and shorter than half
    // A capture trace on screen: the status line says its graphs' launches did not run (once).
    void noteTraceFacts();
    void startRun(const RunSpec& spec, const ProfileOptions& options);
    void startSweep(const SweepPlan& plan);
    void showOpened(std::shared_ptr<const ResultsFile> file, const QString& path);
    void beginJob(const QString& status);  // a job went to the engine thread: progress on, Run off
    void endJob();
    void finishRun(const QString& message);  // endJob() and a status line
    // main_window_menus.cpp: the menus (File with its Export submenu, View) and the main toolbar.
    QList<QDockWidget*> buildDocks();  // in the View menu's order
    void restoreSettings();
    void buildMenus(const QList<QDockWidget*>& docks);
    // Files chosen together that are several runs: the reason, and each run opened by itself if the user says so.
    void offerSeparateRuns(const QString& message, const QList<QStringList>& runs);
    void buildExportMenu(QMenu* exports);
    void buildToolBar();
    void connectSession();  // the panels follow the session
    void connectEngine();   // what the engine thread reports goes to the session and the status line
    void displayShown();    // the title and status line of the shown run (its views follow the session)
    void restoreWorkspace(std::shared_ptr<const Workspace> workspace, const QString& path);
    void showRestored(const Workspace& workspace, const QString& path);  // the run panel, title and status
    void addRecent(const QString& path);
    void rebuildRecentMenu();

    EngineThread* engine_;
    Session* session_;
    RunPanel* run_panel_;
    OperatorPanel* operators_;
    KernelPanel* kernels_;
    AttentionView* attention_;
    GpuTimeView* gpu_time_;
    CollectivesView* collectives_;
    RanksView* ranks_;
    FindingsView* findings_;
    TimelineView* timeline_;
    SweepChart* chart_;
    ComparisonView* comparison_;
    MemorySnapshotView* snapshot_;
    QDockWidget* snapshot_dock_ = nullptr;
    QScrollArea* timeline_scroll_;
    QProgressBar* progress_;
    QLabel* status_;
    QMenu* recent_menu_;
    qint64 run_started_ms_ = 0;
    bool layout_restored_ = false;
    QList<QDockWidget*> default_docks_;   // sized at the first show when no layout was saved
    QList<QDockWidget*> tall_docks_;      // the comparison and the memory snapshot
    QDockWidget* tall_on_top_ = nullptr;  // the comparison or the memory snapshot when raised: 3/5 of the window
};

}  // namespace awb::ui
