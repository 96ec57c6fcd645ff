// The engine thread: one QObject living on its own QThread owns every LibTorch call of the GUI
// (one owner of LibTorch state). Jobs are queued to it by signals; it reports progress, results and
// failures by signals; cancel is an atomic flag the core polls between steps.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QThread>

#include <atomic>
#include <memory>
#include <mutex>

#include "engine/correctness.h"
#include "engine/profiler_session.h"
#include "io/results_file.h"
#include "io/workspace.h"
#include "model/sweep.h"

Q_DECLARE_METATYPE(awb::RunSpec)
Q_DECLARE_METATYPE(awb::ProfileOptions)
Q_DECLARE_METATYPE(std::shared_ptr<const awb::ProfileResult>)
Q_DECLARE_METATYPE(awb::SweepPlan)
Q_DECLARE_METATYPE(awb::SweepPoint)
Q_DECLARE_METATYPE(std::shared_ptr<const awb::SweepResult>)
Q_DECLARE_METATYPE(std::shared_ptr<const awb::Workspace>)
Q_DECLARE_METATYPE(std::shared_ptr<const awb::CheckReport>)
Q_DECLARE_METATYPE(std::shared_ptr<const awb::ResultsFile>)

namespace awb::ui {

class EngineWorker : public QObject {
    Q_OBJECT
public:
    EngineWorker();
    void requestCancel() { cancel_ = true; }

public slots:
    void runProfile(const awb::RunSpec& spec, const awb::ProfileOptions& options);
    void runSweep(const awb::SweepPlan& plan);
    // Any file the workbench opens (open_results_file): a trace, a profile report, a benchmark, a
    // sweep, a check; a workspace is recognised here and then read by runLoadWorkspace.
    void runOpen(const QString& path);
    // Several traces opened together: a graph replay and its capture traces (open_replay_selection).
    void runOpenSelection(const QStringList& paths);
    void runSaveWorkspace(std::shared_ptr<const awb::Workspace> workspace, const QString& path);
    void runLoadWorkspace(const QString& path);
    void runCheck(const awb::RunSpec& spec);  // spec's variant against the float64 reference

signals:
    void checkFinished(std::shared_ptr<const awb::CheckReport> report);
    void sweepPoint(const awb::SweepPoint& point, int index, int total);  // as each point finishes
    void sweepFinished(std::shared_ptr<const awb::SweepResult> result);  // also after a cancel: what finished
    void progress(int done, int total, const QString& what);
    void profileFinished(std::shared_ptr<const awb::ProfileResult> result);
    void resultsOpened(std::shared_ptr<const awb::ResultsFile> file, const QString& path);
    void workspaceSaved(const QString& path);
    void workspaceLoaded(std::shared_ptr<const awb::Workspace> workspace, const QString& path);
    // Invalid input, an unreadable file or a LibTorch failure: what failed ("Cannot open trace") and
    // one message naming the file or field and the problem.
    void failed(const QString& title, const QString& message);
    void cancelled();

protected:
    bool event(QEvent* e) override;

private:
    template <typename Job>
    void runJob(const QString& title, const QString& invalid_prefix, Job&& job);
    std::atomic<bool> cancel_{false};
};

// Owns the worker and its thread; call from the GUI thread. Its signals are the worker's, delivered on
// the GUI thread: connect views to these (the worker's own signals are emitted on the engine thread, for
// direct connections that must act between two steps, like a Stop after step k).
//
// Every crossing between the two threads also passes through one lock (crossing_lock()): the sender
// holds it while it posts (a queued call copies its arguments then), the receiver takes it in event()
// before any slot reads them. Qt's own locks, which order the same crossings, are invisible to
// ThreadSanitizer in a Qt built without it (Debian's); this lock makes that order visible, so that the
// sanitized build checks our data without false reports, at the cost of one uncontended lock per signal.
class Engine : public QObject {
    Q_OBJECT
public:
    explicit Engine(QObject* parent = nullptr);
    ~Engine() override;
    EngineWorker* worker() const { return worker_; }
    void profile(const RunSpec& spec, const ProfileOptions& options);
    void sweep(const SweepPlan& plan);
    void open(const QString& path);  // resultsOpened, or failed("Cannot open ...")
    void openSelection(const QStringList& paths);  // a graph replay with its captures: the same signals
    void saveWorkspace(std::shared_ptr<const Workspace> workspace, const QString& path);
    void loadWorkspace(const QString& path);
    void check(const RunSpec& spec);
    void cancel() { worker_->requestCancel(); }

signals:
    // The worker's signals, on the GUI thread (see EngineWorker for each).
    void checkFinished(std::shared_ptr<const awb::CheckReport> report);
    void sweepPoint(const awb::SweepPoint& point, int index, int total);
    void sweepFinished(std::shared_ptr<const awb::SweepResult> result);
    void progress(int done, int total, const QString& what);
    void profileFinished(std::shared_ptr<const awb::ProfileResult> result);
    void resultsOpened(std::shared_ptr<const awb::ResultsFile> file, const QString& path);
    void workspaceSaved(const QString& path);
    void workspaceLoaded(std::shared_ptr<const awb::Workspace> workspace, const QString& path);
    void failed(const QString& title, const QString& message);
    void cancelled();

    // To the worker (queued).
    void queueProfile(const awb::RunSpec& spec, const awb::ProfileOptions& options);
    void queueSweep(const awb::SweepPlan& plan);
    void queueOpen(const QString& path);
    void queueOpenSelection(const QStringList& paths);
    void queueSaveWorkspace(std::shared_ptr<const awb::Workspace> workspace, const QString& path);
    void queueLoadWorkspace(const QString& path);
    void queueCheck(const awb::RunSpec& spec);

protected:
    bool event(QEvent* e) override;

private:
    // Connects the worker's signal `from` to emitting `to` on the GUI thread, posted under the lock.
    template <typename... Args>
    void forward(void (EngineWorker::*from)(Args...), void (Engine::*to)(Args...));
    // Emits a queue* signal to the worker, holding the lock.
    template <typename... Params, typename... Args>
    void post(void (Engine::*queue)(Params...), Args&&... args);
    QThread thread_;
    EngineWorker* worker_;
};

// The lock every crossing between the GUI and the engine thread passes through (see Engine).
std::recursive_mutex& crossing_lock();

}  // namespace awb::ui
