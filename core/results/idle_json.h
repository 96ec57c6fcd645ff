// JSON for the idle time of each stream (analysis/idle_time.h), as attnwb inspect --idle --json writes it
// in the run's entry of traces[] beside gpu_breakdown: idle[] of {rank, step, stream, device, gaps,
// host_wait_ns, kernel_wait_ns, other_ns} (step -1: the whole trace, then each ProfilerStep), idle_hta
// {steps (per rank), rows[] as idle[]}, idle_gaps[] (the longest: rank, stream, start_ns, duration_ns,
// cause, held_by, python_frame). Times in ns on the trace's clock (like the file's ts).
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/idle_time.h"

namespace awb {

nlohmann::json idle_json(const IdleReport& report);

}  // namespace awb
