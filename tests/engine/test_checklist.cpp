// The measurement checklist: each item passes on what it asks for and fails (or is n/a) otherwise,
// with a reason that names what was recorded or what is missing; and the HTML report holds it.
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/checklist.h"
#include "engine/profiler_session.h"
#include "model/printf_string.h"
#include "report/report_html.h"
#include "report/svg_chart.h"
#include "results/run_json.h"
#include "results/workspace.h"
#include "test_support.h"

using namespace awb;

namespace {

const ChecklistItem& item(const std::vector<ChecklistItem>& items, const std::string& id) {
    for (const auto& i : items)
        if (i.id == id) return i;
    throw std::runtime_error("no item " + id);
}

size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

ItemState state(const Measurements& m, const std::string& id) { return item(measurement_checklist(m), id).state; }
std::string reason(const Measurements& m, const std::string& id) { return item(measurement_checklist(m), id).reason; }

// One profiled run of the small spec (shared: profiling takes a moment).
const ProfileResult& small_run() {
    static const ProfileResult run = profile_run(test::small_spec(), ProfileOptions{});
    return run;
}

Environment cpu_environment() {
    Environment e;
    e.torch_version = "1.13.1";
    e.device = "cpu";
    e.device_name = "Test CPU";
    return e;
}

BenchResult bench_of(const RunSpec& spec, double median_ns = 2e6) {
    BenchResult b;
    b.spec = spec;
    b.environment = small_run().environment;
    b.timer = "steady_clock";
    b.warmup_iterations = 3;
    b.timing.median_ns = b.timing.p10_ns = b.timing.p90_ns = median_ns;
    b.timing.repeats = 10;
    return b;
}

SweepResult sweep_of(const RunSpec& base, std::vector<int64_t> lengths) {
    SweepResult s;
    s.plan.base = base;
    s.environment = small_run().environment;
    for (int64_t n : lengths) {
        SweepPoint p;
        p.spec = base;
        p.spec.seq_q = p.spec.seq_k = n;
        p.bench = bench_of(p.spec, double(n) * 1e4);
        p.bench.peak_bytes = n * n * 1024;
        s.points.push_back(p);
    }
    s.planned_points = int(s.points.size());
    return s;
}

CheckReport check_of(const std::string& variant, Dtype dtype, bool passed) {
    CheckReport c;
    c.spec = test::small_spec();
    c.spec.dtype = dtype;
    c.environment = small_run().environment;
    c.tolerance = 1e-5;
    c.variants = {{variant, "", {{"output", 1e-7, 1e-7, 1, passed ? 1e-7 : 1e-3, true, passed}}, {}, passed, "", ""}};
    return c;
}

}  // namespace

TEST(Checklist, AProfiledRunAloneSaysWhatIsMissing) {
    const Measurements m{&small_run()};
    const auto items = measurement_checklist(m);
    ASSERT_EQ(items.size(), 7u);
    EXPECT_EQ(item(items, "environment").state, ItemState::Pass) << item(items, "environment").reason;
    EXPECT_NE(item(items, "environment").reason.find("1x2x64x16"), std::string::npos)
        << item(items, "environment").reason;
    EXPECT_EQ(item(items, "scope").state, ItemState::Pass);
    EXPECT_NE(item(items, "scope").reason.find("forward + backward"), std::string::npos);
    EXPECT_EQ(item(items, "warm-up").state, ItemState::Pass) << item(items, "warm-up").reason;
    EXPECT_NE(item(items, "warm-up").reason.find("start at step 2"), std::string::npos)
        << item(items, "warm-up").reason;
    EXPECT_EQ(item(items, "collected").state, ItemState::Pass) << item(items, "collected").reason;
    EXPECT_EQ(item(items, "lengths").state, ItemState::Fail);
    EXPECT_NE(item(items, "lengths").reason.find("N = 64"), std::string::npos);
    EXPECT_EQ(item(items, "profiler-off").state, ItemState::Fail);
    EXPECT_NE(item(items, "profiler-off").reason.find("attnwb bench"), std::string::npos);
    EXPECT_EQ(item(items, "numerical").state, ItemState::NotApplicable);  // manual float32 is the reference
}

