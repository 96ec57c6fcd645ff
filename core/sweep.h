// Sweeps: lists of sequence lengths (and batch, heads, head_dim) x variants x dtypes, run point by
// point with the profiler off, each point reported as soon as it finishes; then power-law fits and
// crossovers per metric. No torch in this header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench_stats.h"
#include "op_table.h"
#include "profile_options.h"
#include "run_observer.h"
#include "run_spec.h"
#include "scaling.h"

namespace awb {

struct SweepPlan {
    RunSpec base;                      // every field that is not swept
    std::vector<int64_t> seq_lengths;  // N: seq_q = seq_k = N; empty: the base's lengths
    std::vector<int64_t> batches;      // empty: the base's
    std::vector<int64_t> heads;        // kv_heads follows heads unless the base uses GQA
    std::vector<int64_t> head_dims;
    std::vector<std::string> variants;  // empty: the base's
    std::vector<Dtype> dtypes;          // empty: the base's
    BenchOptions bench;
    bool profile = false;  // also an operator table and the profiler overhead per point
    ProfileOptions profile_options;
    bool operator==(const SweepPlan&) const = default;
};

// Problems with the lists themselves (non-positive sizes, duplicates, bench options); the points'
// specs are validated one by one when they run, so one bad point does not stop the rest.
std::vector<SpecProblem> validate(const SweepPlan& plan);

// The points in run order: dtype, batch, heads, head_dim, then N, variants innermost, so that all
// variants of a length finish before the next length starts. Padding key lengths scale with N
// (rounded, at least 1) and repeat cyclically over a swept batch.
std::vector<RunSpec> expand(const SweepPlan& plan);

enum class PointStatus { Ok, Refused, Failed, Cancelled };
std::string to_string(PointStatus s);  // "ok", "refused", "failed", "cancelled"
bool parse_point_status(const std::string& s, PointStatus& out);

struct SweepPoint {
    RunSpec spec;
    PointStatus status = PointStatus::Ok;
    std::string reason;                   // why refused / failed
    BenchResult bench;                    // filled when status is ok
    std::vector<OperatorRow> operators;   // when the plan profiles
    bool operator==(const SweepPoint&) const = default;
};

struct SweepResult {
    SweepPlan plan;
    Environment environment;
    std::vector<SweepPoint> points;  // in run order; fewer than planned when stopped early
    int planned_points = 0;
    bool stopped_early = false;      // cancelled or stopped between points
    bool operator==(const SweepResult&) const = default;
};

// A curve: the points of one variant, dtype and shape except N.
struct SeriesFit {
    std::string metric;  // "median_time" (ns) or "peak_memory" (bytes)
    std::string series;  // "manual float32 2x8xNx64 train"
    PowerFit fit;
    bool operator==(const SeriesFit&) const = default;
};

struct SeriesCrossover {
    std::string metric;
    std::string series_a, series_b;
    Crossover at;
    // Time only: at one of the two bracketing lengths the p10-p90 ranges of the two variants overlap,
    // so the order there is not established by the measurement.
    bool within_noise = false;
};

struct SweepAnalysis {
    std::vector<SeriesFit> fits;
    std::vector<SeriesCrossover> crossovers;
};

SweepAnalysis analyze(const SweepResult& result);

// The curves of a sweep (ok points only), in first-seen order, samples sorted by N: what analyze()
// fits and what the GUI charts.
struct SeriesSample {
    double n = 0;
    double median_ns = 0, p10_ns = 0, p90_ns = 0;
    int64_t peak_bytes = -1;
};
struct SweepSeries {
    std::string name;     // "manual float32 2x8xNx64 train"
    std::string group;    // the same name without the variant: curves compared for crossovers
    std::string variant;
    std::vector<SeriesSample> samples;
};
// The spec with N written as "N" ("manual float32 2x8xNx64 train"): the name of the curve a point belongs to.
std::string series_name(const RunSpec& spec);
std::vector<SweepSeries> sweep_series(const SweepResult& result);
// (N, value) of one metric: "median_time" (ns) or "peak_memory" (bytes, measured points only).
std::vector<SeriesPoint> metric_points(const SweepSeries& series, const std::string& metric);

// Receives each point as soon as it finishes. stop_between_points() is polled before each point
// (the CLI's first Ctrl-C), cancel_requested() also between a point's samples (its second).
class SweepObserver : public RunObserver {
public:
    virtual void on_point(const SweepPoint& point, int index, int total) { (void)point, (void)index, (void)total; }
    virtual bool stop_between_points() const { return cancel_requested(); }
};

// Throws InvalidInput for a bad plan; otherwise always returns what finished.
SweepResult run_sweep(const SweepPlan& plan, SweepObserver* observer = nullptr);

}  // namespace awb
