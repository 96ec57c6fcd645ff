#include "engine_worker.h"

namespace awb::ui {

namespace {

class CancelFlagObserver final : public RunObserver {
public:
    CancelFlagObserver(EngineWorker* worker, std::atomic<bool>& cancel) : worker_(worker), cancel_(cancel) {}
    void on_progress(int done, int total, const std::string& what) override {
        emit worker_->progress(done, total, QString::fromStdString(what));
    }
    bool cancel_requested() const override { return cancel_.load(); }

private:
    EngineWorker* worker_;
    std::atomic<bool>& cancel_;
};

}  // namespace

EngineWorker::EngineWorker() {
    qRegisterMetaType<awb::RunSpec>();
    qRegisterMetaType<awb::ProfileOptions>();
    qRegisterMetaType<std::shared_ptr<const awb::ProfileResult>>();
}

void EngineWorker::runProfile(const awb::RunSpec& spec, const awb::ProfileOptions& options) {
    cancel_ = false;
    CancelFlagObserver observer(this, cancel_);
    try {
        auto result = std::make_shared<const ProfileResult>(profile_run(spec, options, &observer));
        emit profileFinished(result);
    } catch (const Cancelled&) {
        emit cancelled();
    } catch (const InvalidInput& e) {
        emit failed(tr("Invalid input:\n%1").arg(QString::fromStdString(e.what())));
    } catch (const std::exception& e) {
        emit failed(QString::fromStdString(e.what()));
    }
}

Engine::Engine(QObject* parent) : QObject(parent), worker_(new EngineWorker) {
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(this, &Engine::queueProfile, worker_, &EngineWorker::runProfile, Qt::QueuedConnection);
    thread_.setObjectName(QStringLiteral("engine"));
    thread_.start();
}

Engine::~Engine() {
    worker_->requestCancel();
    thread_.quit();
    thread_.wait();
}

void Engine::profile(const RunSpec& spec, const ProfileOptions& options) { emit queueProfile(spec, options); }

}  // namespace awb::ui
