// Runs a sweep plan point by point with the profiler off (and on, when the plan profiles), each point
// reported as soon as it finishes; a refused or failed point does not stop the rest. No torch here.
#pragma once

#include "model/sweep.h"

namespace awb {

// Throws InvalidInput for a bad plan; otherwise always returns what finished.
SweepResult run_sweep(const SweepPlan& plan, SweepObserver* observer = nullptr);

}  // namespace awb
