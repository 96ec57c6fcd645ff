// The advisor's rules: each one on a workload or fixture that triggers it and one that does not, and
// the article's workload (manual vs sdpa, 2x8x512x64) read the way the article reads it.
#include <gtest/gtest.h>

#include "analysis/advisor.h"
#include "analysis/run_analysis.h"
#include "engine/profiler_session.h"
#include "io/trace_import.h"
#include "model/recorded_steps.h"
#include "results/trace_run.h"
#include "test_support.h"

using namespace awb;

namespace {

bool fired(const std::vector<Finding>& findings, const std::string& rule) {
    return std::any_of(findings.begin(), findings.end(), [&](const Finding& f) { return f.rule == rule; });
}

const Finding& finding(const std::vector<Finding>& findings, const std::string& rule) {
    for (const auto& f : findings)
        if (f.rule == rule) return f;
    throw std::runtime_error("no " + rule + " finding");
}

TraceEvent op(const std::string& name, int64_t start_us, int64_t dur_ns, int depth_hint = 0) {
    TraceEvent e;
    e.name = name;
    e.thread = 1;
    e.start_ns = start_us * 1000;
    e.end_ns = e.start_ns + dur_ns;
    (void)depth_hint;
    return e;
}

// One profiler step of 1 ms: a matmul of 600 us and `n` calls of `small` each lasting `each_ns`.
std::shared_ptr<ProfileResult> step_with(const std::string& small, int n, int64_t each_ns) {
    std::vector<TraceEvent> events{op("ProfilerStep#1", 0, 1'000'000), op("aten::matmul", 1, 600'000)};
    for (int i = 0; i < n; ++i) events.push_back(op(small, 700 + i, each_ns));
    auto r = std::make_shared<ProfileResult>();
    r->trace = Trace::build(std::move(events), {}, TraceMeta{});
    return r;
}

}  // namespace

TEST(Advisor, ScoreMatrixFiresWhenNxNIsMaterialised) {
    RunSpec spec = test::small_spec();
    spec.seq_q = spec.seq_k = 256;
    spec.variant = "manual";
    const ProfileResult manual = profile_run(spec, ProfileOptions{});
    const auto found = advise({&manual});
    ASSERT_TRUE(fired(found, "score-matrix")) << format_findings(found);
    const Finding f = finding(found, "score-matrix");
    EXPECT_NE(f.title.find("[1, 2, 256, 256] float32"), std::string::npos) << f.title;
    EXPECT_NE(f.title.find("0.5 MiB"), std::string::npos) << f.title;
    // The analysis a caller already has (the GUI's, computed once per run) gives the same findings.
    const RunAnalysis analysis = analyze_run(manual.trace);
    EXPECT_EQ(analysis.operators, key_averages(manual.trace));
    EXPECT_EQ(analysis.memory, replay_memory(manual.trace));
    EXPECT_EQ(advise({&manual, nullptr, nullptr, nullptr, &analysis}), found);
    // The chunked variant never holds [N, N]: blocks of 64 x 64 are a sixteenth of it.
    spec.variant = "chunked";
    spec.block_size = 64;
    const ProfileResult chunked = profile_run(spec, ProfileOptions{});
    EXPECT_FALSE(fired(advise({&chunked}), "score-matrix")) << format_findings(advise({&chunked}));
    // Without the spec (a foreign trace), B, H and N are unknown: the rule does not guess.
    ProfileResult unknown = manual;
    unknown.spec_known = false;
    EXPECT_FALSE(fired(advise({&unknown}), "score-matrix"));
}

TEST(Advisor, LayoutCopiesFireAboveTheirShare) {
    const auto heavy = step_with("aten::copy_", 4, 50'000);  // 200 us of 1 ms
    const auto found = advise({heavy.get()});
    ASSERT_TRUE(fired(found, "layout-copies")) << format_findings(found);
    EXPECT_NE(finding(found, "layout-copies").evidence[0].find("aten::copy_: 4 calls per step"), std::string::npos);
    const auto light = step_with("aten::copy_", 4, 5'000);  // 20 us: 2%
    EXPECT_FALSE(fired(advise({light.get()}), "layout-copies"));
}

TEST(Advisor, FragmentationFiresOnManyTinyCalls) {
    const auto many = step_with("aten::select", 100, 200);
    const auto found = advise({many.get()});
    ASSERT_TRUE(fired(found, "fragmentation")) << format_findings(found);
    EXPECT_NE(finding(found, "fragmentation").evidence[0].find("aten::select: 100 calls per step, 0.20 us self each"),
              std::string::npos)
        << finding(found, "fragmentation").evidence[0];
    EXPECT_FALSE(fired(advise({step_with("aten::select", 10, 200).get()}), "fragmentation"));
    EXPECT_FALSE(fired(advise({step_with("aten::select", 100, 50'000).get()}), "fragmentation"));  // not tiny
}

TEST(Advisor, DispatchBoundFiresWhenKernelsAreShortAgainstTheCpuStep) {
    ProfileResult gpu;
    gpu.trace = import_chrome_trace(std::string(AWB_FIXTURE_DIR) + "/traces/kineto_gpu_2x.json").trace;
    const auto found = advise({&gpu});
    ASSERT_TRUE(fired(found, "dispatch-bound")) << format_findings(found);
    // The step's 600 us less its cudaStreamSynchronize of 9.5 us: waiting is not dispatch.
    EXPECT_NE(finding(found, "dispatch-bound").title.find("590.5 us of CPU time per step against 169.9 us of kernels"),
              std::string::npos)
        << finding(found, "dispatch-bound").title;
    EXPECT_NE(finding(found, "dispatch-bound").title.find("(9.50 us per step of waiting left out)"), std::string::npos)
        << finding(found, "dispatch-bound").title;
    // 5 kernels over the trace's 8 runtime calls (copies, sets and a sync are no launches).
    EXPECT_NE(finding(found, "dispatch-bound").evidence[0].find("5 kernel launches per step"), std::string::npos)
        << finding(found, "dispatch-bound").evidence[0];
    // A step whose kernel fills it is not dispatch-bound; a CPU run has no device to starve.
    std::vector<TraceEvent> events{op("ProfilerStep#1", 0, 1'000'000)};
    TraceEvent k = op("sgemm", 10, 900'000);
    k.device = DeviceKind::CUDA;
    k.kind = EventKind::Kernel;
    events.push_back(k);
    ProfileResult busy;
    busy.trace = Trace::build(std::move(events), {}, TraceMeta{});
    EXPECT_FALSE(fired(advise({&busy}), "dispatch-bound"));
    EXPECT_FALSE(fired(advise({step_with("aten::mm", 1, 1000).get()}), "dispatch-bound"));
}

// PyTorch 2.x writes each ProfilerStep#k twice, on the CPU and as the GPU's gpu_user_annotation: a step
// is counted once (the advisor's per-step figures were halved when it counted every ProfilerStep#k).
TEST(Advisor, PerStepFiguresCountEachStepOnce) {
    const auto heavy = step_with("aten::copy_", 4, 50'000);
    std::vector<TraceEvent> events = heavy->trace.events();
    TraceEvent gpu_step = op("ProfilerStep#1", 5, 900'000);
    gpu_step.device = DeviceKind::CUDA;
    gpu_step.device_index = 0;
    gpu_step.kind = EventKind::UserAnnotation;
    gpu_step.thread = 7;
    events.push_back(gpu_step);
    heavy->trace = Trace::build(std::move(events), {}, TraceMeta{});
    const auto copies = advise({heavy.get()});
    ASSERT_TRUE(fired(copies, "layout-copies")) << format_findings(copies);
    EXPECT_NE(finding(copies, "layout-copies").evidence[0].find("aten::copy_: 4 calls per step"), std::string::npos)
        << finding(copies, "layout-copies").evidence[0];
    // A real H200 trace of the manual variant: 60 kernels over 3 recorded steps, 20 launches per step.
    ProfileResult h200 = profile_result_from_import(
        import_chrome_trace(std::string(AWB_FIXTURE_DIR) + "/gpu/h200-2026-12-04/manual.pytorch.trace.json.gz"));
    EXPECT_EQ(recorded_step_count(h200), 3);
    const auto found = advise({&h200});
    ASSERT_TRUE(fired(found, "dispatch-bound")) << format_findings(found);
    EXPECT_NE(finding(found, "dispatch-bound").evidence[0].find("20 kernel launches per step"), std::string::npos)
        << finding(found, "dispatch-bound").evidence[0];
}

// A step that waits on the device (cudaStreamSynchronize) or on the DataLoader is not
// dispatch-bound however long the wait; the wait is left out of the CPU time and named in the finding.
TEST(Advisor, DispatchBoundLeavesWaitsOut) {
    auto step = [](std::vector<TraceEvent> waits) {
        std::vector<TraceEvent> events{op("ProfilerStep#1", 0, 1'000'000), op("aten::add", 1, 50'000)};
        TraceEvent k = op("vectorized_elementwise_kernel", 10, 100'000);
        k.device = DeviceKind::CUDA;
        k.kind = EventKind::Kernel;
        events.push_back(k);
        for (TraceEvent& w : waits) events.push_back(std::move(w));
        auto r = std::make_shared<ProfileResult>();
        r->trace = Trace::build(std::move(events), {}, TraceMeta{});
        return r;
    };
    TraceEvent sync = op("cudaStreamSynchronize", 100, 600'000);
    sync.kind = EventKind::Runtime;
    TraceEvent loader = op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 750, 240'000);
    loader.kind = EventKind::UserAnnotation;
    // 1 ms step, 100 us of kernels: 10x without the waits, (1000 - 600 - 240) / 100 = 1.6x with them.
    EXPECT_TRUE(fired(advise({step({}).get()}), "dispatch-bound"));
    EXPECT_FALSE(fired(advise({step({sync, loader}).get()}), "dispatch-bound"))
        << format_findings(advise({step({sync, loader}).get()}));
    TraceEvent hip = op("hipDeviceSynchronize", 100, 300'000);  // ROCm's, nested in nothing; 700 us left: 7x
    hip.kind = EventKind::Runtime;
    const auto found = advise({step({hip}).get()});
    ASSERT_TRUE(fired(found, "dispatch-bound")) << format_findings(found);
    const Finding f = finding(found, "dispatch-bound");
    EXPECT_NE(f.title.find("700.0 us of CPU time per step against 100.0 us of kernels (7.0x)"), std::string::npos)
        << f.title;
    EXPECT_NE(f.title.find("300.0 us per step of waiting left out"), std::string::npos) << f.title;
    EXPECT_NE(
        format_findings(found).find("waiting, not dispatch: hipDeviceSynchronize: 1 calls per step, 300.0 us per step"),
        std::string::npos)
        << format_findings(found);
}

TEST(Advisor, ColdStartAndProfilerDistortionFromABenchmark) {
    BenchResult b;
    b.cold_ns = 10e6;
    b.timing.median_ns = 1e6;
    b.profiled_step_ns = 1.8e6;
    b.profiler_overhead = 1.8;
    auto found = advise({nullptr, &b});
    ASSERT_TRUE(fired(found, "cold-start")) << format_findings(found);
    EXPECT_NE(finding(found, "cold-start").title.find("10.0x"), std::string::npos);
    ASSERT_TRUE(fired(found, "profiler-distortion"));
    EXPECT_NE(finding(found, "profiler-distortion").title.find("1.80x"), std::string::npos);
    b.cold_ns = 1.5e6;
    b.profiler_overhead = 1.1;
    found = advise({nullptr, &b});
    EXPECT_FALSE(fired(found, "cold-start"));
    EXPECT_FALSE(fired(found, "profiler-distortion"));
}

TEST(Advisor, LengthSensitivityAcrossASweep) {
    auto sweep_with = [](double slowdown_at_1024) {
        SweepResult s;
        for (int64_t n : {256, 512, 1024}) {
            SweepPoint p;
            p.spec = test::small_spec();
            p.spec.seq_q = p.spec.seq_k = n;
            p.bench.flops = attention_flops(p.spec);
            p.bench.timing.median_ns = p.bench.flops * 1e-2 * (n == 1024 ? slowdown_at_1024 : 1.0);
            s.points.push_back(p);
        }
        return s;
    };
    const SweepResult uneven = sweep_with(2.5);
    const auto found = advise({nullptr, nullptr, &uneven});
    ASSERT_TRUE(fired(found, "length-sensitivity")) << format_findings(found);
    EXPECT_NE(finding(found, "length-sensitivity").title.find("2.5x"), std::string::npos);
    EXPECT_NE(finding(found, "length-sensitivity").title.find("(manual float32 1x2xNx16 train)"), std::string::npos)
        << finding(found, "length-sensitivity").title;
    const SweepResult even = sweep_with(1.1);
    EXPECT_FALSE(fired(advise({nullptr, nullptr, &even}), "length-sensitivity"));
}

TEST(Advisor, PrecisionNamesTheTensorsOutOfTolerance) {
    CheckReport check;
    check.spec = test::small_spec();
    check.tolerance = 1e-5;
    VariantCheck ok{"sdpa", "", {{"output", 1e-7, 1e-7, 1, 1e-7, true, true}}, {}, true, "", ""};
    check.variants = {ok};
    EXPECT_FALSE(fired(advise({nullptr, nullptr, nullptr, &check}), "precision"));
    VariantCheck bad{
        "chunked", "",    {{"output", 1e-7, 1e-7, 1, 1e-7, true, true}, {"grad_q", 3e-3, 1e-2, 1, 3e-3, true, false}},
        {},        false, "",
        ""};
    check.variants.push_back(bad);
    const auto found = advise({nullptr, nullptr, nullptr, &check});
    ASSERT_TRUE(fired(found, "precision"));
    const Finding f = finding(found, "precision");
    EXPECT_NE(f.title.find("chunked"), std::string::npos);
    ASSERT_EQ(f.evidence.size(), 1u);
    EXPECT_NE(f.evidence[0].find("grad_q: error 3.00e-03"), std::string::npos) << f.evidence[0];
}

// The article's workload: manual attention materialises the 2x8x512x512 scores (16 MiB) and the
// advisor says so with the bytes and the share of peak; the run stays CPU-only, so no dispatch finding.
TEST(Advisor, ArticleWorkloadManualVsSdpa) {
    RunSpec spec;  // defaults: the article's manual (2, 8, 512, 64) float32 train
    const ProfileResult manual = profile_run(spec, ProfileOptions{});
    const auto found = advise({&manual});
    ASSERT_TRUE(fired(found, "score-matrix")) << format_findings(found);
    EXPECT_NE(finding(found, "score-matrix").title.find("(16.0 MiB)"), std::string::npos)
        << finding(found, "score-matrix").title;
    EXPECT_FALSE(fired(found, "dispatch-bound"));
    std::printf("manual:\n%s", format_findings(found).c_str());
    spec.variant = "sdpa";
    const ProfileResult sdpa = profile_run(spec, ProfileOptions{});
    const auto sdpa_found = advise({&sdpa});
    std::printf("sdpa on torch %s:\n%s", sdpa.environment.torch_version.c_str(), format_findings(sdpa_found).c_str());
    // 1.13's CPU sdpa is the math path and holds the scores; 2.x's CPU flash kernel does not.
    const bool torch1 = sdpa.environment.torch_version.rfind("1.", 0) == 0;
    EXPECT_EQ(fired(sdpa_found, "score-matrix"), torch1);
    if (torch1) {
        const std::string& action = finding(sdpa_found, "score-matrix").action;
        EXPECT_NE(action.find("is the math path and holds [N, N] itself; LibTorch 2.x runs a fused kernel"),
                  std::string::npos)
            << action;
    }
    EXPECT_NE(finding(found, "score-matrix").action.find("scaled_dot_product_attention on LibTorch 2.x"),
              std::string::npos);
}
