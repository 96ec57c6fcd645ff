#include "engine_worker.h"

#include "engine/roof_probe.h"
#include "engine/sweep_runner.h"
#include "io/trace_import.h"
#include "results/results_formats.h"
#include "results/run_json.h"
#include "results/workspace.h"
#include "snapshot_shown.h"

namespace awb::ui {

namespace {

// Forwards progress and points as signals; cancel takes effect between steps, samples and points.
class CancelFlagObserver final : public SweepObserver {
public:
    CancelFlagObserver(EngineWorker* worker, std::atomic<bool>& cancel) : worker_(worker), cancel_(cancel) {}
    void on_progress(int done, int total, const std::string& what) override {
        emit worker_->progress(done, total, QString::fromStdString(what));
    }
    bool cancel_requested() const override { return cancel_.load(); }
    void on_point(const SweepPoint& point, int index, int total) override {
        emit worker_->sweepPoint(point, index, total);
    }

private:
    EngineWorker* worker_;
    std::atomic<bool>& cancel_;
};

}  // namespace

void EngineWorker::run(const QString& title, const QString& invalid_prefix, const EngineJob& job) {
    cancel_ = false;
    CancelFlagObserver observer(this, cancel_);
    try {
        emit delivered(job(observer));
    } catch (const Cancelled&) {
        emit cancelled();
    } catch (const InvalidInput& e) {
        emit failed(title, invalid_prefix + QString::fromStdString(e.what()));
    } catch (const std::exception& e) {
        emit failed(title, QString::fromStdString(e.what()));
    }
}

EngineWorker::EngineWorker() {
    qRegisterMetaType<std::shared_ptr<const awb::ProfileResult>>();
    qRegisterMetaType<awb::SweepPoint>();
    qRegisterMetaType<std::shared_ptr<const awb::SweepResult>>();
    qRegisterMetaType<std::shared_ptr<const awb::Workspace>>();
    qRegisterMetaType<std::shared_ptr<const awb::CheckReport>>();
    qRegisterMetaType<std::shared_ptr<const awb::ResultsFile>>();
}

std::recursive_mutex& crossing_lock() {
    static std::recursive_mutex lock;
    return lock;
}

bool EngineWorker::event(QEvent* e) {
    { std::lock_guard taken(crossing_lock()); }  // what the GUI thread posted is now visible (see EngineThread)
    return QObject::event(e);
}

bool EngineThread::event(QEvent* e) {
    { std::lock_guard taken(crossing_lock()); }  // what the engine thread posted is now visible
    return QObject::event(e);
}

template <typename... Args>
void EngineThread::forward(void (EngineWorker::*from)(Args...), void (EngineThread::*to)(Args...)) {
    // A direct connection: the copy of the arguments is posted on the engine thread, under the lock.
    connect(
        worker_, from, this,
        [this, to](Args... args) {
            std::lock_guard held(crossing_lock());
            QMetaObject::invokeMethod(
                this, [this, to, args...] { (this->*to)(args...); }, Qt::QueuedConnection);
        },
        Qt::DirectConnection);
}

void EngineThread::submit(const QString& title, const QString& invalid_prefix, EngineJob job) {
    std::lock_guard held(crossing_lock());
    QMetaObject::invokeMethod(
        worker_,
        [worker = worker_, title, invalid_prefix, job = std::move(job)] { worker->run(title, invalid_prefix, job); },
        Qt::QueuedConnection);
}

EngineThread::EngineThread(QObject* parent) : QObject(parent), worker_(new EngineWorker) {
    forward(&EngineWorker::progress, &EngineThread::progress);
    forward(&EngineWorker::sweepPoint, &EngineThread::sweepPoint);
    connect(
        worker_, &EngineWorker::delivered, this,
        [this](const EngineDelivery& deliver) {
            std::lock_guard held(crossing_lock());  // as forward(): the result is posted under the lock
            QMetaObject::invokeMethod(
                this, [this, deliver] { deliver(*this); }, Qt::QueuedConnection);
        },
        Qt::DirectConnection);
    forward(&EngineWorker::failed, &EngineThread::failed);
    forward(&EngineWorker::cancelled, &EngineThread::cancelled);
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    thread_.setObjectName(QStringLiteral("engine"));
    thread_.start();
}

EngineThread::~EngineThread() {
    worker_->requestCancel();
    thread_.quit();
    thread_.wait();
    std::lock_guard taken(crossing_lock());  // relayed calls not yet run are deleted with this object
}

void EngineThread::profile(const RunSpec& spec, const ProfileOptions& options) {
    submit(tr("Run failed"), tr("Invalid input:\n"), [spec, options](SweepObserver& observer) -> EngineDelivery {
        ProfileResult result = profile_run(spec, options, &observer);
        result.roof = run_roof(spec, result.environment.device_name);  // for the Attention tab's roofline
        auto done = std::make_shared<const ProfileResult>(std::move(result));
        return [done](EngineThread& e) { emit e.profileFinished(done); };
    });
}

void EngineThread::sweep(const SweepPlan& plan) {
    submit(tr("Sweep failed"), tr("Invalid sweep:\n"), [plan](SweepObserver& observer) -> EngineDelivery {
        auto done = std::make_shared<const SweepResult>(run_sweep(plan, &observer));
        return [done](EngineThread& e) { emit e.sweepFinished(done); };
    });
}

void EngineThread::check(const RunSpec& spec) {
    submit(tr("Check failed"), tr("Invalid input:\n"), [spec](SweepObserver& observer) -> EngineDelivery {
        auto done = std::make_shared<const CheckReport>(check_variants(spec, {spec.variant}, 0, &observer));
        return [done](EngineThread& e) { emit e.checkFinished(done); };
    });
}

namespace {

// Files that are several runs: said on the GUI thread with the files of each, to open them one by one.
EngineDelivery mixed_runs(const MixedRunsError& mixed) {
    QList<QStringList> runs;
    for (const auto& run : mixed.runs()) {
        runs.append(QStringList());
        for (const std::string& f : run) runs.back() << QString::fromStdString(f);
    }
    return [message = QString::fromStdString(mixed.what()), runs](EngineThread& e) { emit e.mixedRuns(message, runs); };
}

}  // namespace

void EngineThread::open(const QString& path) {
    const std::string file = path.toStdString();
    submit(recognised_kind(file) == ResultsKind::Trace ? tr("Cannot open trace") : tr("Cannot open file"), QString(),
           [file, path](SweepObserver& observer) -> EngineDelivery {
               SnapshotOptions snapshot_replay;  // a memory snapshot replayed beside its reading, as its view draws it
               snapshot_replay.max_bands = kMaxBands;
               std::shared_ptr<const ResultsFile> done;
               try {
                   done = std::make_shared<const ResultsFile>(
                       open_results_file(file, &observer, kAnyResultsKind, &snapshot_replay));
               } catch (const MixedRunsError& mixed) {  // a folder of several runs
                   return mixed_runs(mixed);
               }
               return [done, path](EngineThread& e) {
                   if (done->kind == ResultsKind::Workspace)
                       emit e.workspaceLoaded(done->workspace, path);
                   else
                       emit e.resultsOpened(done, path);
               };
           });
}

void EngineThread::openSelection(const QStringList& paths) {
    std::vector<std::string> files;
    for (const QString& p : paths) files.push_back(p.toStdString());
    submit(tr("Cannot open traces"), QString(), [files](SweepObserver& observer) -> EngineDelivery {
        try {
            auto done = std::make_shared<const ResultsFile>(open_trace_selection(files, &observer));
            return [done](EngineThread& e) { emit e.resultsOpened(done, QString::fromStdString(done->path)); };
        } catch (const MixedRunsError& mixed) {
            return mixed_runs(mixed);
        }
    });
}

void EngineThread::saveWorkspace(std::shared_ptr<const Workspace> workspace, const QString& path) {
    submit(tr("Cannot save workspace"), QString(), [workspace, path](SweepObserver& observer) -> EngineDelivery {
        save_workspace(*workspace, path.toStdString(), &observer);
        return [path](EngineThread& e) { emit e.workspaceSaved(path); };
    });
}

}  // namespace awb::ui
