#include "analysis/sweep_analysis.h"

#include <algorithm>
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
