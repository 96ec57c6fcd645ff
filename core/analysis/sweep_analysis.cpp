#include "analysis/sweep_analysis.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace awb {

namespace {

// Curves that differ only in the variant are compared for crossovers.
std::string comparison_group(const RunSpec& s) { return series_name(with_variant(s, "")); }

}  // namespace

std::vector<SweepSeries> sweep_series(const SweepResult& r) {
    std::vector<SweepSeries> out;
    std::map<std::string, size_t> index;
    for (const auto& p : r.points) {
        if (p.status != PointStatus::Ok) continue;
        const std::string name = series_name(p.spec);
        auto [it, added] = index.emplace(name, out.size());
        if (added) out.push_back({name, comparison_group(p.spec), p.spec.variant, {}});
        const auto& t = p.bench.timing;
        out[it->second].samples.push_back(
            {double(p.spec.seq_k), t.median_ns, t.p10_ns, t.p90_ns, p.bench.peak_bytes, &p.bench.samples_ns});
    }
    for (auto& s : out)
        std::stable_sort(s.samples.begin(), s.samples.end(), [](const auto& a, const auto& b) { return a.n < b.n; });
    return out;
}

std::vector<SeriesPoint> metric_points(const SweepSeries& s, const std::string& metric) {
    std::vector<SeriesPoint> out;
    for (const auto& x : s.samples) {
        if (metric == "median_time")
            out.push_back({x.n, x.median_ns});
        else if (x.peak_bytes > 0)
            out.push_back({x.n, double(x.peak_bytes)});
    }
    return out;
}

namespace {

// Every point has enough timed samples to resample.
bool resamplable(const SweepSeries& s) {
    return std::all_of(s.samples.begin(), s.samples.end(),
                       [](const SeriesSample& x) { return x.samples_ns && x.samples_ns->size() >= 3; });
}

// The time curve with each point's median recomputed from a resample of its timed samples.
std::vector<SeriesPoint> resampled_times(Resampler& r, const SweepSeries& s) {
    std::vector<SeriesPoint> out;
    for (const SeriesSample& x : s.samples) out.push_back({x.n, r.resampled_median(*x.samples_ns)});
    return out;
}

}  // namespace

namespace {

// At length n the p10-p90 ranges of the two curves overlap.
bool spread_overlaps(const SweepSeries& x, const SweepSeries& y, double n) {
    const SeriesSample *sx = nullptr, *sy = nullptr;
    for (const auto& s : x.samples)
        if (s.n == n) sx = &s;
    for (const auto& s : y.samples)
        if (s.n == n) sy = &s;
    return sx && sy && sx->p10_ns <= sy->p90_ns && sy->p10_ns <= sx->p90_ns;
}

// One curve's fit of one metric (kept when refused, so that every report says why there is none).
SeriesFit fit_series(const SweepSeries& s, const std::string& metric, int64_t memory_bytes, bool intervals) {
    const PowerFit f = fit_power_law(metric_points(s, metric));
    SeriesFit fit{metric, s.name, f, {}, 0};
    if (!f.valid) return fit;
    if (metric == "peak_memory" && memory_bytes > 0 && f.exponent > 0.05 && f.coefficient > 0)
        fit.fills_memory_at_n = std::pow(double(memory_bytes) / f.coefficient, 1.0 / f.exponent);
    if (intervals && metric == "median_time" && resamplable(s))
        fit.exponent_interval = bootstrap([&s](Resampler& rs, double& v) {
            const PowerFit p = fit_power_law(resampled_times(rs, s));
            v = p.exponent;
            return p.valid;
        });
    return fit;
}

// The crossovers of two curves that differ only in the variant.
void add_crossovers(const SweepSeries& si, const SweepSeries& sj, const std::string& metric, bool intervals,
                    SweepAnalysis& a) {
    const bool time = metric == "median_time";
    for (const auto& c : find_crossovers(metric_points(si, metric), metric_points(sj, metric))) {
        SeriesCrossover x{metric, si.name, sj.name, c, false, {}, 0};
        if (time) x.within_noise = spread_overlaps(si, sj, c.n_before) || spread_overlaps(si, sj, c.n_after);
        if (intervals && time && resamplable(si) && resamplable(sj)) {
            x.n_interval = bootstrap([&](Resampler& rs, double& v) {
                const std::vector<SeriesPoint> pi = resampled_times(rs, si), pj = resampled_times(rs, sj);
                for (const Crossover& y : find_crossovers(pi, pj))
                    if (y.n_before == c.n_before && y.n_after == c.n_after) {
                        v = y.n;
                        return true;
                    }
                return false;
            });
            x.resampled_share = double(x.n_interval.resamples) / kBootstrapResamples;
        }
        a.crossovers.push_back(x);
    }
}

}  // namespace

SweepAnalysis analyze_sweep(const SweepResult& r, bool intervals) {
    SweepAnalysis a;
    a.memory_bytes = r.environment.memory_bytes;
    const std::vector<SweepSeries> series = sweep_series(r);
    for (const char* metric : {"median_time", "peak_memory"}) {
        for (const auto& s : series)
            if (!metric_points(s, metric).empty())
                a.fits.push_back(fit_series(s, metric, r.environment.memory_bytes, intervals));
        // Curves that differ only in the variant, pairwise in first-seen order.
        for (size_t i = 0; i < series.size(); ++i)
            for (size_t j = i + 1; j < series.size(); ++j)
                if (series[i].group == series[j].group) add_crossovers(series[i], series[j], metric, intervals, a);
    }
    return a;
}

}  // namespace awb
