#include "sweep.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "bench.h"
#include "profiler_session.h"

namespace awb {

namespace {

template <typename T>
void check_list(const std::vector<T>& values, const char* field, std::vector<SpecProblem>& out) {
    std::set<T> seen;
    for (const auto& v : values) {
        if constexpr (std::is_arithmetic_v<T>)
            if (v <= 0) out.push_back({field, std::to_string(v) + " must be a positive integer"});
        if (!seen.insert(v).second) out.push_back({field, "lists a value twice"});
    }
}

template <typename T>
std::vector<T> or_base(const std::vector<T>& values, T base) {
    return values.empty() ? std::vector<T>{base} : values;
}

std::vector<int64_t> scaled_key_lengths(const RunSpec& base, int64_t batch, int64_t n) {
    std::vector<int64_t> out;
    if (base.key_lengths.empty()) return out;
    for (int64_t b = 0; b < batch; ++b) {
        const double len = double(base.key_lengths[size_t(b) % base.key_lengths.size()]);
        const double scaled = base.seq_k > 0 ? std::round(len * double(n) / double(base.seq_k)) : len;
        out.push_back(std::clamp<int64_t>(int64_t(scaled), 1, n));
    }
    return out;
}

// Curves that differ only in the variant are compared for crossovers.
std::string comparison_group(const RunSpec& s) { return series_name(with_variant(s, "")); }

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

private:
    SweepObserver* outer_;
    int index_, total_;
    std::string label_;
};

}  // namespace

std::string series_name(const RunSpec& s) {
    std::string heads = std::to_string(s.heads);
    if (s.kv_heads != s.heads) heads += "/" + std::to_string(s.kv_heads);
    std::string name = s.variant + " " + to_string(s.dtype) + " " + std::to_string(s.batch) + "x" + heads + "xNx" +
                       std::to_string(s.head_dim) + " " + to_string(s.mode);
    if (s.mask != MaskKind::None) name += " " + to_string(s.mask);
    if (s.variant == "chunked") name += " block " + std::to_string(s.block_size);
    return name;
}

std::string to_string(PointStatus s) {
    switch (s) {
        case PointStatus::Ok: return "ok";
        case PointStatus::Refused: return "refused";
        case PointStatus::Failed: return "failed";
        case PointStatus::Cancelled: return "cancelled";
    }
    return "?";
}

bool parse_point_status(const std::string& s, PointStatus& out) {
    for (auto v : {PointStatus::Ok, PointStatus::Refused, PointStatus::Failed, PointStatus::Cancelled})
        if (to_string(v) == s) {
            out = v;
            return true;
        }
    return false;
}

std::vector<SpecProblem> validate(const SweepPlan& p) {
    std::vector<SpecProblem> out;
    check_list(p.seq_lengths, "seq", out);
    check_list(p.batches, "batch", out);
    check_list(p.heads, "heads", out);
    check_list(p.head_dims, "head_dim", out);
    check_list(p.variants, "variants", out);
    check_list(p.dtypes, "dtypes", out);
    for (auto& problem : validate(p.bench)) out.push_back(std::move(problem));
    if (p.profile)
        for (auto& problem : validate(p.profile_options)) out.push_back(std::move(problem));
    return out;
}

std::vector<RunSpec> expand(const SweepPlan& p) {
    std::vector<RunSpec> out;
    const RunSpec& b = p.base;
    for (Dtype dtype : or_base(p.dtypes, b.dtype))
        for (int64_t batch : or_base(p.batches, b.batch))
            for (int64_t heads : or_base(p.heads, b.heads))
                for (int64_t head_dim : or_base(p.head_dims, b.head_dim))
                    for (int64_t n : p.seq_lengths.empty() ? std::vector<int64_t>{-1} : p.seq_lengths)
                        for (const auto& variant : or_base(p.variants, b.variant)) {
                            RunSpec s = with_variant(b, variant);
                            s.dtype = dtype;
                            s.batch = batch;
                            s.heads = heads;
                            s.kv_heads = b.kv_heads == b.heads ? heads : b.kv_heads;
                            s.head_dim = head_dim;
                            if (n > 0) s.seq_q = s.seq_k = n;
                            if (s.mask == MaskKind::Padding) s.key_lengths = scaled_key_lengths(b, batch, s.seq_k);
                            out.push_back(std::move(s));
                        }
    return out;
}

