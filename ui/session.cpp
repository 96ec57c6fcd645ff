#include "session.h"

#include <QTime>

#include <algorithm>

#include "analysis/checklist.h"
#include "background.h"
#include "analysis/sweep_analysis.h"
#include "model/module_file.h"

namespace awb::ui {

namespace {

// "manual+sdpa float32 1x2xNx16 train, N 16-64, 17:05:12": what a sweep run here measures, and when it started.
QString liveLabel(const SweepPlan& plan) {
    std::string variants;
    for (const std::string& v : plan.variants)
        variants += (variants.empty() ? "" : "+") + (is_module_path(v) ? module_stem(v) : v);
    RunSpec named = plan.base;  // a module's path is named by its stem: "sdpa+mine"
    named.variant = variants.empty() ? plan.base.variant : variants;
    QString text = QString::fromStdString(series_name(named));
    if (!plan.seq_lengths.empty()) {
        const auto [lo, hi] = std::minmax_element(plan.seq_lengths.begin(), plan.seq_lengths.end());
        text += QStringLiteral(", N %1-%2").arg(*lo).arg(*hi);
    }
    return text + QStringLiteral(", ") + QTime::currentTime().toString(QStringLiteral("HH:mm:ss"));
}

}  // namespace

Session::Session(QObject* parent) : QObject(parent) {}

std::shared_ptr<const SweepResult> Session::sweepFor(const ProfileResult* run) const {
    std::shared_ptr<const SweepResult> best;
    size_t most = 0;
    for (const LabelledSweep& s : sweeps_) {
        if (!s.shown) continue;
        const size_t n = run ? (run->spec_known ? points_on_curve(*s.sweep, run->spec) : 0) : s.sweep->points.size();
        if (n > most || (!run && n > 0)) {
            most = n;
            best = s.sweep;
        }
    }
    return best;
}

std::shared_ptr<const SweepAnalysis> Session::analysisOf(const SweepResult* sweep) const {
    for (const LabelledSweep& s : sweeps_)
        if (s.sweep.get() == sweep) return s.analysis;
    return nullptr;
}

std::shared_ptr<const SweepAnalysis> Session::liveAnalysis() const {
    if (live_index_ >= 0) return sweeps_[size_t(live_index_)].analysis;
    return std::make_shared<const SweepAnalysis>(analyze_sweep(live_sweep_));
}

void Session::changeShown() {
    emit shownChanged();
    const NamedRun run = shown();
    const bool large = run.result && is_large(run.result->trace);
    auto still_shown = [this, result = run.result] { return shown().result == result; };
    std::vector<std::function<void()>> steps;
    for (const View& v : views_)
        steps.push_back([=] {
            if (v.alive && still_shown()) v.view->showRun(run, large);
        });
    steps.push_back([=, this] {
        if (still_shown()) emit viewsShown();
    });
    if (!large) {
        run_steps(this, false, std::move(steps));
        return;
    }
    steps.front()();  // the first view (the timeline) at once: its draw lists are built in the background
    run_steps(this, true, std::move(steps), 1);
}

void Session::addRun(NamedRun run, bool show) {
    runs_.push_back(std::move(run));
    emit runsChanged();
    if (show) {
        shown_ = int(runs_.size()) - 1;
        changeShown();
    }
}

ReportSources Session::reportSources() const {
    ReportSources s;
    s.run = shown().result;
    s.analysis = shown().analysis;
    s.sweep = sweepFor(s.run.get());
    s.sweep_analysis = analysisOf(s.sweep.get());
    s.bench = bench_;
    s.check = check_;
    return s;
}

void Session::analyseAndAdd(std::shared_ptr<const ProfileResult> result, const QString& label) {
    compute_then(
        this, is_large(result->trace), [result] { return analyzed(result); },
        [this, label](AnalyzedRun run) {
            addRun({label, std::move(run.run), std::move(run.analysis)});
        });
}

void Session::clearShown() {
    shown_ = -1;
    changeShown();
}

std::vector<LabelledSweep> Session::shownSweeps() const {
    std::vector<LabelledSweep> out;
    for (const LabelledSweep& s : sweeps_)
        if (s.shown) out.push_back(s);
    return out;
}

void Session::addSweep(SweepResult sweep, const QString& label) {
    sweeps_.push_back(labelled_sweep(label, std::make_shared<const SweepResult>(std::move(sweep)), true, nextTag()));
    emit sweepsChanged();
}

void Session::setSweepShown(int index, bool shown) {
    if (index < 0 || size_t(index) >= sweeps_.size() || sweeps_[size_t(index)].shown == shown) return;
    sweeps_[size_t(index)].shown = shown;
    emit sweepsChanged();
}

void Session::removeSweeps(std::vector<int> indices) {
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    bool removed = false;
    for (auto it = indices.rbegin(); it != indices.rend(); ++it) {  // from the back: the others keep their places
        if (*it < 0 || size_t(*it) >= sweeps_.size()) continue;
        sweeps_.erase(sweeps_.begin() + *it);
        live_index_ = live_index_ == *it ? -1 : live_index_ > *it ? live_index_ - 1 : live_index_;
        removed = true;
    }
    if (removed) emit sweepsChanged();
}

void Session::clearSweeps() {
    sweeps_.clear();
    live_index_ = -1;
    emit sweepsChanged();
}

void Session::startLiveSweep(const SweepPlan& plan) {
    live_sweep_ = SweepResult{};
    live_sweep_.plan = plan;
    live_sweep_.planned_points = int(expand(plan).size());
    live_index_ = int(sweeps_.size());
    sweeps_.push_back(
        labelled_sweep(liveLabel(plan), std::make_shared<const SweepResult>(live_sweep_), true, nextTag()));
    emit sweepsChanged();
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
    if (live_index_ < 0)
        return;  // its entry was removed while it ran: the result stays in liveSweep() (File > Save sweep)
    LabelledSweep& live = sweeps_[size_t(live_index_)];
    live = labelled_sweep(live.label, std::make_shared<const SweepResult>(live_sweep_), live.shown, live.tag);
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
    for (size_t i = 0; i < w.runs.size(); ++i)
        runs_.push_back({QString::fromStdString(w.runs[i].label), w.runs[i].result, analyses[i]});
    sweeps_.clear();
    for (const auto& s : w.sweeps)
        sweeps_.push_back(labelled_sweep(QString::fromStdString(s.label), std::make_shared<const SweepResult>(s.sweep),
                                         s.shown, nextTag()));
    live_sweep_ = SweepResult{};
    live_index_ = -1;
    bench_ = w.bench;
    check_ = w.check;
    shown_ = w.shown >= 0 && size_t(w.shown) < runs_.size() ? w.shown : int(runs_.size()) - 1;
    emit runsChanged();
    emit sweepsChanged();
    emit measurementsChanged();
    changeShown();
}

void Session::analyseAndRestore(std::shared_ptr<const Workspace> workspace, std::function<void()> restored) {
    size_t events = 0;
    for (const auto& run : workspace->runs) events += run.result->trace.events().size();
    compute_then(
        this, events >= kBackgroundEvents,
        [workspace] {
            std::vector<std::shared_ptr<const RunAnalysis>> out;
            for (const auto& run : workspace->runs) out.push_back(analyzed(run.result).analysis);
            return out;
        },
        [this, workspace,
         restored = std::move(restored)](const std::vector<std::shared_ptr<const RunAnalysis>>& analyses) {
            restore(*workspace, analyses);
            restored();
        });
}

std::shared_ptr<const Workspace> Session::toWorkspace(const RunSpec& panel_spec,
                                                      std::vector<std::string> panel_modules) const {
    auto w = std::make_shared<Workspace>();
    w->panel_spec = panel_spec;
    w->panel_modules = std::move(panel_modules);
    for (const NamedRun& run : runs_) w->runs.push_back({run.label.toStdString(), run.result});
    w->shown = shown_;
    for (const LabelledSweep& s : sweeps_) w->sweeps.push_back({s.label.toStdString(), *s.sweep, s.shown});
    w->bench = bench_;
    w->check = check_;
    return w;
}

}  // namespace awb::ui
