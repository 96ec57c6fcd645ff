// The curves of a sweep and their analysis: power-law fits per variant and metric, and crossovers
// between variants of the same shape (with whether the measurement's spread settles the order).
#pragma once

#include <string>
#include <vector>

#include "analysis/bootstrap.h"
#include "analysis/scaling.h"
#include "model/sweep.h"

namespace awb {

// A curve: the points of one variant, dtype and shape except N.
struct SeriesFit {
    std::string metric;          // "median_time" (ns) or "peak_memory" (bytes)
    std::string series;          // "manual float32 2x8xNx64 train"
    PowerFit fit;                // not valid with fewer than kMinFitPoints lengths (fit_refusal says so)
    Interval exponent_interval;  // time: bootstrap over each point's timed samples; memory is exact (none)
    // Peak memory with a known capacity (Environment::memory_bytes) and a growing curve: the length
    // at which the fitted curve reaches it, coefficient x N^k = capacity; 0 otherwise.
    double fills_memory_at_n = 0;
};

struct SeriesCrossover {
    std::string metric;
    std::string series_a, series_b;
    Crossover at;
    // Time only: at one of the two bracketing lengths the p10-p90 ranges of the two variants overlap,
    // so the order there is not established by the measurement.
    bool within_noise = false;
    // Time: where the crossover lies in resamples of the timed samples that keep one in the same
    // bracket, and the share of resamples that do (how sure the order change is).
    Interval n_interval;
    double resampled_share = 0;
};

struct SweepAnalysis {
    int64_t memory_bytes = -1;  // the capacity the memory fits are held against (the sweep's environment)
    std::vector<SeriesFit> fits;
    std::vector<SeriesCrossover> crossovers;
};

// intervals: the bootstrap intervals of the time exponents and crossovers (kBootstrapResamples each).
// Computed once per sweep and kept beside it (the CLI's sweep and merge, the GUI's session): its
// files, report and charts all take it.
SweepAnalysis analyze_sweep(const SweepResult& result, bool intervals = true);

// The curves of a sweep (ok points only), in first-seen order, samples sorted by N: what analyze_sweep()
// fits and what the GUI charts.
struct SeriesSample {
    double n = 0;
    double median_ns = 0, p10_ns = 0, p90_ns = 0;
    int64_t peak_bytes = -1;
    const std::vector<double>* samples_ns = nullptr;  // the point's timed samples (in the SweepResult), for intervals
};
struct SweepSeries {
    std::string name;   // "manual float32 2x8xNx64 train"
    std::string group;  // the same name without the variant: curves compared for crossovers
    std::string variant;
    std::vector<SeriesSample> samples;
};
// The spec with N written as "N" ("manual float32 2x8xNx64 train"): the name of the curve a point belongs to.
std::string series_name(const RunSpec& spec);
std::vector<SweepSeries> sweep_series(const SweepResult& result);
// (N, value) of one metric: "median_time" (ns) or "peak_memory" (bytes, measured points only).
std::vector<SeriesPoint> metric_points(const SweepSeries& series, const std::string& metric);

}  // namespace awb
