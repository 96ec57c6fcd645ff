// Runs a sweep plan point by point with the profiler off (and on, when the plan profiles), each point
// reported as soon as it finishes; a refused or failed point does not stop the rest. No torch here.
#pragma once

#include "model/sweep.h"

namespace awb {

// Runs the shard's points (model/sweep_shard.h; all of them by default), each keeping its index in
// the whole sweep. Throws InvalidInput for a bad plan; otherwise always returns what finished, with
// the environment it ran on even when every point was refused.
SweepResult run_sweep(const SweepPlan& plan, SweepObserver* observer = nullptr, const SweepShard& shard = {});

}  // namespace awb
