// Profiled runs end to end on a small spec: the schedule's regions, memory events, shapes, progress,
// cancel and refusal of bad specs.
#include <gtest/gtest.h>

#include <algorithm>
#include <unistd.h>

#include <filesystem>

#include "analysis/memory_replay.h"
#include "analysis/op_table.h"
#include "engine/profiler_session.h"
#include "io/trace_import.h"
#include "results/chrome_trace.h"
#include "test_support.h"

using namespace awb;
using awb::test::small_spec;

namespace {

int count_named(const Trace& t, const std::string& prefix) {
    return int(std::count_if(t.events().begin(), t.events().end(),
                             [&](const TraceEvent& e) { return e.name.rfind(prefix, 0) == 0; }));
}

class Recorder final : public RunObserver {
public:
    void on_progress(int done, int total, const std::string& what) override {
        seen.push_back(done);
        last_total = total;
        last_what = what;
    }
    bool cancel_requested() const override { return cancel_after > 0 && int(seen.size()) >= cancel_after; }
    std::vector<int> seen;
    int last_total = 0;
    std::string last_what;
    int cancel_after = 0;
};

}  // namespace

TEST(ProfilerSession, RecordsTheActiveStepsWithRegions) {
    Recorder rec;
    const ProfileResult r = profile_run(small_spec(), ProfileOptions{}, &rec);
    EXPECT_EQ(count_named(r.trace, "ProfilerStep#"), 3) << "wait=1 warmup=1 active=3: steps 2..4 recorded";
    EXPECT_EQ(count_named(r.trace, "ProfilerStep#2"), 1);
    EXPECT_EQ(count_named(r.trace, "ProfilerStep#4"), 1);
    EXPECT_EQ(count_named(r.trace, "manual"), 3);
    EXPECT_GT(count_named(r.trace, "aten::bmm"), 0);
    EXPECT_GT(count_named(r.trace, "autograd::engine::evaluate_function: SoftmaxBackward0"), 0);
    ASSERT_EQ(r.steps.size(), 5u);
    EXPECT_EQ(r.steps[0].action, ScheduleAction::None);
    EXPECT_EQ(r.steps[1].action, ScheduleAction::Warmup);
    EXPECT_EQ(r.steps[4].action, ScheduleAction::RecordAndSave);
    EXPECT_EQ(rec.seen, (std::vector<int>{1, 2, 3, 4, 5}));
    EXPECT_EQ(rec.last_total, 5);
    EXPECT_FALSE(r.trace.memory().empty());
    EXPECT_FALSE(r.environment.torch_version.empty());

    // The variant region nests inside its step, and ops inside the region.
    for (const auto& e : r.trace.events()) {
        if (e.name == "manual") {
            ASSERT_GE(e.parent, 0);
            EXPECT_EQ(r.trace.events()[size_t(e.parent)].name.rfind("ProfilerStep#", 0), 0u);
            EXPECT_EQ(e.kind, EventKind::UserAnnotation);
        }
    }
    // Shapes recorded: the first bmm of the forward multiplies [B*H, N, D] by [B*H, D, N].
    auto bmm = std::find_if(r.trace.events().begin(), r.trace.events().end(),
                            [](const TraceEvent& e) { return e.name == "aten::bmm"; });
    ASSERT_NE(bmm, r.trace.events().end());
    EXPECT_EQ(format_shapes(bmm->shapes()), "[[2, 64, 16], [2, 16, 64]]");
    EXPECT_EQ(bmm->dtypes().front(), "float");

    // Peak memory: the forward's [1,2,64,64] float scores (32 KiB each) are live at once.
    const auto series = replay_memory(r.trace);
    ASSERT_FALSE(series.empty());
    EXPECT_GE(series.front().peak_bytes, 3 * 32 * 1024);
}

TEST(ProfilerSession, OptionsOffRecordNoShapesOrMemory) {
    ProfileOptions o;
    o.record_shapes = false;
    o.profile_memory = false;
    const ProfileResult r = profile_run(small_spec(), o);
    EXPECT_TRUE(r.trace.memory().empty());
    for (const auto& e : r.trace.events()) EXPECT_TRUE(e.shapes().empty()) << e.name;
}