TEST(Checklist, WarmUpAndCollectionFollowTheProfilerOptions) {
    ProfileOptions cold;
    cold.wait = cold.warmup = 0;
    cold.record_shapes = false;
    const ProfileResult run = profile_run(test::small_spec(), cold);
    const Measurements m{&run};
    EXPECT_EQ(state(m, "warm-up"), ItemState::Fail);
    EXPECT_NE(reason(m, "warm-up").find("step 0"), std::string::npos) << reason(m, "warm-up");
    EXPECT_EQ(state(m, "collected"), ItemState::Fail);
    EXPECT_NE(reason(m, "collected").find("input shapes"), std::string::npos) << reason(m, "collected");
    // From a report file (no events), the options decide.
    ProfileReport report = make_report(run, analyze_run(run));
    const ProfileResult from_file = run_of_report(report);
    EXPECT_EQ(state({&from_file}, "collected"), ItemState::Fail);
    const ProfileResult good = run_of_report(make_report(small_run(), analyze_run(small_run())));
    EXPECT_EQ(state({&good}, "collected"), ItemState::Pass) << reason({&good}, "collected");
    EXPECT_EQ(state({&good}, "warm-up"), ItemState::Pass);
}

TEST(Checklist, ABenchmarkOrSweepOfTheSameSpecIsTheProfilerOffMeasurement) {
    const BenchResult same = bench_of(small_run().spec);
    EXPECT_EQ(state({&small_run(), &same}, "profiler-off"), ItemState::Pass);
    EXPECT_NE(reason({&small_run(), &same}, "profiler-off").find("profiler-off median 2.000 ms"), std::string::npos)
        << reason({&small_run(), &same}, "profiler-off");
    RunSpec other = small_run().spec;
    other.head_dim = 32;
    const BenchResult different = bench_of(other);
    EXPECT_EQ(state({&small_run(), &different}, "profiler-off"), ItemState::Fail);

    const SweepResult three = sweep_of(small_run().spec, {32, 64, 128});
    const Measurements with_sweep{&small_run(), nullptr, &three};
    EXPECT_EQ(state(with_sweep, "lengths"), ItemState::Pass) << reason(with_sweep, "lengths");
    EXPECT_NE(reason(with_sweep, "lengths").find("N = 32, 64, 128"), std::string::npos);
    EXPECT_EQ(state(with_sweep, "profiler-off"), ItemState::Pass) << reason(with_sweep, "profiler-off");
    const SweepResult two = sweep_of(small_run().spec, {64, 128});
    EXPECT_EQ(state({&small_run(), nullptr, &two}, "lengths"), ItemState::Fail);
    const SweepResult elsewhere = sweep_of(other, {32, 64, 128});  // another curve: does not count
    EXPECT_EQ(state({&small_run(), nullptr, &elsewhere}, "lengths"), ItemState::Fail);
    EXPECT_EQ(state({&small_run(), nullptr, &elsewhere}, "profiler-off"), ItemState::Fail);
    // A benchmark alone has no operator table; a sweep alone is its own profiler-off measurement.
    EXPECT_EQ(state({nullptr, &same}, "collected"), ItemState::Fail);
    EXPECT_EQ(state({nullptr, nullptr, &three}, "profiler-off"), ItemState::Pass);
    BenchResult no_warmup = same;
    no_warmup.warmup_iterations = 0;
    EXPECT_EQ(state({nullptr, &no_warmup}, "warm-up"), ItemState::Fail);
}

TEST(Checklist, NumericalCheckMustCoverTheVariantAndDtypeMeasured) {
    ProfileResult sdpa = small_run();
    sdpa.spec.variant = "sdpa";
    EXPECT_EQ(state({&sdpa}, "numerical"), ItemState::Fail);
    EXPECT_NE(reason({&sdpa}, "numerical").find("sdpa float32"), std::string::npos) << reason({&sdpa}, "numerical");
    const CheckReport ok = check_of("sdpa", Dtype::Float32, true);
    EXPECT_EQ(state({&sdpa, nullptr, nullptr, &ok}, "numerical"), ItemState::Pass)
        << reason({&sdpa, nullptr, nullptr, &ok}, "numerical");
    const CheckReport bad = check_of("sdpa", Dtype::Float32, false);
    EXPECT_EQ(state({&sdpa, nullptr, nullptr, &bad}, "numerical"), ItemState::Fail);
    const CheckReport other_dtype = check_of("sdpa", Dtype::Float64, true);
    EXPECT_EQ(state({&sdpa, nullptr, nullptr, &other_dtype}, "numerical"), ItemState::Fail);
    EXPECT_NE(reason({&sdpa, nullptr, nullptr, &other_dtype}, "numerical").find("was not checked"), std::string::npos);
    // A check alone: timing items do not apply.
    const Measurements only{nullptr, nullptr, nullptr, &ok};
    EXPECT_EQ(state(only, "numerical"), ItemState::Pass);
    EXPECT_EQ(state(only, "warm-up"), ItemState::NotApplicable);
    EXPECT_EQ(state(only, "profiler-off"), ItemState::NotApplicable);
}

