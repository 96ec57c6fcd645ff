#include "engine_worker.h"

#include "engine/roof_probe.h"
#include "engine/sweep_runner.h"
#include "io/json_io.h"
#include "io/trace_import.h"
#include "io/workspace.h"

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
    void on_point(const SweepPoint& point, int index, int total) override { emit worker_->sweepPoint(point, index, total); }

private:
    EngineWorker* worker_;
    std::atomic<bool>& cancel_;
};

}  // namespace

// Every job: a fresh cancel flag, an observer that forwards progress, one signal for each way it ends.
template <typename Job>
void EngineWorker::runJob(const QString& title, const QString& invalid_prefix, Job&& job) {
    cancel_ = false;
    CancelFlagObserver observer(this, cancel_);
    try {
        job(observer);
    } catch (const Cancelled&) {
        emit cancelled();
    } catch (const InvalidInput& e) {
        emit failed(title, invalid_prefix + QString::fromStdString(e.what()));
    } catch (const std::exception& e) {
        emit failed(title, QString::fromStdString(e.what()));
    }
}

EngineWorker::EngineWorker() {
    qRegisterMetaType<awb::RunSpec>();
    qRegisterMetaType<awb::ProfileOptions>();
    qRegisterMetaType<std::shared_ptr<const awb::ProfileResult>>();
    qRegisterMetaType<awb::SweepPlan>();
    qRegisterMetaType<awb::SweepPoint>();
    qRegisterMetaType<std::shared_ptr<const awb::SweepResult>>();
    qRegisterMetaType<std::shared_ptr<const awb::Workspace>>();
    qRegisterMetaType<std::shared_ptr<const awb::CheckReport>>();
    qRegisterMetaType<std::shared_ptr<const awb::ResultsFile>>();
}

void EngineWorker::runCheck(const awb::RunSpec& spec) {
    runJob(tr("Check failed"), tr("Invalid input:\n"), [&](SweepObserver& observer) {
        emit checkFinished(std::make_shared<const CheckReport>(check_variants(spec, {spec.variant}, 0, &observer)));
    });
}

void EngineWorker::runSweep(const awb::SweepPlan& plan) {
    runJob(tr("Sweep failed"), tr("Invalid sweep:\n"), [&](SweepObserver& observer) {
        emit sweepFinished(std::make_shared<const SweepResult>(run_sweep(plan, &observer)));
    });
}

void EngineWorker::runProfile(const awb::RunSpec& spec, const awb::ProfileOptions& options) {
    runJob(tr("Run failed"), tr("Invalid input:\n"), [&](SweepObserver& observer) {
        ProfileResult result = profile_run(spec, options, &observer);
        result.roof = run_roof(spec, result.environment.device_name);  // for the Attention tab's roofline
        emit profileFinished(std::make_shared<const ProfileResult>(std::move(result)));
    });
}

void EngineWorker::runOpen(const QString& path) {
    const std::string file = path.toStdString();
    runJob(looks_like_chrome_trace(file) ? tr("Cannot open trace") : tr("Cannot open file"), QString(), [&](SweepObserver& observer) {
        emit resultsOpened(std::make_shared<const ResultsFile>(open_results_file(file, &observer)), path);
    });
}

void EngineWorker::runOpenSelection(const QStringList& paths) {
    std::vector<std::string> files;
    for (const QString& p : paths) files.push_back(p.toStdString());
    runJob(tr("Cannot open traces"), QString(), [&](SweepObserver& observer) {
        auto file = std::make_shared<const ResultsFile>(open_replay_selection(files, &observer));
        emit resultsOpened(file, QString::fromStdString(file->path));
    });
}

void EngineWorker::runSaveWorkspace(std::shared_ptr<const awb::Workspace> workspace, const QString& path) {
    runJob(tr("Cannot save workspace"), QString(), [&](SweepObserver& observer) {
        save_workspace(*workspace, path.toStdString(), &observer);
        emit workspaceSaved(path);
    });
}

void EngineWorker::runLoadWorkspace(const QString& path) {
    runJob(tr("Cannot open workspace"), QString(), [&](SweepObserver& observer) {
        emit workspaceLoaded(std::make_shared<const Workspace>(load_workspace(path.toStdString(), &observer)), path);
    });
}