// with_stack records Python and TorchScript frames; our loop is C++, so LibTorch (1.13 and 2.11 alike,
// measured) gives no frames, and the trace says nothing it does not know.
TEST(ProfilerSession, WithStackGivesNoFramesToACppCaller) {
    ProfileOptions o;
    o.with_stack = true;
    const ProfileResult r = profile_run(small_spec(), o);
    ASSERT_GT(r.trace.events().size(), 100u);
    for (const auto& e : r.trace.events()) EXPECT_TRUE(e.stack().empty()) << e.name;
}

TEST(ProfilerSession, RepeatRecordsEveryCycle) {
    ProfileOptions o;
    o.wait = 0;
    o.warmup = 1;
    o.active = 1;
    o.repeat = 3;
    const ProfileResult r = profile_run(small_spec(), o);
    EXPECT_EQ(count_named(r.trace, "ProfilerStep#"), 3);
    std::vector<std::string> steps;
    for (const auto& e : r.trace.events())
        if (e.name.rfind("ProfilerStep#", 0) == 0) steps.push_back(e.name);
    EXPECT_EQ(steps, (std::vector<std::string>{"ProfilerStep#1", "ProfilerStep#3", "ProfilerStep#5"}));
}

// Kineto's own chrome trace of a run (LibTorch 2.x) and ours of the same run import to the same
// operator table: names, order, calls, memory and times. Debian's 1.13 has no Kineto: refused by field.
TEST(ProfilerSession, KinetoTraceAndOursImportToTheSameTable) {
    const auto dir = std::filesystem::temp_directory_path() / ("awb_kineto_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string kineto = (dir / "kineto.json").string(), ours = (dir / "ours.json").string();
    if (!kineto_available()) {
        try {
            profile_run(small_spec(), ProfileOptions{}, nullptr, kineto);
            ADD_FAILURE() << "a Kineto trace was asked of a LibTorch without Kineto";
        } catch (const InvalidInput& e) {
            EXPECT_EQ(e.problems().at(0).field, "kineto_trace");
            EXPECT_NE(std::string(e.what()).find("built without Kineto"), std::string::npos) << e.what();
        }
        EXPECT_FALSE(std::filesystem::exists(kineto));
        std::filesystem::remove_all(dir);
        return;
    }
    const ProfileResult r = profile_run(small_spec(), ProfileOptions{}, nullptr, kineto);
    ASSERT_EQ(r.kineto_trace_files, std::vector<std::string>{kineto});
    write_chrome_trace(r.trace, run_trace_info(r, "attnwb"), ours);
    for (bool by_shape : {false, true}) {
        const auto a = key_averages(import_chrome_trace(ours).trace, {by_shape});
        const auto b = key_averages(import_chrome_trace(kineto).trace, {by_shape});
        ASSERT_EQ(a.size(), b.size());
        ASSERT_GT(a.size(), 20u);
        for (size_t i = 0; i < a.size(); ++i) {
            EXPECT_EQ(a[i].name, b[i].name);
            EXPECT_EQ(a[i].input_shapes, b[i].input_shapes);
            EXPECT_EQ(a[i].calls, b[i].calls) << a[i].name;
            EXPECT_EQ(a[i].cpu_memory_bytes, b[i].cpu_memory_bytes) << a[i].name;
            EXPECT_EQ(a[i].self_cpu_memory_bytes, b[i].self_cpu_memory_bytes) << a[i].name;
            // Both write microseconds with three decimals: the same nanoseconds.
            EXPECT_EQ(a[i].self_cpu_ns, b[i].self_cpu_ns) << a[i].name;
            EXPECT_EQ(a[i].cpu_total_ns, b[i].cpu_total_ns) << a[i].name;
        }
    }
    // Two cycles: two Kineto files, each one cycle's steps.
    ProfileOptions two;
    two.wait = 0;
    two.active = 1;
    two.repeat = 2;
    const ProfileResult r2 = profile_run(small_spec(), two, nullptr, kineto);
    ASSERT_EQ(r2.kineto_trace_files, (std::vector<std::string>{kineto, (dir / "kineto.cycle2.json").string()}));
    for (const auto& f : r2.kineto_trace_files) {
        const auto rows = key_averages(import_chrome_trace(f).trace);
        auto step =
            std::find_if(rows.begin(), rows.end(), [](const OperatorRow& row) { return row.name == "ProfilerStep*"; });
        ASSERT_NE(step, rows.end()) << f;
        EXPECT_EQ(step->calls, 1) << f;
    }
    std::filesystem::remove_all(dir);
}

TEST(ProfilerSession, KinetoCyclePaths) {
    EXPECT_EQ(kineto_cycle_path("t.json", 0), "t.json");
    EXPECT_EQ(kineto_cycle_path("t.json", 1), "t.cycle2.json");
    EXPECT_EQ(kineto_cycle_path("run.pt.trace.json", 2), "run.pt.trace.cycle3.json");
    EXPECT_EQ(kineto_cycle_path("trace", 1), "trace.cycle2");
}

TEST(ProfilerSession, CancelStopsBetweenSteps) {
    Recorder rec;
    rec.cancel_after = 2;
    EXPECT_THROW(profile_run(small_spec(), ProfileOptions{}, &rec), Cancelled);
    EXPECT_EQ(rec.seen, (std::vector<int>{1, 2}));
    // The profiler was shut down: a new run works.
    EXPECT_NO_THROW(profile_run(small_spec(), ProfileOptions{}));
}

// A cancel while the profiler is prepared but not recording (a warm-up step) ends it as torch.profiler's
// exit does: on LibTorch 2.11 a Kineto left prepared made the next profile in the process record nothing.
TEST(ProfilerSession, CancelDuringWarmupLeavesTheProfilerReady) {
    Recorder rec;
    rec.cancel_after = 2;
    ProfileOptions warm;
    warm.warmup = 5;
    EXPECT_THROW(profile_run(small_spec(), warm, &rec), Cancelled);
    const ProfileResult next = profile_run(small_spec(), ProfileOptions{});
    EXPECT_EQ(count_named(next.trace, "ProfilerStep#"), 3);
    EXPECT_GT(count_named(next.trace, "aten::softmax"), 0);
}

// Asked to finish once a step was recorded: the run ends there with what it recorded, marked interrupted.
TEST(ProfilerSession, FinishKeepsTheRecordedSteps) {
    Recorder rec;
    rec.cancel_after = 3;  // wait, warm-up, one recorded step
    ProfileOptions o;
    o.active = 50;
    const ProfileResult r = profile_run(small_spec(), o, &rec);
    EXPECT_TRUE(r.interrupted);
    EXPECT_EQ(r.steps.size(), 3u);
    // The work of exactly one step, as a run with one active step records it; plus, on Kineto, the empty
    // ProfilerStep# that step() opened for the next step, as torch.profiler records when a loop leaves
    // its with-block early.
    ProfileOptions one;
    one.active = 1;
    const ProfileResult full = profile_run(small_spec(), one);
    EXPECT_GT(count_named(r.trace, "aten::softmax"), 0);
    EXPECT_EQ(count_named(r.trace, "aten::softmax"), count_named(full.trace, "aten::softmax"));
    EXPECT_GE(count_named(r.trace, "ProfilerStep#"), 1);
    EXPECT_LE(count_named(r.trace, "ProfilerStep#"), 2);
}

TEST(ProfilerSession, InvalidSpecIsRefusedWithEveryProblem) {
    RunSpec s = small_spec();
    s.kv_heads = 3;
    s.variant = "nope";
    ProfileOptions o;
    o.active = 0;
    try {
        profile_run(s, o);
        FAIL() << "expected InvalidInput";
    } catch (const InvalidInput& e) {
        std::vector<std::string> fields;
        for (const auto& p : e.problems()) fields.push_back(p.field);
        EXPECT_EQ(fields, (std::vector<std::string>{"variant", "kv_heads", "active"}));
    }
}

TEST(ProfilerSession, SpecBeyondMemoryIsRefusedBeforeAllocating) {
    RunSpec s = small_spec();
    s.seq_q = s.seq_k = 1 << 20;  // scores: 2 * 2^40 floats
    try {
        profile_run(s, ProfileOptions{});
        FAIL() << "expected InvalidInput";
    } catch (const InvalidInput& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        EXPECT_EQ(e.problems()[0].field, "memory");
    }
}
