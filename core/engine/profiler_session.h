// Profiled runs: the article's loop under the PyTorch profiler with a torch.profiler.schedule, on
// the calling thread, producing a Trace. No torch in this header: the GUI's worker includes it.
#pragma once

#include <cstddef>
#include <string>

#include "model/profile_options.h"
#include "model/profile_result.h"
#include "model/run_observer.h"
#include "model/run_spec.h"

namespace awb {

// Validates (throws InvalidInput listing every problem), then runs. Throws Cancelled when the
// observer asks between steps, RunFailed when LibTorch fails. Must not run concurrently with
// another profiled run in the same process (the profiler is per process).
// kineto_trace_path: where Kineto writes its own chrome trace of each recorded cycle, as
// torch.profiler's export_chrome_trace does (the path itself for the first cycle, NAME.cycleK.json
// for cycle K >= 2); empty for none. Needs a LibTorch with Kineto (kineto_available()).
// memory_history_entries: more than 0 records the CUDA caching allocator's history (at most that many
// events) from before the first step to after the last, and returns its snapshot in
// ProfileResult::memory_snapshot (engine/memory_history.h: the 2.x build with CUDA, a CUDA spec; else
// InvalidInput on "memory_snapshot" before anything runs). The steps' times then include the recording's
// cost (a C++ stack gathered per allocation and free). 0: none.
ProfileResult profile_run(const RunSpec& spec, const ProfileOptions& options, RunObserver* observer = nullptr,
                          const std::string& kineto_trace_path = {}, std::size_t memory_history_entries = 0);

// True when this LibTorch build has Kineto (the 2.x wheel), so profile_run can write its traces.
bool kineto_available();

}  // namespace awb
