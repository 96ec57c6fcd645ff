#include "engine/sweep_runner.h"

#include <algorithm>

#include "analysis/op_table.h"
#include "engine/bench.h"
#include "engine/environment_probe.h"
#include "engine/module_variant.h"
#include "engine/profiler_session.h"
#include "model/sweep_shard.h"

namespace awb {

namespace {

std::string join_problems(const std::vector<SpecProblem>& problems) {
    std::string out;
    for (const auto& p : problems) out += (out.empty() ? "" : "; ") + p.field + ": " + p.message;
    return out;
}

// Forwards a point's progress and immediate cancel to the sweep's observer.
class PointObserver final : public RunObserver {
public:
    PointObserver(SweepObserver* outer, int index, int total, std::string label)
        : outer_(outer), index_(index), total_(total), label_(std::move(label)) {}
    void on_progress(int, int, const std::string& what) override {
        if (outer_) outer_->on_progress(index_, total_, label_ + ": " + what);
    }
    bool cancel_requested() const override { return outer_ && outer_->cancel_requested(); }
    bool finish_requested() const override { return false; }  // the sweep finishes between points

private:
    SweepObserver* outer_;
    int index_, total_;
    std::string label_;
};

// Every module the plan names, once, whichever point ran first (refused points included).
void add_module_identities(const SweepPlan& plan, Environment& env) {
    std::vector<std::string> paths;
    for (const auto& v : plan.variants)
        if (is_module_path(v)) paths.push_back(absolute_module_path(v));
    if (plan.variants.empty() && !plan.base.module.empty()) paths.push_back(plan.base.module);
    for (const auto& path : paths) {
        const bool known = std::any_of(env.modules.begin(), env.modules.end(), [&](auto& m) { return m.path == path; });
        if (known) continue;
        try {
            env.modules.push_back(module_identity(path));
        } catch (const InvalidInput&) {  // a file that cannot be read: its points say so
        }
    }
}

}  // namespace

SweepResult run_sweep(const SweepPlan& plan, SweepObserver* observer, const SweepShard& shard) {
    auto problems = validate(plan);
    if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
        problems.push_back({"shard", std::to_string(shard.index) + "/" + std::to_string(shard.count) +
                                         " is not a shard (K/N with 0 <= K < N)"});
    if (!problems.empty()) throw InvalidInput(std::move(problems));
    const std::vector<RunSpec> specs = expand(plan);
    const std::vector<int> indices = shard_points(plan, shard);
    SweepResult result;
    result.plan = plan;
    result.shard = shard;
    result.planned_points = int(indices.size());
    const int total = int(indices.size());
    for (int i = 0; i < total; ++i) {
        if (observer && observer->finish_requested()) {
            result.stopped_early = true;
            break;
        }
        SweepPoint point;
        point.index = indices[size_t(i)];
        point.spec = specs[size_t(point.index)];
        PointObserver inner(observer, i, total,
                            "point " + std::to_string(i + 1) + "/" + std::to_string(total) + " " + point.spec.variant +
                                " " + shape_string(point.spec) + " " + to_string(point.spec.dtype));
        try {
            point.bench = bench_run(point.spec, plan.bench, &inner);
            if (result.environment.torch_version.empty()) result.environment = point.bench.environment;
            if (plan.profile) {
                const ProfileResult profiled = profile_run(point.spec, plan.profile_options, &inner);
                point.operators = key_averages(profiled.trace);
                set_profiled_step(point.bench, median_recorded_step_ns(profiled));
            }
        } catch (const InvalidInput& e) {
            point.status = PointStatus::Refused;
            point.reason = join_problems(e.problems());
        } catch (const Cancelled&) {
            point.status = PointStatus::Cancelled;
            point.reason = "cancelled while running";
            result.stopped_early = true;
        } catch (const std::exception& e) {
            point.status = PointStatus::Failed;
            point.reason = e.what();
        }
        if (point.status != PointStatus::Ok) {  // nothing measured: keep no partial figures
            point.bench = BenchResult{};
            point.bench.spec = point.spec;
        }
        result.points.push_back(point);
        if (observer) {
            observer->on_point(result.points.back(), i, total);
            observer->on_progress(
                i + 1, total,
                "point " + std::to_string(i + 1) + "/" + std::to_string(total) + " " + to_string(point.status));
        }
        if (result.stopped_early) break;
    }
    // A shard whose points were all refused still says where it ran (a merge compares environments).
    if (result.environment.torch_version.empty()) result.environment = probe_environment(plan.base);
    add_module_identities(plan, result.environment);
    return result;
}

}  // namespace awb
