#include <gtest/gtest.h>

#include "analysis/memory_replay.h"

using namespace awb;

namespace {
MemoryEvent mem(int64_t ts, int64_t bytes, DeviceKind d = DeviceKind::CPU) {
    MemoryEvent m;
    m.ts_ns = ts;
    m.bytes = bytes;
    m.device = d;
    return m;
}
}  // namespace

TEST(MemoryReplay, RunningSumAndPeakPerDevice) {
    auto t = Trace::build({}, {mem(30, -50), mem(10, 100), mem(20, 200), mem(40, 5, DeviceKind::CUDA)}, {});
    auto series = replay_memory(t);
    ASSERT_EQ(series.size(), 2u);
    const auto& cpu = series[0];
    EXPECT_EQ(cpu.device, DeviceKind::CPU);
    EXPECT_EQ(cpu.points, (std::vector<MemoryPoint>{{10, 100}, {20, 300}, {30, 250}}));
    EXPECT_EQ(cpu.peak_bytes, 300);
    EXPECT_EQ(cpu.peak_ts_ns, 20);
    EXPECT_EQ(cpu.allocations, 2);
    EXPECT_EQ(cpu.frees, 1);
    EXPECT_EQ(cpu.freed_bytes, 50);
    EXPECT_EQ(series[1].device, DeviceKind::CUDA);
    EXPECT_EQ(series[1].peak_bytes, 5);
}

TEST(MemoryReplay, PeakIsNeverNegative) {
    auto series = replay_memory(Trace::build({}, {mem(1, -10), mem(2, -5)}, {}));
    EXPECT_EQ(series[0].peak_bytes, 0);
}

TEST(MemoryReplay, DownsamplingKeepsEveryPeakAndValley) {
    std::vector<MemoryPoint> pts;
    for (int i = 0; i < 100000; ++i) pts.push_back({i, (i % 1000 == 500) ? 1'000'000 : (i % 1000 == 700 ? -3 : i % 7)});
    auto small = downsample_min_max(pts, 100);
    EXPECT_LE(small.size(), 202u);
    int64_t hi = INT64_MIN, lo = INT64_MAX;
    for (const auto& p : small) hi = std::max(hi, p.bytes), lo = std::min(lo, p.bytes);
    EXPECT_EQ(hi, 1'000'000);
    EXPECT_EQ(lo, -3);
    EXPECT_EQ(small.front(), pts.front());
    EXPECT_EQ(small.back(), pts.back());
    for (size_t i = 1; i < small.size(); ++i) EXPECT_LE(small[i - 1].ts_ns, small[i].ts_ns);
    EXPECT_EQ(downsample_min_max({{1, 2}, {3, 4}}, 100).size(), 2u) << "short series stay as they are";
}
