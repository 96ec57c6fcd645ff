// Joins the shard files of one sweep into the sweep as if run whole: points in the plan's
// order, each keeping the environment of the shard that ran it. A merge is refused, with every
// problem named (file, shard, point), when the files are of different sweeps, when a point is in two
// files or missing (unless allowed), or when shards ran on different environments (torch, CUDA,
// driver, device: unless allowed; hosts may differ, that is the point of a cluster).
#pragma once

#include <string>
#include <vector>

#include "model/sweep.h"

namespace awb {

struct ShardFile {
    std::string name;  // as the user gave it: messages name it
    SweepResult sweep;
};

struct MergeOptions {
    bool allow_mixed = false;    // merge shards measured on different environments
    bool allow_missing = false;  // merge although points are missing (the result says which)
};

struct MergeOutcome {
    SweepResult merged;                 // valid when problems is empty
    std::vector<std::string> problems;  // why the merge is refused, one line each
    std::vector<std::string> notes;     // what an allowed merge should still tell (missing points, mixed)
    std::vector<int> missing;           // indices into expand(plan) no file holds
};

MergeOutcome merge_shards(const std::vector<ShardFile>& files, const MergeOptions& options = {});

// What tells environments apart for a merge: torch, device kind and name, CUDA, driver (not host,
// time, threads). "torch 2.11.0, cuda NVIDIA H200, CUDA 13.0, driver 580.65"
std::string environment_key(const Environment& e);

// Where a point ran: its shard's environment in a merged sweep, else the sweep's.
const Environment& where_ran(const SweepResult& sweep, const SweepPoint& point);

}  // namespace awb
