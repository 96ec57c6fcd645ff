// Memory totals: Kineto's "Total Allocated" / "Total Reserved" are the absolute levels of the
// allocator (memory allocated before recording included); the running sum is relative to the start.
#include <gtest/gtest.h>

#include "analysis/memory_replay.h"
#include "analysis/run_analysis.h"
#include "io/trace_import.h"
#include "results/chrome_trace.h"
#include "results/run_json.h"

using namespace awb;

namespace {

MemoryEvent total(int64_t ts, int64_t bytes, int64_t allocated, int64_t reserved, DeviceKind d = DeviceKind::CUDA) {
    MemoryEvent m;
    m.ts_ns = ts;
    m.bytes = bytes;
    m.device = d;
    m.device_index = d == DeviceKind::CPU ? -1 : 0;
    m.total_allocated = allocated;
    m.total_reserved = reserved;
    return m;
}

const std::string kFixture = std::string(AWB_FIXTURE_DIR) + "/traces/memory_totals/sglang_decode_memory.json";

}  // namespace

TEST(MemoryTotals, AbsolutePeaksBesideTheRelativeOne) {
    // 1 GiB of weights before recording: the running sum starts at 0, the totals at 1 GiB.
    const int64_t gib = int64_t(1) << 30;
    auto t = Trace::build(
        {},
        {total(10, 100, gib + 100, 2 * gib), total(20, 300, gib + 400, 2 * gib), total(30, -350, gib + 50, 2 * gib)},
        {});
    const auto series = replay_memory(t);
    ASSERT_EQ(series.size(), 1u);
    const MemorySeries& s = series[0];
    EXPECT_EQ(s.peak_bytes, 400);
    EXPECT_EQ(s.low_bytes, 0);
    ASSERT_TRUE(s.has_totals());
    EXPECT_EQ(s.peak_allocated_bytes, gib + 400);
    EXPECT_EQ(s.peak_allocated_ts_ns, 20);
    EXPECT_EQ(s.peak_reserved_bytes, 2 * gib);
    EXPECT_EQ(s.quoted_peak_bytes(), gib + 400);
    EXPECT_STREQ(memory_peak_basis(s), "allocated");
    EXPECT_EQ(memory_peak_text(s), "1.00 GiB allocated, 2.00 GiB reserved");
    EXPECT_EQ(s.allocated_points.size(), 3u);
}

TEST(MemoryTotals, WithoutTotalsThePeakIsRelativeAndSaysSo) {
    auto t = Trace::build({}, {total(1, 100, -1, -1, DeviceKind::CPU), total(2, -150, -1, -1, DeviceKind::CPU)}, {});
    const MemorySeries s = replay_memory(t).at(0);
    EXPECT_FALSE(s.has_totals());
    EXPECT_EQ(s.quoted_peak_bytes(), 100);
    EXPECT_EQ(s.low_bytes, -50);
    EXPECT_STREQ(memory_peak_basis(s), "relative");
    EXPECT_NE(memory_peak_text(s).find("relative"), std::string::npos);
}

TEST(MemoryTotals, CpuReservedZeroIsNotShown) {
    // The CPU allocator reports "Total Reserved": 0: no reserved curve.
    const MemorySeries s = replay_memory(Trace::build({}, {total(1, 8, 32768, 0, DeviceKind::CPU)}, {})).at(0);
    EXPECT_TRUE(s.has_totals());
    EXPECT_EQ(s.peak_reserved_bytes, -1);
    EXPECT_TRUE(s.reserved_points.empty());
}

TEST(MemoryTotals, RealRocmTraceHipDeviceAndStringPid) {
    const ImportedTrace t = import_chrome_trace(kFixture);
    ASSERT_FALSE(t.trace.memory().empty());
    const auto series = replay_memory(t.trace);
    ASSERT_EQ(series.size(), 1u);  // "Device Type": 6 is HIP: a GPU, not the CPU
    EXPECT_EQ(series[0].device, DeviceKind::CUDA);
    EXPECT_EQ(series[0].device_index, 0);
    EXPECT_EQ(series[0].peak_allocated_bytes, 151815365632);  // max "Total Allocated" in the file
    EXPECT_EQ(series[0].peak_reserved_bytes, 152171446272);
    EXPECT_EQ(series[0].peak_bytes, 1376256);  // the relative running sum's
    // The string pid "Spans" names its process.
    bool spans = false;
    for (const auto& [pid, name] : t.trace.meta().process_names) spans = spans || (name == "Spans" && is_text_id(pid));
    EXPECT_TRUE(spans);
}

TEST(MemoryTotals, ReportQuotesTheAllocatedPeakAndRoundTrips) {
    ImportedTrace t = import_chrome_trace(kFixture);
    ProfileResult run;
    run.trace = std::move(t.trace);
    const ProfileReport r = make_report(run, analyze_run(run));
    EXPECT_EQ(r.peak_memory_bytes, 151815365632);
    EXPECT_NE(r.peak_memory_source.find("Total Allocated"), std::string::npos) << r.peak_memory_source;
    EXPECT_NE(r.peak_memory_source.find("reserved"), std::string::npos) << r.peak_memory_source;
    const ProfileReport back = report_from_json(to_json(r));
    ASSERT_EQ(back.memory_series.size(), 1u);
    EXPECT_EQ(back.memory_series[0].peak_allocated_bytes, 151815365632);
    EXPECT_EQ(back.memory_series[0].peak_reserved_bytes, 152171446272);
    EXPECT_EQ(back.memory_series[0].allocated_points.size(), r.memory_series[0].allocated_points.size());
}

TEST(MemoryTotals, ExportWritesTotalsOnlyWhenKnown) {
    // Our own profiler gives no totals: the export must not pass a running sum off as "Total Allocated".
    auto trace = Trace::build({}, {total(1000, 64, -1, -1, DeviceKind::CPU)}, {});
    const auto j = nlohmann::json::parse(chrome_trace_text(trace, {}));
    bool seen = false;
    for (const auto& e : j["traceEvents"])
        if (e.value("name", std::string()) == "[memory]") {
            seen = true;
            EXPECT_FALSE(e["args"].contains("Total Allocated"));
        }
    EXPECT_TRUE(seen);
}