TEST(Checklist, EnvironmentGapsAndAForeignTrace) {
    ProfileResult cuda = small_run();
    cuda.environment.device = "cuda:0";
    cuda.environment.cuda_version = "12.4";
    cuda.environment.driver_version.clear();
    EXPECT_EQ(state({&cuda}, "environment"), ItemState::Fail);
    EXPECT_NE(reason({&cuda}, "environment").find("driver"), std::string::npos);
    BenchResult other_torch = bench_of(small_run().spec);
    other_torch.environment = cpu_environment();
    other_torch.environment.torch_version = "2.5.1";
    EXPECT_NE(reason({&small_run(), &other_torch}, "environment").find("2.5.1"), std::string::npos);

    // A PyTorch trace: no spec, no environment: the checklist and the advisor do not pretend to know.
    const ProfileResult foreign =
        profile_result_from_import(import_chrome_trace(AWB_FIXTURE_DIR "/traces/kineto_gpu_2x.json"));
    ASSERT_FALSE(foreign.spec_known);
    const auto items = measurement_checklist({&foreign});
    EXPECT_EQ(item(items, "environment").state, ItemState::Fail);
    EXPECT_NE(item(items, "environment").reason.find("imported trace"), std::string::npos);
    EXPECT_EQ(item(items, "scope").state, ItemState::Fail);
    // Its step numbers still tell: the first recorded step is ProfilerStep#3, so three ran before it.
    EXPECT_EQ(item(items, "warm-up").state, ItemState::Pass) << item(items, "warm-up").reason;
    EXPECT_NE(item(items, "warm-up").reason.find("ProfilerStep#3: 3 step(s) ran before it"), std::string::npos);
    EXPECT_EQ(item(items, "numerical").state, ItemState::Fail);
    EXPECT_EQ(checklist_from_json(checklist_json(items)), items);
}

TEST(ReportHtml, HoldsEverySectionEscapedWithChartsAndNoExternalFiles) {
    const ProfileReport report = make_report(small_run(), analyze_run(small_run()));
    const SweepResult sweep = sweep_of(small_run().spec, {32, 64, 128});
    const CheckReport check = check_of("chunked", Dtype::Float32, false);
    ReportInput in;
    in.profile = &report;
    in.sweep = &sweep;
    const SweepAnalysis sweep_analysis = analyze_sweep(sweep);
    in.sweep_analysis = &sweep_analysis;
    in.check = &check;
    in.title = "A <b>title</b> & more";
    in.explanation.checklist = measurement_checklist({&small_run(), nullptr, &sweep, &check});
    in.explanation.findings = {
        {"precision", "chunked is out of tolerance", {"output: error 1.00e-03"}, "Do not compare its timings", 1.0}};
    const std::string html = html_report(in);
    EXPECT_NE(html.find("<title>A &lt;b&gt;title&lt;/b&gt; &amp; more</title>"), std::string::npos);
    for (const char* section :
         {"<h2>Environment</h2>", "<h2>Spec</h2>", "<h2>Measurement checklist</h2>", "<h2>Findings</h2>",
          "<h2>Profile</h2>", "<h2>Sweep (profiler off)</h2>", "<h2>Correctness check</h2>"})
        EXPECT_NE(html.find(section), std::string::npos) << section;
    EXPECT_NE(html.find("[precision]"), std::string::npos);
    EXPECT_NE(html.find("class=\"state fail\""), std::string::npos);
    EXPECT_NE(html.find("aten::bmm"), std::string::npos);  // the operator table
    EXPECT_GE(occurrences(html, "<svg "), 5u);             // steps, operators, memory, sweep time, sweep memory
    EXPECT_EQ(html.find("src="), std::string::npos);       // nothing loaded from elsewhere
    EXPECT_EQ(html.find("href="), std::string::npos);
    EXPECT_THROW(write_html_report(in, "/nonexistent-dir/report.html"), std::runtime_error);
}

