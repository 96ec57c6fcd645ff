// What one workbench window holds: the runs of the session (labelled, each with its analysis), the
// run on screen, the sweeps on the chart (or the sweep running here), the last benchmark and the last
// correctness check. The window changes it; the panels observe it: the views of the run on screen (the
// timeline and the tables) are added to it and take each shown run themselves, the comparison follows
// runsChanged, the chart sweepsChanged, the findings every change. No widgets of its own, no engine: a
// workspace is its saved form.
#pragma once

#include <QObject>
#include <QPointer>

#include <functional>
#include <memory>
#include <vector>

#include "model/bench_stats.h"
#include "model/check_report.h"
#include "report/report_sources.h"
#include "results/workspace.h"
#include "run_view.h"
#include "session_types.h"

namespace awb::ui {

class Session : public QObject {
    Q_OBJECT
public:
    explicit Session(QObject* parent = nullptr);

    const std::vector<NamedRun>& runs() const { return runs_; }
    // The run on screen (null result: none; a profile report opened without events shows none).
    const NamedRun& shown() const { return shown_ >= 0 ? runs_[size_t(shown_)] : none_; }
    // Every sweep of the session, in the order added (opened, run here, restored), shown or not.
    const std::vector<LabelledSweep>& sweeps() const { return sweeps_; }
    std::vector<LabelledSweep> shownSweeps() const;               // the ones on the chart
    const SweepResult& liveSweep() const { return live_sweep_; }  // the sweep running or last run here
    const std::shared_ptr<const BenchResult>& bench() const { return bench_; }
    const std::shared_ptr<const CheckReport>& check() const { return check_; }
    // The shown sweep with the most points on the run's curve (null when none covers it); with no run,
    // the last shown sweep that has points.
    std::shared_ptr<const SweepResult> sweepFor(const ProfileResult* run) const;
    // The analysis kept beside a sweep of the session (null for a sweep it does not hold).
    std::shared_ptr<const SweepAnalysis> analysisOf(const SweepResult* sweep) const;
    // What the findings panel and the HTML report judge: the shown run with its analysis, the sweep on its
    // curve (sweepFor) with its analysis, the benchmark and the check.
    ReportSources reportSources() const;
    // The live sweep's: its entry's, or computed when the entry was removed while it ran.
    std::shared_ptr<const SweepAnalysis> liveAnalysis() const;

    // A view of the run on screen follows the session (as RenderDoc's viewers register with it): each
    // time the shown run changes it gets it, in the order added (the first at once), one per event-loop
    // turn for a large trace so the window answers in between, and none once another run is on screen;
    // viewsShown after the last. A view destroyed before the session is dropped.
    template <typename View>
    void addView(View* view) {
        views_.push_back({QPointer<QObject>(view), view});
    }

    void addRun(NamedRun run, bool show = true);  // runsChanged, then shownChanged when shown
    // A run that arrives (run here, or a trace opened): its analysis computed once (off the GUI thread for
    // a large trace), then added and shown; every view, the advisor, the comparison and the reports share it.
    void analyseAndAdd(std::shared_ptr<const ProfileResult> result, const QString& label);
    void clearShown();                                       // shownChanged
    void addSweep(SweepResult sweep, const QString& label);  // sweepsChanged
    void setSweepShown(int index, bool shown);               // sweepsChanged
    void removeSweeps(std::vector<int> indices);             // sweepsChanged; nothing else is touched
    void clearSweeps();
    // A sweep starts in this window: a new entry of the list (named by its spec and the time it started),
    // shown with those already shown, that grows point by point until finishLiveSweep puts the engine's
    // result in its place (sweepsChanged each time). The sweeps before it stay as they were.
    void startLiveSweep(const SweepPlan& plan);
    void addLivePoint(const SweepPoint& point);
    void finishLiveSweep(SweepResult result);
    void setBench(std::shared_ptr<const BenchResult> bench);  // measurementsChanged
    void setCheck(std::shared_ptr<const CheckReport> check);
    // Replaces everything with a workspace's contents (analyses: one per run, in order); every signal.
    void restore(const Workspace& workspace, const std::vector<std::shared_ptr<const RunAnalysis>>& analyses);
    // A workspace opened: each run's analysis as for a run that arrives (off the GUI thread when the runs
    // are large), then restore, then restored (on the GUI thread).
    void analyseAndRestore(std::shared_ptr<const Workspace> workspace, std::function<void()> restored);
    // The saved form; panel_spec and panel_modules are the run panel's, which the session does not hold.
    std::shared_ptr<const Workspace> toWorkspace(const RunSpec& panel_spec,
                                                 std::vector<std::string> panel_modules = {}) const;

signals:
    void runsChanged();
    void shownChanged();
    void sweepsChanged();
    void measurementsChanged();  // the benchmark or the check
    void viewsShown();           // every added view has the shown run

private:
    void setLive();
    void changeShown();  // shownChanged, then the views
    struct View {
        QPointer<QObject> alive;
        RunView* view;
    };
    std::vector<View> views_;
    QString nextTag() { return QStringLiteral("S%1").arg(next_tag_++); }
    std::vector<NamedRun> runs_;
    int shown_ = -1;  // index into runs_, -1 for none
    NamedRun none_;   // what shown() returns when no run is on screen
    std::vector<LabelledSweep> sweeps_;
    SweepResult live_sweep_;
    int live_index_ = -1;  // the live sweep's place in sweeps_, -1 when it has none (removed, or none ran)
    int next_tag_ = 1;     // S1, S2, ...: each sweep's tag, never reused in a session
    std::shared_ptr<const BenchResult> bench_;
    std::shared_ptr<const CheckReport> check_;
};

}  // namespace awb::ui
