// A profiled run as a value: its spec, options, environment, trace and per-step wall times. What the
// engine's profiler session returns, what result files and imported traces hold; no LibTorch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/device_roofs.h"
#include "model/environment.h"
#include "model/import_notes.h"
#include "model/profile_options.h"
#include "model/run_spec.h"
#include "model/trace.h"

namespace awb {

struct StepRecord {
    int step = 0;
    ScheduleAction action = ScheduleAction::None;
    int64_t wall_ns = 0;  // the step's wall time (forward [+ backward]), profiler overhead included
};

struct ProfileResult {
    RunSpec spec;
    bool spec_known = true;  // false for a trace imported without our metadata: spec is the default
    ProfileOptions options;
    Environment environment;
    Trace trace;                     // events of all recorded steps
    std::vector<StepRecord> steps;   // every step, recorded or not
    int64_t device_peak_bytes = -1;  // CUDA allocator peak over recorded steps; -1 on CPU
    bool interrupted = false;        // stopped early: the steps run so far, the recording cut where it stood
    Roof roof;  // the run's roof for its dtype (engine/roof_probe.h: run_roof), set by the CLI and the GUI
                // after profile_run; not known() for foreign traces
    std::vector<std::string> kineto_trace_files;     // Kineto's own chrome traces written (see profile_run)
    std::vector<std::string> kineto_trace_problems;  // ... and those Kineto failed to write, with the reason
    std::string memory_snapshot;                     // the CUDA caching allocator's history over the steps, pickled as
        // torch.cuda.memory._dump_snapshot writes it, when profile_run was asked
        // to record it (engine/memory_history.h); empty otherwise
    ImportNotes import;  // what reading its trace file left out or found odd; empty for a run of ours
};

// The path of cycle k (0-based) of a Kineto trace written to path: path itself for k = 0, else
// ".cycle<k+1>" before a trailing ".json" (or at the end).
std::string kineto_cycle_path(const std::string& path, int cycle);

// One rank of a run of several as a run of its own: the run's facts (spec, options, environment, roof,
// import notes), its trace the rank's events alone (Trace::of_rank).
ProfileResult run_of_rank(const ProfileResult& run, int32_t rank);

// Median wall time of the recorded steps (profiler on), -1 when none was recorded.
double median_recorded_step_ns(const ProfileResult& result);

}  // namespace awb
