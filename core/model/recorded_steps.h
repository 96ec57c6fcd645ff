// The recorded steps of a run (profiler on), wherever steps are used (the comparison and its verdict,
// the report, attnwb diff and profile, the checklist): a run's own records of its recorded steps, or,
// for an imported trace (or a run without records), the trace's top-level CPU ProfilerStep#k spans
// (one per rank), by k. median_recorded_step_ns (profile_result.h) is their median. Pure C++.
#pragma once

#include <vector>

#include "model/profile_result.h"

namespace awb {

std::vector<StepRecord> recorded_steps(const ProfileResult& result);

}  // namespace awb
