// Which of two runs is faster, by how much, beyond the noise or not: steps of imported
// traces are their ProfilerStep#k spans; step time, device time and peak memory per step compared as
// B / A with a bootstrap interval; fewer than 3 steps a side cannot be told from noise.
#include <gtest/gtest.h>

#include "analysis/run_verdict.h"
#include "io/trace_import.h"
#include "results/workspace.h"
#include "trace_builders.h"

using namespace awb;
using namespace awb::test_traces;

namespace {

ProfileResult imported(const std::string& name) {
    return profile_result_from_import(import_chrome_trace(std::string(AWB_FIXTURE_DIR) + "/traces/compare/" + name));
}

TraceEvent step_span(int k, int64_t start_us, int64_t end_us) {
    TraceEvent e = cpu_op("ProfilerStep#" + std::to_string(k), start_us, end_us, 0);
    e.kind = EventKind::UserAnnotation;
    return e;
}

// steps of the given lengths (us), back to back; in each, one kernel of kernel_us launched from a
// runtime call inside it, and one device allocation of alloc bytes freed at the step's end.
ProfileResult run_of(const std::vector<int64_t>& steps_us, int64_t kernel_us, int64_t alloc) {
    std::vector<TraceEvent> events;
    std::vector<MemoryEvent> memory;
    int64_t t = 0;
    for (size_t i = 0; i < steps_us.size(); ++i) {
        const int64_t corr = 100 + int64_t(i);
        events.push_back(step_span(int(i), t, t + steps_us[i]));
        TraceEvent launch = cpu_op("cudaLaunchKernel", t + 1, t + 2, 0);
        launch.kind = EventKind::Runtime;
        launch.thread = 2;
        launch.correlation_id = corr;
        events.push_back(launch);
        events.push_back(gpu_kernel("k", t + 3, t + 3 + kernel_us, 0, corr));
        memory.push_back({(t + 2) * 1000, alloc, DeviceKind::CUDA, 0});
        memory.push_back({(t + steps_us[i] - 1) * 1000, -alloc, DeviceKind::CUDA, 0});
        t += steps_us[i];
    }
    ProfileResult r;
    r.spec_known = false;
    r.trace = Trace::build(std::move(events), std::move(memory), {});
    return r;
}

RunVerdict verdict(const ProfileResult& a, const ProfileResult& b) {
    const RunAnalysis aa = analyze_run(a), ab = analyze_run(b);
    return compare_runs(a, aa, b, ab);
}

}  // namespace

TEST(RunVerdict, ImportedTracesStepsAreTheirProfilerStepSpans) {
    // HTA's trace-diff pair, cut (tests/fixtures/traces/compare/README.md): six ProfilerSteps each.
    const ProfileResult a = imported("a100_control_steps.json"), b = imported("v100_test_steps.json");
    const auto steps = recorded_steps(a);
    ASSERT_EQ(steps.size(), 6u);
    EXPECT_EQ(steps.front().step, 1009);
    EXPECT_EQ(steps.front().wall_ns, 75473000);  // the span's dur, 75473 us
    EXPECT_GT(median_recorded_step_ns(a), 0);
    const RunVerdict v = verdict(a, b);
    ASSERT_EQ(v.measures.size(), 3u);
    const MeasureVerdict& step = v.measures[0];
    EXPECT_TRUE(step.known);
    EXPECT_EQ(step.n_a, 6u);
    EXPECT_EQ(step.n_b, 6u);
    // Medians of the spans: A (76727 + 76940) / 2 us, B (107230 + 122149) / 2 us.
    EXPECT_DOUBLE_EQ(step.median_a, 76833.5e3);
    EXPECT_DOUBLE_EQ(step.median_b, 114689.5e3);
    EXPECT_TRUE(step.ratio.interval.valid);
    EXPECT_GT(step.ratio.interval.low, 1);  // the V100 is slower in every resample
    EXPECT_TRUE(step.beyond_noise);
    EXPECT_NE(step.text.find("B is 49.3% slower per step"), std::string::npos) << step.text;
    EXPECT_NE(step.text.find("beyond noise"), std::string::npos) << step.text;
    EXPECT_TRUE(v.measures[1].known);  // the kept kernels, per step
    EXPECT_EQ(v.measures[1].n_a, 6u);
    EXPECT_FALSE(v.measures[2].known);  // no [memory] events in these traces
    EXPECT_NE(v.measures[2].text.find("no memory events"), std::string::npos) << v.measures[2].text;
}

