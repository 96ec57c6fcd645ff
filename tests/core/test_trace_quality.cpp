// The trace-quality counts: each kind of trouble on a made-up trace that has it once beside cases that
// must not count (overlaps within the 1 us rounding slack, two streams, proper nesting), the import's
// negative durations through the real importer, and the text and JSON every view shows.
#include <gtest/gtest.h>

#include <fstream>

#include "analysis/run_analysis.h"
#include "analysis/trace_quality.h"
#include "io/trace_import.h"
#include "results/run_json.h"
#include "results/trace_run.h"
#include "test_support.h"

using namespace awb;

namespace {

TraceEvent event(const char* name, DeviceKind device, EventKind kind, uint64_t thread, int64_t start_us,
                 int64_t dur_us) {
    TraceEvent e;
    e.name = name;
    e.device = device;
    e.device_index = device == DeviceKind::CPU ? -1 : 0;
    e.kind = kind;
    e.thread = thread;
    e.start_ns = start_us * 1000;
    e.end_ns = e.start_ns + dur_us * 1000;
    return e;
}

TraceEvent kernel(uint64_t stream, int64_t start_us, int64_t dur_us, int64_t correlation = 0) {
    TraceEvent k = event("gemm", DeviceKind::CUDA, EventKind::Kernel, stream, start_us, dur_us);
    k.correlation_id = correlation;
    return k;
}

TraceEvent launch(int64_t start_us, int64_t correlation) {
    TraceEvent r = event("cudaLaunchKernel", DeviceKind::CPU, EventKind::Runtime, 1, start_us, 2);
    r.correlation_id = correlation;
    return r;
}

}  // namespace

TEST(TraceQuality, CountsEachKindOfTroubleOnce) {
    std::vector<TraceEvent> events{
        event("aten::linear", DeviceKind::CPU, EventKind::CpuOp, 1, 0, 100),
        event("aten::addmm", DeviceKind::CPU, EventKind::CpuOp, 1, 10, 20),  // nested: fine
        event("aten::spill", DeviceKind::CPU, EventKind::CpuOp, 1, 90, 30),  // starts in linear, ends 20 us after it
        event("aten::edge", DeviceKind::CPU, EventKind::CpuOp, 2, 0, 50),
        event("aten::inner", DeviceKind::CPU, EventKind::CpuOp, 2, 40, 10),  // ends exactly with its parent: fine
        launch(200, 7),
        launch(300, 8),
        kernel(7, 210, 50, 7),  // stream 7: 210-260
        kernel(7, 250, 20),     // starts 10 us before the previous one ended: an overlap
        kernel(7, 270, 10),     // after the end so far (270): fine
        kernel(7, 279, 10),     // 1 us into the previous one: rounding, fine
        kernel(8, 215, 10),     // another stream: fine
        kernel(8, 290, 10, 8),  // launched at 300: starts 10 us before its launch
    };
    const Trace trace = Trace::build(std::move(events), {}, TraceMeta{});
    const TraceQuality q = trace_quality(trace);
    EXPECT_EQ(q.device_work, 6);
    EXPECT_EQ(q.overlapping_device, 1);
    EXPECT_EQ(q.cpu_ops, 7);  // the five ops and the two runtime calls
    EXPECT_EQ(q.spilling_cpu, 1);
    EXPECT_EQ(q.launched, 2);
    EXPECT_EQ(q.launched_before, 1);
    EXPECT_FALSE(q.clean());
    const std::vector<std::string> lines = quality_lines(q);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].rfind(
                  "1 of 6 kernels, copies and sets (16.7%) start before the previous one on their stream ended", 0),
              0u)
        << lines[0];
    EXPECT_EQ(lines[1].rfind("1 of 7 CPU events (14.3%) end after the event they started in", 0), 0u) << lines[1];
    EXPECT_EQ(lines[2].rfind("1 of 2 launched kernels, copies and sets (50.0%) start before the runtime call", 0), 0u)
        << lines[2];
}

TEST(TraceQuality, NegativeDurationsAndSkippedEventsComeFromTheImport) {
    const auto dir = test::fresh_dir("trace_quality");
    const std::string path = (dir / "odd.json").string();
    std::ofstream(path) << R"({"traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
        {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 20, "dur": -3},
        {"ph": "X", "cat": "cpu_op", "name": "aten::bad", "pid": 1, "tid": 1, "ts": "soon", "dur": 1}]})";
    ImportedTrace imported = import_chrome_trace(path);
    EXPECT_EQ(imported.notes.negative_durations, 1);
    EXPECT_EQ(imported.notes.skipped_events, 1);
    const ProfileResult run = take_run(imported);
    EXPECT_EQ(run.import, imported.notes);
    const RunAnalysis analysis = analyze_run(run);
    EXPECT_EQ(analysis.quality.import.negative_durations, 1);
    const std::vector<std::string> lines = quality_lines(analysis.quality);
    ASSERT_EQ(lines.size(), 3u);  // the skipped event, its reason, the negative duration
    EXPECT_EQ(lines[0], "1 event(s) skipped when the trace was read (a field of the wrong type)");
    EXPECT_NE(lines[1].find("skipped: \"ts\""), std::string::npos) << lines[1];
    EXPECT_EQ(lines[2], "1 event(s) with a negative duration, drawn as 0: the clock went back");
    const nlohmann::json j = analysis.quality;
    EXPECT_FALSE(j["clean"].get<bool>());
    EXPECT_EQ(j["negative_durations"], 1);
}

// The fixtures PyTorch wrote are healthy: nothing to say.
TEST(TraceQuality, RealKinetoFixtureIsClean) {
    const ProfileResult run =
        profile_result_from_import(import_chrome_trace(std::string(AWB_FIXTURE_DIR) + "/traces/kineto_gpu_2x.json"));
    const TraceQuality q = analyze_run(run).quality;
    EXPECT_TRUE(q.clean()) << ::testing::PrintToString(quality_lines(q));
    EXPECT_GT(q.device_work, 0);
    EXPECT_GT(q.launched, 0);
    EXPECT_TRUE(quality_lines(q).empty());
}
