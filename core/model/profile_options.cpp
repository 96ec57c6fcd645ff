#include "model/profile_options.h"

namespace awb {

ScheduleAction schedule_action(const ProfileOptions& o, int step) {
    const int cycle = o.wait + o.warmup + o.active;
    if (cycle <= 0 || step < 0) return ScheduleAction::None;
    if (o.repeat > 0 && step / cycle >= o.repeat) return ScheduleAction::None;
    const int mod = step % cycle;
    if (mod < o.wait) return ScheduleAction::None;
    if (mod < o.wait + o.warmup) return ScheduleAction::Warmup;
    return mod < cycle - 1 ? ScheduleAction::Record : ScheduleAction::RecordAndSave;
}

int total_steps(const ProfileOptions& o) { return (o.wait + o.warmup + o.active) * o.repeat; }

std::vector<SpecProblem> validate(const ProfileOptions& o) {
    std::vector<SpecProblem> out;
    if (o.wait < 0) out.push_back({"wait", std::to_string(o.wait) + " must be >= 0"});
    if (o.warmup < 0) out.push_back({"warmup", std::to_string(o.warmup) + " must be >= 0"});
    if (o.active < 1) out.push_back({"active", std::to_string(o.active) + " must be >= 1 (steps recorded per cycle)"});
    if (o.repeat < 1)
        out.push_back({"repeat", std::to_string(o.repeat) + " must be >= 1 (torch's 0 = 'forever' never ends a run)"});
    if (o.wait + o.warmup + o.active > 100000 || o.repeat > 10000)
        out.push_back({"schedule", "more than 100000 steps per cycle or 10000 cycles is not a profiling run"});
    return out;
}

std::string to_string(ScheduleAction a) {
    switch (a) {
        case ScheduleAction::None: return "none";
        case ScheduleAction::Warmup: return "warmup";
        case ScheduleAction::Record: return "record";
        case ScheduleAction::RecordAndSave: return "record_and_save";
    }
    return "?";
}

}  // namespace awb