SweepResult run_sweep(const SweepPlan& plan, SweepObserver* observer) {
    auto problems = validate(plan);
    if (!problems.empty()) throw InvalidInput(std::move(problems));
    const std::vector<RunSpec> specs = expand(plan);
    SweepResult result;
    result.plan = plan;
    result.planned_points = int(specs.size());
    const int total = int(specs.size());
    for (int i = 0; i < total; ++i) {
        if (observer && observer->stop_between_points()) {
            result.stopped_early = true;
            break;
        }
        SweepPoint point;
        point.spec = specs[size_t(i)];
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
            observer->on_progress(i + 1, total, "point " + std::to_string(i + 1) + "/" + std::to_string(total) + " " +
                                                    to_string(point.status));
        }
        if (result.stopped_early) break;
    }
    return result;
}

std::vector<SweepSeries> sweep_series(const SweepResult& r) {
    std::vector<SweepSeries> out;
    std::map<std::string, size_t> index;
    for (const auto& p : r.points) {
        if (p.status != PointStatus::Ok) continue;
        const std::string name = series_name(p.spec);
        auto [it, added] = index.emplace(name, out.size());
        if (added) out.push_back({name, comparison_group(p.spec), p.spec.variant, {}});
        const auto& t = p.bench.timing;
        out[it->second].samples.push_back({double(p.spec.seq_k), t.median_ns, t.p10_ns, t.p90_ns, p.bench.peak_bytes});
    }
    for (auto& s : out)
        std::stable_sort(s.samples.begin(), s.samples.end(), [](const auto& a, const auto& b) { return a.n < b.n; });
    return out;
}

std::vector<SeriesPoint> metric_points(const SweepSeries& s, const std::string& metric) {
    std::vector<SeriesPoint> out;
    for (const auto& x : s.samples) {
        if (metric == "median_time") out.push_back({x.n, x.median_ns});
        else if (x.peak_bytes > 0) out.push_back({x.n, double(x.peak_bytes)});
    }
    return out;
}

SweepAnalysis analyze(const SweepResult& r) {
    SweepAnalysis a;
    const std::vector<SweepSeries> series = sweep_series(r);
    auto spread_overlaps = [](const SweepSeries& x, const SweepSeries& y, double n) {
        const SeriesSample *sx = nullptr, *sy = nullptr;
        for (const auto& s : x.samples) if (s.n == n) sx = &s;
        for (const auto& s : y.samples) if (s.n == n) sy = &s;
        return sx && sy && sx->p10_ns <= sy->p90_ns && sy->p10_ns <= sx->p90_ns;
    };
    for (const char* metric : {"median_time", "peak_memory"}) {
        for (const auto& s : series) {
            const PowerFit f = fit_power_law(metric_points(s, metric));
            if (f.valid) a.fits.push_back({metric, s.name, f});
        }
        // Curves that differ only in the variant, pairwise in first-seen order.
        for (size_t i = 0; i < series.size(); ++i)
            for (size_t j = i + 1; j < series.size(); ++j) {
                if (series[i].group != series[j].group) continue;
                for (const auto& c : find_crossovers(metric_points(series[i], metric), metric_points(series[j], metric))) {
                    SeriesCrossover x{metric, series[i].name, series[j].name, c};
                    if (std::string(metric) == "median_time")
                        x.within_noise = spread_overlaps(series[i], series[j], c.n_before) ||
                                         spread_overlaps(series[i], series[j], c.n_after);
                    a.crossovers.push_back(x);
                }
            }
    }
    return a;
}

}  // namespace awb
