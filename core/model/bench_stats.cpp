#include "model/bench_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace awb {

std::vector<SpecProblem> validate(const BenchOptions& o) {
    std::vector<SpecProblem> out;
    if (o.warmup < 0) out.push_back({"warmup", std::to_string(o.warmup) + " must be >= 0"});
    if (!(o.budget_s >= 0) || o.budget_s > 86400)
        out.push_back({"budget", std::to_string(o.budget_s) + " s must be between 0 and 86400"});
    if (o.min_repeats < 1) out.push_back({"min_repeats", std::to_string(o.min_repeats) + " must be >= 1"});
    if (o.max_repeats < o.min_repeats)
        out.push_back({"max_repeats",
                       std::to_string(o.max_repeats) + " must be >= min_repeats = " + std::to_string(o.min_repeats)});
    if (!(o.min_sample_s >= 0) || o.min_sample_s > 60)
        out.push_back({"min_sample", std::to_string(o.min_sample_s) + " s must be between 0 and 60"});
    return out;
}

double quantile(std::vector<double> v, double q) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    const double pos = std::clamp(q, 0.0, 1.0) * double(v.size() - 1);
    const auto lo = size_t(std::floor(pos));
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

TimingStats summarize_samples(const std::vector<double>& s, int iterations_per_sample) {
    TimingStats t;
    t.repeats = int(s.size());
    t.iterations_per_sample = iterations_per_sample;
    if (s.empty()) return t;
    t.median_ns = quantile(s, 0.5);
    t.p10_ns = quantile(s, 0.1);
    t.p90_ns = quantile(s, 0.9);
    t.min_ns = *std::min_element(s.begin(), s.end());
    t.max_ns = *std::max_element(s.begin(), s.end());
    t.mean_ns = std::accumulate(s.begin(), s.end(), 0.0) / double(s.size());
    return t;
}

double roof_share(const BenchResult& r) {
    const double attainable = r.roof.attainable_tflops(r.flops, r.bytes);
    return attainable > 0 ? r.gflops_per_s / 1e3 / attainable : 0.0;
}

void set_profiled_step(BenchResult& r, double profiled_step_ns) {
    r.profiled_step_ns = profiled_step_ns;
    r.profiler_overhead = r.timing.median_ns > 0 && profiled_step_ns > 0 ? profiled_step_ns / r.timing.median_ns : -1;
}

}  // namespace awb
