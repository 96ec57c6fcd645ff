// Profiler options and the step schedule, exactly like torch.profiler.schedule(wait, warmup, active,
// repeat): steps in "wait" run with the profiler off, "warmup" steps run under a prepared profiler and
// are discarded, "active" steps are recorded; the last active step of a cycle saves the cycle.
#pragma once

#include <string>
#include <vector>

#include "model/run_spec.h"

namespace awb {

struct ProfileOptions {
    int wait = 1;
    int warmup = 1;
    int active = 3;
    int repeat = 1;  // cycles; unlike torch (0 = forever) a run here always ends
    bool record_shapes = true;
    bool profile_memory = true;
    bool with_stack = false;
    bool operator==(const ProfileOptions&) const = default;
};

enum class ScheduleAction { None, Warmup, Record, RecordAndSave };

ScheduleAction schedule_action(const ProfileOptions& o, int step);  // torch's schedule_fn(step)
int total_steps(const ProfileOptions& o);                           // (wait + warmup + active) * repeat
std::vector<SpecProblem> validate(const ProfileOptions& o);
std::string to_string(ScheduleAction a);

}  // namespace awb
