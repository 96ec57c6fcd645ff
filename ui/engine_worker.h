// The engine thread: one QObject living on its own QThread owns every LibTorch call of the GUI
// (one owner of LibTorch state). Jobs are posted to it one way (EngineThread::submit); it reports progress,
// results and failures by signals; cancel is an atomic flag the core polls between steps.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QThread>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

#include "engine/correctness.h"
#include "engine/profiler_session.h"
#include "model/sweep.h"
#include "results/results_file.h"
#include "results/workspace.h"

Q_DECLARE_METATYPE(std::shared_ptr<const awb::ProfileResult>)
Q_DECLARE_METATYPE(awb::SweepPoint)
Q_DECLARE_METATYPE(std::shared_ptr<const awb::SweepResult>)
Q_DECLARE_METATYPE(std::shared_ptr<const awb::Workspace>)
Q_DECLARE_METATYPE(std::shared_ptr<const awb::CheckReport>)
Q_DECLARE_METATYPE(std::shared_ptr<const awb::ResultsFile>)

namespace awb::ui {

class EngineThread;
// A job for the engine thread: it runs there with an observer (progress, points, cancel) and returns
// what to do with its result on the GUI thread (emit the EngineThread signal that carries it).
using EngineDelivery = std::function<void(EngineThread&)>;
using EngineJob = std::function<EngineDelivery(SweepObserver&)>;

class EngineWorker : public QObject {
    Q_OBJECT
public:
    EngineWorker();
    void requestCancel() { cancel_ = true; }
    // Runs a job (on the engine thread): a fresh cancel flag, then delivered, cancelled or failed(title, ...)
    // (InvalidInput's message after invalid_prefix).
    void run(const QString& title, const QString& invalid_prefix, const EngineJob& job);

signals:
    void sweepPoint(const awb::SweepPoint& point, int index, int total);  // as each point finishes
    void progress(int done, int total, const QString& what);
    void delivered(const awb::ui::EngineDelivery& deliver);  // a job's result, for the GUI thread
    // Invalid input, an unreadable file or a LibTorch failure: what failed ("Cannot open trace") and
    // one message naming the file or field and the problem.
    void failed(const QString& title, const QString& message);
    void cancelled();

protected:
    bool event(QEvent* e) override;

private:
    std::atomic<bool> cancel_{false};
};

// Owns the worker and its thread; call from the GUI thread. Each job is posted the same way (submit);
// its result comes back as one of the signals below, delivered on the GUI thread: connect views to these
// (the worker's own signals are emitted on the engine thread, for direct connections that must act
// between two steps, like a Stop after step k).
//
// Every crossing between the two threads also passes through one lock (crossing_lock()): the sender
// holds it while it posts (a queued call copies its arguments then), the receiver takes it in event()
// before any slot reads them. Qt's own locks, which order the same crossings, are invisible to
// ThreadSanitizer in a Qt built without it (Debian's); this lock makes that order visible, so that the
// sanitized build checks our data without false reports, at the cost of one uncontended lock per signal.
class EngineThread : public QObject {
    Q_OBJECT
public:
    explicit EngineThread(QObject* parent = nullptr);
    ~EngineThread() override;
    EngineWorker* worker() const { return worker_; }
    void profile(const RunSpec& spec, const ProfileOptions& options);  // profileFinished
    void sweep(const SweepPlan& plan);                                 // sweepPoint..., sweepFinished
    // Any file the workbench opens (open_results_file): a trace, a profile report, a benchmark, a sweep,
    // a check (resultsOpened); a workspace, read in the same pass (workspaceLoaded); or failed.
    void open(const QString& path);
    // Several traces opened together: the ranks of one run, or a graph replay and its capture traces
    // (open_trace_selection).
    void openSelection(const QStringList& paths);
    void saveWorkspace(std::shared_ptr<const Workspace> workspace, const QString& path);  // workspaceSaved
    void check(const RunSpec& spec);  // spec's variant against the float64 reference: checkFinished
    void cancel() { worker_->requestCancel(); }

signals:
    void checkFinished(std::shared_ptr<const awb::CheckReport> report);
    void sweepPoint(const awb::SweepPoint& point, int index, int total);
    void sweepFinished(std::shared_ptr<const awb::SweepResult> result);  // also after a cancel: what finished
    void progress(int done, int total, const QString& what);
    void profileFinished(std::shared_ptr<const awb::ProfileResult> result);
    void resultsOpened(std::shared_ptr<const awb::ResultsFile> file, const QString& path);
    void workspaceSaved(const QString& path);
    void workspaceLoaded(std::shared_ptr<const awb::Workspace> workspace, const QString& path);
    void failed(const QString& title, const QString& message);
    // Files opened together that are the ranks of several runs (MixedRunsError): what they are and why,
    // and the files of each run, to open them one by one if the user says so.
    void mixedRuns(const QString& message, const QList<QStringList>& runs);
    void cancelled();

protected:
    bool event(QEvent* e) override;

private:
    // Posts job to the engine thread, holding the lock; the one way work reaches it.
    void submit(const QString& title, const QString& invalid_prefix, EngineJob job);
    // Connects the worker's signal `from` to emitting `to` on the GUI thread, posted under the lock.
    template <typename... Args>
    void forward(void (EngineWorker::*from)(Args...), void (EngineThread::*to)(Args...));
    QThread thread_;
    EngineWorker* worker_;
};

// The lock every crossing between the GUI and the engine thread passes through (see EngineThread).
std::recursive_mutex& crossing_lock();

}  // namespace awb::ui
