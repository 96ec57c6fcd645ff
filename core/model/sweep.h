// Sweeps as values: the plan (lists of sequence lengths, batch, heads, head_dim x variants x dtypes),
// its points in run order, and the result of each point. engine/sweep_runner.h runs a plan;
// analysis/sweep_analysis.h fits its curves.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/bench_stats.h"
#include "model/environment.h"
#include "model/operator_row.h"
#include "model/profile_options.h"
#include "model/run_observer.h"
#include "model/run_spec.h"

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

// Which part of a sweep a run or a file holds (model/sweep_shard.h splits the points).
struct SweepShard {
    int index = 0;          // from 0
    int count = 1;          // 1: the whole sweep
    std::string chosen_by;  // "--shard", "RANK/WORLD_SIZE", "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT"; empty: whole
    bool whole() const { return count == 1; }
    bool operator==(const SweepShard&) const = default;
};

struct SweepPoint {
    int index = -1;  // position in expand(plan): the same point in every shard and in the merge
    RunSpec spec;
    PointStatus status = PointStatus::Ok;
    std::string reason;                  // why refused / failed
    BenchResult bench;                   // filled when status is ok
    std::vector<OperatorRow> operators;  // when the plan profiles
    std::optional<Environment> ran_on;   // set by a merge: the environment of the shard that ran it
    bool operator==(const SweepPoint&) const = default;
};

struct SweepResult {
    SweepPlan plan;
    Environment environment;
    std::vector<SweepPoint> points;        // in run order; fewer than planned when stopped early
    int planned_points = 0;                // of this shard (of the sweep when whole)
    bool stopped_early = false;            // cancelled or stopped between points (a merge: points missing)
    SweepShard shard;                      // the part of the plan this result holds
    std::vector<std::string> merged_from;  // a merge: the shard files it joined, in shard order
    bool mixed_environments = false;       // a merge of shards measured on different environments
    bool operator==(const SweepResult&) const = default;
};

// Receives each point as soon as it finishes. finish_requested() is polled before each point (the
// CLI's first Ctrl-C), cancel_requested() also between a point's samples (its second): a point is
// whole or cancelled, never cut short.
class SweepObserver : public RunObserver {
public:
    virtual void on_point(const SweepPoint& point, int index, int total) { (void)point, (void)index, (void)total; }
};

}  // namespace awb
