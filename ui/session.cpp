#include "session.h"

#include "analysis/checklist.h"

namespace awb::ui {

Session::Session(QObject* parent) : QObject(parent) {}

std::shared_ptr<const SweepResult> Session::sweepFor(const ProfileResult* run) const {
    std::shared_ptr<const SweepResult> best;
    size_t most = 0;
    for (const LabelledSweep& s : sweeps_) {
        const size_t n = run ? (run->spec_known ? points_on_curve(*s.sweep, run->spec) : 0) : s.sweep->points.size();
        if (n > most || (!run && n > 0)) {
            most = n;
            best = s.sweep;
        }
    }
    return best;
}

void Session::addRun(NamedRun run, bool show) {
    runs_.push_back(std::move(run));
    emit runsChanged();
    if (show) {
        shown_ = int(runs_.size()) - 1;
        emit shownChanged();
    }
}

void Session::clearShown() {
    shown_ = -1;
    emit shownChanged();
}

void Session::addSweep(SweepResult sweep, const QString& label) {
    sweeps_.push_back({label, std::make_shared<const SweepResult>(std::move(sweep))});
    emit sweepsChanged();
}

void Session::clearSweeps() {
    sweeps_.clear();
    emit sweepsChanged();
}

void Session::startLiveSweep(const SweepPlan& plan) {
    live_sweep_ = SweepResult{};
    live_sweep_.plan = plan;
    live_sweep_.planned_points = int(expand(plan).size());
}

void Session::addLivePoint(const SweepPoint& point) {
    live_sweep_.points.push_back(point);
    setLive();
}

void Session::finishLiveSweep(SweepResult result) {
    live_sweep_ = std::move(result);
    setLive();
}

void Session::setLive() {
    sweeps_ = {{tr("this run"), std::make_shared<const SweepResult>(live_sweep_)}};
    emit sweepsChanged();
}

void Session::setBench(std::shared_ptr<const BenchResult> bench) {
    bench_ = std::move(bench);
    emit measurementsChanged();
}

void Session::setCheck(std::shared_ptr<const CheckReport> check) {
    check_ = std::move(check);
    emit measurementsChanged();
}

void Session::restore(const Workspace& w, const std::vector<std::shared_ptr<const RunAnalysis>>& analyses) {
    runs_.clear();
    for (size_t i = 0; i < w.runs.size(); ++i) runs_.push_back({QString::fromStdString(w.runs[i].label), w.runs[i].result, analyses[i]});
    sweeps_.clear();
    for (const auto& s : w.sweeps) sweeps_.push_back({QString::fromStdString(s.label), std::make_shared<const SweepResult>(s.sweep)});
    live_sweep_ = SweepResult{};
    bench_ = w.bench;
    check_ = w.check;
    shown_ = w.shown >= 0 && size_t(w.shown) < runs_.size() ? w.shown : int(runs_.size()) - 1;
    emit runsChanged();
    emit sweepsChanged();
    emit measurementsChanged();
    emit shownChanged();
}

std::shared_ptr<const Workspace> Session::toWorkspace(const RunSpec& panel_spec) const {
    auto w = std::make_shared<Workspace>();
    w->panel_spec = panel_spec;
    for (const NamedRun& run : runs_) w->runs.push_back({run.label.toStdString(), run.result});
    w->shown = shown_;
    for (const LabelledSweep& s : sweeps_) w->sweeps.push_back({s.label.toStdString(), *s.sweep});
    w->bench = bench_;
    w->check = check_;
    return w;
}

}  // namespace awb::ui
