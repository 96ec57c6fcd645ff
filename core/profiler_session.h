// Profiled runs: the article's loop under the PyTorch profiler with a torch.profiler.schedule, on
// the calling thread, producing a Trace. No torch in this header: the GUI's worker includes it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "environment.h"
#include "profile_options.h"
#include "run_observer.h"
#include "run_spec.h"
#include "trace.h"

namespace awb {

struct StepRecord {
    int step = 0;
    ScheduleAction action = ScheduleAction::None;
    int64_t wall_ns = 0;  // the step's wall time (forward [+ backward]), profiler overhead included
};

struct ProfileResult {
    RunSpec spec;
    bool spec_known = true;          // false for a trace imported without our metadata: spec is the default
    ProfileOptions options;
    Environment environment;
    Trace trace;                     // events of all recorded steps
    std::vector<StepRecord> steps;   // every step, recorded or not
    int64_t device_peak_bytes = -1;  // CUDA allocator peak over recorded steps; -1 on CPU
    std::vector<std::string> kineto_trace_files;     // Kineto's own chrome traces written (see profile_run)
    std::vector<std::string> kineto_trace_problems;  // ... and those Kineto failed to write, with the reason
};

// Validates (throws InvalidInput listing every problem), then runs. Throws Cancelled when the
// observer asks between steps, RunFailed when LibTorch fails. Must not run concurrently with
// another profiled run in the same process (the profiler is per process).
// kineto_trace_path: where Kineto writes its own chrome trace of each recorded cycle, as
// torch.profiler's export_chrome_trace does (the path itself for the first cycle, NAME.cycleK.json
// for cycle K >= 2); empty for none. Needs a LibTorch with Kineto (kineto_available()).
ProfileResult profile_run(const RunSpec& spec, const ProfileOptions& options, RunObserver* observer = nullptr,
                          const std::string& kineto_trace_path = {});

// True when this LibTorch build has Kineto (the 2.x wheel), so profile_run can write its traces.
bool kineto_available();

// The path of cycle k (0-based) of a Kineto trace written to path: path itself for k = 0, else
// ".cycle<k+1>" before a trailing ".json" (or at the end).
std::string kineto_cycle_path(const std::string& path, int cycle);

// Median wall time of the recorded steps (profiler on), -1 when none was recorded.
double median_recorded_step_ns(const ProfileResult& result);

}  // namespace awb
