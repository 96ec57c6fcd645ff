// The step schedule is torch.profiler.schedule's: the expected actions below are what
// torch.profiler.schedule(wait, warmup, active, repeat) returns for steps 0..N (Python 1.13).
#include <gtest/gtest.h>

#include "model/profile_options.h"

using namespace awb;

namespace {
std::string actions(const ProfileOptions& o, int steps) {
    std::string out;
    for (int i = 0; i < steps; ++i) {
        switch (schedule_action(o, i)) {
            case ScheduleAction::None: out += 'N'; break;
            case ScheduleAction::Warmup: out += 'W'; break;
            case ScheduleAction::Record: out += 'R'; break;
            case ScheduleAction::RecordAndSave: out += 'S'; break;
        }
    }
    return out;
}
}  // namespace

TEST(Schedule, ArticleSchedule) {
    ProfileOptions o;  // wait=1 warmup=1 active=3 repeat=1
    EXPECT_EQ(actions(o, 7), "NWRRSNN");
    EXPECT_EQ(total_steps(o), 5);
}

TEST(Schedule, RepeatCycles) {
    ProfileOptions o;
    o.wait = 2;
    o.warmup = 1;
    o.active = 2;
    o.repeat = 2;
    EXPECT_EQ(actions(o, 12), "NNWRSNNWRSNN");
    EXPECT_EQ(total_steps(o), 10);
}

TEST(Schedule, NoWaitNoWarmupSingleActive) {
    ProfileOptions o;
    o.wait = 0;
    o.warmup = 0;
    o.active = 1;
    o.repeat = 3;
    EXPECT_EQ(actions(o, 4), "SSSN");
}
