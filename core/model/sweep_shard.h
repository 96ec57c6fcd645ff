// Sharded sweeps: which of a sweep's points one process runs. The split is deterministic
// (every shard computes the same one from the plan alone, on any machine) and balanced by each
// point's expected wall time, not by count: the longest points are dealt first, each to the shard
// with the least expected time so far (LPT). A shard runs its points in the sweep's own order.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/sweep.h"

namespace awb {

// "K/N": shard K (counting from 0) of N. nullopt with `error` set when the text is not that.
std::optional<SweepShard> parse_shard(const std::string& text, std::string& error);

// The shard a scheduler chose through the environment: torchrun's RANK / WORLD_SIZE first, then a
// Slurm job array's SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT (the id less SLURM_ARRAY_TASK_MIN,
// divided by SLURM_ARRAY_TASK_STEP). nullopt without either (the whole sweep) or, with `error` set,
// when a variable is malformed or out of range. `get` reads a variable (std::getenv in the CLI).
using EnvironmentLookup = std::function<const char*(const char*)>;
std::optional<SweepShard> shard_from_environment(const EnvironmentLookup& get, std::string& error);

// What balances the shards: a point's expected wall time in seconds from its FLOPs and bytes at a
// nominal speed per device kind (fixed numbers, not measured: every shard must compute the same
// split), plus what the bench options add (warm-up, the time budget, the memory pass, profiling).
double expected_point_seconds(const RunSpec& spec, const SweepPlan& plan);

// The points (indices into expand(plan)) of each of `count` shards, each list in run order.
std::vector<std::vector<int>> split_points(const SweepPlan& plan, int count);

// Shard `shard.index`'s points (a whole sweep when count is 1).
std::vector<int> shard_points(const SweepPlan& plan, const SweepShard& shard);

// The part of the whole sweep's expected time that shard `shard.index` holds, 0..1 (1 when whole):
// how even the split is by the nominal speeds; printed by attnwb sweep --shard.
double expected_share(const SweepPlan& plan, const SweepShard& shard);

// "2-of-4" (what {shard} becomes in an output path).
std::string shard_tag(const SweepShard& shard);

// An output path for a shard: "{shard}" replaced by shard_tag; a path without it gets
// ".shard-2-of-4" before its extension (.json, .json.gz, .csv, .html...) when the sweep is sharded,
// so that shards writing to one shared folder never overwrite each other.
std::string shard_output_path(const std::string& path, const SweepShard& shard);

}  // namespace awb