// The report of a foreign GPU trace says what the trace holds (GPUs, CUDA, ranks, versions,
// its recorded steps, every device's peak) and elides kernel names in the middle.
TEST(ReportHtml, ImportedGpuTraceSaysWhatTheTraceHolds) {
    const ProfileResult foreign =
        profile_result_from_import(import_chrome_trace(AWB_FIXTURE_DIR "/traces/kineto_gpu_2x.json"));
    EXPECT_EQ(foreign.environment.device, "cuda");
    EXPECT_EQ(foreign.environment.device_name, "NVIDIA A100-SXM4-80GB (79.2 GiB, compute 8.0, 108 SMs)");
    EXPECT_EQ(foreign.environment.cuda_version, "12.1");
    EXPECT_EQ(foreign.environment.driver_version, "12.2");
    EXPECT_EQ(foreign.environment.host, "rank 0 of 2 (nccl)");
    EXPECT_EQ(foreign.environment.recorded_by, "Kineto trace (schema 1, CUPTI 18, NCCL 2.20.5); record_shapes");
    const ProfileReport report = make_report(foreign, analyze_run(foreign));
    ASSERT_EQ(report.steps.size(), 1u);
    EXPECT_EQ(report.steps[0].step, 3);
    EXPECT_GT(report.peak_memory_bytes, 0) << "the device's replayed peak, not 0 from CPU events alone";
    EXPECT_NE(report.peak_memory_source.find("device"), std::string::npos) << report.peak_memory_source;
    ReportInput in;
    in.profile = &report;
    const std::string html = html_report(in);
    EXPECT_NE(html.find("NVIDIA A100-SXM4-80GB"), std::string::npos);
    EXPECT_NE(html.find("rank 0 of 2 (nccl)"), std::string::npos);
    EXPECT_NE(html.find("1 step(s) recorded in the trace (ProfilerStep#3)"), std::string::npos);
    EXPECT_EQ(html.find("steps run"), std::string::npos) << "no schedule of ours is claimed for a foreign trace";
    // Every device's own peak (the replayed running sum here: the fixture has no allocator totals).
    const size_t per_device = html.find("peak per device: cpu ");
    EXPECT_NE(per_device, std::string::npos) << html.substr(html.find("peak memory"), 300);
    EXPECT_NE(html.find("; cuda:0 ", per_device), std::string::npos) << html.substr(per_device, 200);
    // The report made from that report file alone (run_of_report) still reads the warm-up right.
    const ProfileResult from_file = run_of_report(report);
    const auto items = measurement_checklist({&from_file});
    EXPECT_NE(item(items, "warm-up").reason.find("ProfilerStep#3: 3 step(s) ran before it"), std::string::npos)
        << item(items, "warm-up").reason;

    ProfileReport long_names = report;
    const std::string name = "void cutlass::Kernel_" + std::string(1200, 'x') + "_Params";
    long_names.operators.front().name = name;
    long_names.operators.front().self_device_ns = 1'000'000'000;
    in.profile = &long_names;
    const std::string page = html_report(in);
    EXPECT_NE(page.find("<td title=\"" + name + "\">void cutlass::Kernel_"), std::string::npos);
    EXPECT_NE(page.find(elide_middle(name, 96).substr(50)), std::string::npos);
    EXPECT_EQ(page.find(">" + name + "<"), std::string::npos) << "the whole name is only in the tooltip";
}

TEST(SvgChart, LogAxesDropNonPositiveValuesAndLabelTicks) {
    Chart c;
    c.title = "t";
    c.x.log = c.y.log = true;
    c.x.ticks = {256, 512, 1024};
    c.y.text = [](double v) { return std::to_string(int(v)) + " ms"; };
    ChartSeries s;
    s.name = "a<b";
    s.points = {{256, 10}, {512, 0}, {1024, 40}, {-1, 5}};
    const std::string svg = svg_chart(c, {s});
    EXPECT_EQ(occurrences(svg, "<circle"), 2u);  // (512, 0) and (-1, 5) cannot be on a log scale
    EXPECT_NE(svg.find(">512</text>"), std::string::npos);
    EXPECT_NE(svg.find(">10 ms</text>"), std::string::npos);
    EXPECT_NE(svg.find("a&lt;b"), std::string::npos);
}