TEST(RunVerdict, FasterBeyondNoiseOnStepDeviceAndMemory) {
    const ProfileResult a = run_of({1000, 1010, 990, 1005, 995}, 400, 4096);
    const ProfileResult b = run_of({800, 805, 795, 810, 790}, 200, 2048);
    const RunVerdict v = verdict(a, b);
    const MeasureVerdict &step = v.measures[0], &device = v.measures[1], &memory = v.measures[2];
    EXPECT_NEAR(step.ratio.ratio, 0.8, 1e-9);
    EXPECT_TRUE(step.beyond_noise);
    EXPECT_LT(step.ratio.interval.high, 1);
    EXPECT_NE(step.text.find("B is 20.0% faster per step (median B 800.0 us vs A 1.000 ms"), std::string::npos)
        << step.text;
    EXPECT_DOUBLE_EQ(device.median_a, 400e3);
    EXPECT_DOUBLE_EQ(device.median_b, 200e3);
    EXPECT_NE(device.text.find("B spends 50.0% less device time per step"), std::string::npos) << device.text;
    EXPECT_DOUBLE_EQ(memory.median_a, 4096);
    EXPECT_DOUBLE_EQ(memory.median_b, 2048);
    EXPECT_NE(memory.text.find("B's peak memory per step is 50.0% lower"), std::string::npos) << memory.text;
    EXPECT_EQ(v.headline, step.text);
}

TEST(RunVerdict, OverlappingStepsAreWithinNoise) {
    const RunVerdict v =
        verdict(run_of({1000, 1200, 900, 1100, 950, 1050}, 100, 0), run_of({1010, 1180, 920, 1090, 940, 1060}, 100, 0));
    EXPECT_TRUE(v.measures[0].known);
    EXPECT_TRUE(v.measures[0].ratio.interval.valid);
    EXPECT_FALSE(v.measures[0].beyond_noise);
    EXPECT_NE(v.measures[0].text.find("within noise"), std::string::npos) << v.measures[0].text;
}

TEST(RunVerdict, FewerThanThreeStepsCannotBeToldFromNoise) {
    const RunVerdict v = verdict(run_of({1000, 1000}, 100, 64), run_of({500, 500, 500}, 100, 64));
    EXPECT_TRUE(v.measures[0].known);
    EXPECT_FALSE(v.measures[0].beyond_noise);
    EXPECT_NE(v.measures[0].text.find("cannot be told from noise: A has 2 step(s), B 3"), std::string::npos)
        << v.measures[0].text;
}

TEST(RunVerdict, NoStepsSaysSo) {
    ProfileResult none;
    none.spec_known = false;
    none.trace = Trace::build({cpu_op("aten::mm", 0, 10, 1)}, {}, {});
    const RunVerdict v = verdict(none, run_of({500, 500, 500}, 100, 64));
    EXPECT_FALSE(v.measures[0].known);
    EXPECT_NE(v.headline.find("A has no recorded steps (no ProfilerStep#k spans"), std::string::npos) << v.headline;
}

TEST(RunVerdict, StepsUnderPythonFramesAreSteps) {
    // TraceLens's MI300X ResNet: ProfilerStep#15..17 sit under the script's Python frames.
    std::vector<TraceEvent> events = {cpu_op("train.py(184): <module>", 0, 1000, 0)};
    for (int k = 0; k < 3; ++k) events.push_back(step_span(15 + k, 10 + 300 * k, 300 + 300 * k));
    ProfileResult r;
    r.spec_known = false;
    r.trace = Trace::build(std::move(events), {}, {});
    const auto steps = recorded_steps(r);
    ASSERT_EQ(steps.size(), 3u);
    EXPECT_EQ(steps[0].step, 15);
    EXPECT_EQ(steps[2].wall_ns, 290000);
    EXPECT_DOUBLE_EQ(median_recorded_step_ns(r), 290000);
}

TEST(RunVerdict, FarApartSaysTheFactor) {
    const RunVerdict v = verdict(run_of({1000, 1000, 1000}, 10, 64), run_of({5000, 5000, 5000}, 400, 640));
    EXPECT_NE(v.measures[0].text.find("B is 5x slower per step"), std::string::npos) << v.measures[0].text;
    EXPECT_NE(v.measures[1].text.find("B spends 40x A's device time per step"), std::string::npos)
        << v.measures[1].text;
    EXPECT_NE(v.measures[2].text.find("B's peak memory per step is 10x A's"), std::string::npos) << v.measures[2].text;
    const RunVerdict w = verdict(run_of({5000, 5000, 5000}, 400, 640), run_of({1000, 1000, 1000}, 10, 64));
    EXPECT_NE(w.measures[0].text.find("B is 5x faster per step"), std::string::npos) << w.measures[0].text;
    EXPECT_NE(w.measures[1].text.find("B spends 1/40 of A's device time per step"), std::string::npos)
        << w.measures[1].text;
}
