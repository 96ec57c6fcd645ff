// What is known about one measurement: a profiled run, a profiler-off benchmark, a sweep and a
// correctness check, any of them absent. The advisor and the measurement checklist read it; a report
// shows it. Pure C++: no torch, no Qt.
#pragma once

#include "analysis/op_table.h"
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
    // run's operator table (key_averages of its trace, not grouped) when the caller already has it;
    // null: computed where needed.
    const std::vector<OperatorRow>* run_operators = nullptr;
};

}  // namespace awb
