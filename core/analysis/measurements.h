// What is known about one measurement: a profiled run, a profiler-off benchmark, a sweep and a
// correctness check, any of them absent. The advisor and the measurement checklist read it; a report
// shows it. Pure C++: no torch, no Qt.
#pragma once

#include "analysis/run_analysis.h"
#include "model/bench_stats.h"
#include "model/check_report.h"
#include "model/profile_result.h"
#include "model/sweep.h"

namespace awb {

struct Measurements {
    const ProfileResult* run = nullptr;
    const BenchResult* bench = nullptr;
    const SweepResult* sweep = nullptr;
    const CheckReport* check = nullptr;
    // run's analysis (operator table, kernels, memory replay) when the caller already has it, as the
    // GUI always does; null: computed where needed.
    const RunAnalysis* run_analysis = nullptr;
};

}  // namespace awb