std::recursive_mutex& crossing_lock() {
    static std::recursive_mutex lock;
    return lock;
}

bool EngineWorker::event(QEvent* e) {
    { std::lock_guard taken(crossing_lock()); }  // what the GUI thread posted is now visible (see Engine)
    return QObject::event(e);
}

bool Engine::event(QEvent* e) {
    { std::lock_guard taken(crossing_lock()); }  // what the engine thread posted is now visible
    return QObject::event(e);
}

template <typename... Args>
void Engine::forward(void (EngineWorker::*from)(Args...), void (Engine::*to)(Args...)) {
    // A direct connection: the copy of the arguments is posted on the engine thread, under the lock.
    connect(worker_, from, this, [this, to](Args... args) {
        std::lock_guard held(crossing_lock());
        QMetaObject::invokeMethod(this, [this, to, args...] { (this->*to)(args...); }, Qt::QueuedConnection);
    }, Qt::DirectConnection);
}

template <typename... Params, typename... Args>
void Engine::post(void (Engine::*queue)(Params...), Args&&... args) {
    std::lock_guard held(crossing_lock());
    (this->*queue)(std::forward<Args>(args)...);  // a queued signal to the worker
}

Engine::Engine(QObject* parent) : QObject(parent), worker_(new EngineWorker) {
    forward(&EngineWorker::progress, &Engine::progress);
    forward(&EngineWorker::sweepPoint, &Engine::sweepPoint);
    forward(&EngineWorker::sweepFinished, &Engine::sweepFinished);
    forward(&EngineWorker::profileFinished, &Engine::profileFinished);
    forward(&EngineWorker::checkFinished, &Engine::checkFinished);
    forward(&EngineWorker::resultsOpened, &Engine::resultsOpened);
    forward(&EngineWorker::workspaceSaved, &Engine::workspaceSaved);
    forward(&EngineWorker::workspaceLoaded, &Engine::workspaceLoaded);
    forward(&EngineWorker::failed, &Engine::failed);
    forward(&EngineWorker::cancelled, &Engine::cancelled);
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(this, &Engine::queueProfile, worker_, &EngineWorker::runProfile, Qt::QueuedConnection);
    connect(this, &Engine::queueSweep, worker_, &EngineWorker::runSweep, Qt::QueuedConnection);
    connect(this, &Engine::queueOpen, worker_, &EngineWorker::runOpen, Qt::QueuedConnection);
    connect(this, &Engine::queueOpenSelection, worker_, &EngineWorker::runOpenSelection, Qt::QueuedConnection);
    connect(this, &Engine::queueSaveWorkspace, worker_, &EngineWorker::runSaveWorkspace, Qt::QueuedConnection);
    connect(this, &Engine::queueLoadWorkspace, worker_, &EngineWorker::runLoadWorkspace, Qt::QueuedConnection);
    connect(this, &Engine::queueCheck, worker_, &EngineWorker::runCheck, Qt::QueuedConnection);
    thread_.setObjectName(QStringLiteral("engine"));
    thread_.start();
}

Engine::~Engine() {
    worker_->requestCancel();
    thread_.quit();
    thread_.wait();
    std::lock_guard taken(crossing_lock());  // relayed calls not yet run are deleted with this object
}

void Engine::profile(const RunSpec& spec, const ProfileOptions& options) { post(&Engine::queueProfile, spec, options); }
void Engine::sweep(const SweepPlan& plan) { post(&Engine::queueSweep, plan); }
void Engine::open(const QString& path) { post(&Engine::queueOpen, path); }
void Engine::openSelection(const QStringList& paths) { post(&Engine::queueOpenSelection, paths); }
void Engine::saveWorkspace(std::shared_ptr<const Workspace> workspace, const QString& path) {
    post(&Engine::queueSaveWorkspace, std::move(workspace), path);
}
void Engine::loadWorkspace(const QString& path) { post(&Engine::queueLoadWorkspace, path); }
void Engine::check(const RunSpec& spec) { post(&Engine::queueCheck, spec); }

}  // namespace awb::ui
