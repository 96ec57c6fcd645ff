// A snapshot's allocations laid against the profile of the same run (analysis/snapshot_ops): the
// fixture's trace and snapshot are one CPU torch.profiler run of the article's manual attention
// (tests/reference/make_linked_snapshot.py, which also wrote what is expected, in plain Python).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "analysis/snapshot_ops.h"
#include "analysis/snapshot_timeline.h"
#include "io/memory_snapshot_read.h"
#include "io/trace_import.h"

namespace awb {
namespace {

std::string linked(const std::string& name) {
    return std::string(AWB_FIXTURE_DIR) + "/memory_snapshots/linked/" + name;
}

struct Linked {
    MemorySnapshot snapshot = read_memory_snapshot(linked("manual.pickle"));
    ImportedTrace imported = import_chrome_trace(linked("manual.trace.json.gz"));
    nlohmann::json want = nlohmann::json::parse(std::ifstream(linked("manual.link.json")));
    SnapshotOps ops = attribute_allocations(snapshot, imported.trace);
};

TEST(SnapshotOps, EachAllocationIsMadeByTheOperatorRunningThen) {
    const Linked l;
    const Trace& trace = l.imported.trace;
    ASSERT_EQ(l.ops.allocations, l.want["allocations"].get<int64_t>());
    EXPECT_EQ(l.ops.timed, l.ops.allocations);
    EXPECT_EQ(l.ops.in_ops, l.want["in_ops"].get<int64_t>());
    EXPECT_EQ(attribution_problem(l.ops, trace), "");
    ASSERT_EQ(l.ops.by_alloc.size(), l.want["innermost"].size());
    for (size_t i = 0; i < l.ops.by_alloc.size(); ++i) {
        const OpAllocation& a = l.ops.by_alloc[i];
        const nlohmann::json& w = l.want["innermost"][i];
        EXPECT_EQ(a.device, l.want["device"].get<int>());
        EXPECT_EQ(a.event, w[0].get<int64_t>());
        EXPECT_EQ(a.op >= 0 ? trace.events()[size_t(a.op)].name.str() : std::string("null"),
                  w[1].is_null() ? "null" : w[1].get<std::string>())
            << "allocation " << a.event;
    }
}

TEST(SnapshotOps, TheTableSaysWhichOperatorHoldsThePeak) {
    const Linked l;
    const SnapshotTimeline timeline = analyze_snapshot(l.snapshot);
    const auto& device = timeline.devices.back();
    EXPECT_EQ(device.peak_allocated, l.want["peak_allocated"].get<int64_t>());
    const std::vector<TracePeak> peaks = trace_peaks(l.snapshot, timeline, {}, l.imported.trace);
    ASSERT_EQ(peaks.size(), 1u);
    EXPECT_TRUE(peaks[0].device_peak);  // the profile covers the whole run here
    const std::vector<OpMemoryRow> rows = op_memory_rows(l.ops, l.snapshot, l.imported.trace, allocs_at_peak(peaks));
    ASSERT_EQ(rows.size(), l.want["by_op"].size());
    for (const OpMemoryRow& row : rows) {
        SCOPED_TRACE(row.name);
        const nlohmann::json& w = l.want["by_op"].at(row.name);
        EXPECT_EQ(row.allocations, w["allocations"].get<int64_t>());
        EXPECT_EQ(row.bytes, w["bytes"].get<int64_t>());
        EXPECT_EQ(row.at_peak, w["at_peak"].get<int64_t>());
        EXPECT_EQ(row.bytes_at_peak, w["bytes_at_peak"].get<int64_t>());
    }
    for (size_t i = 1; i < rows.size(); ++i) EXPECT_GE(rows[i - 1].bytes_at_peak, rows[i].bytes_at_peak);
    // The scores' softmax: one [2, 4, 128, 128] float block, alive at the peak (the backward needs it).
    EXPECT_EQ(l.want["by_op"]["aten::_softmax"]["bytes_at_peak"].get<int64_t>(), 2 * 4 * 128 * 128 * 4);
}

TEST(SnapshotOps, ASelectedOperatorShowsWhatItAndItsChildrenAllocated) {
    const Linked l;
    for (const auto& [name, events] : l.want["under"].items()) {
        SCOPED_TRACE(name);
        std::vector<int64_t> got;
        for (const OpAllocation& a : allocations_under(l.ops, l.imported.trace, name)) got.push_back(a.event);
        EXPECT_EQ(got, events.get<std::vector<int64_t>>());
        EXPECT_FALSE(got.empty());
    }
    EXPECT_TRUE(allocations_under(l.ops, l.imported.trace, "no such operator").empty());
}

TEST(SnapshotOps, WhyNothingIsAttributedIsSaid) {
    const Linked l;
    // A snapshot made from a CPU profile by _profile_to_snapshot alone: no times.
    const MemorySnapshot untimed =
        read_memory_snapshot(std::string(AWB_FIXTURE_DIR) + "/memory_snapshots/manual.p4.pickle");
    const SnapshotOps none = attribute_allocations(untimed, l.imported.trace);
    EXPECT_EQ(none.in_ops, 0);
    EXPECT_NE(attribution_problem(none, l.imported.trace).find("no time_us"), std::string::npos);
    // Another run's profile: the times do not overlap, and both spans are named.
    const ImportedTrace other = import_chrome_trace(std::string(AWB_FIXTURE_DIR) + "/traces/torch2/manual_train.json");
    const SnapshotOps apart = attribute_allocations(l.snapshot, other.trace);
    EXPECT_EQ(apart.in_ops, 0);
    const std::string why = attribution_problem(apart, other.trace);
    EXPECT_NE(why.find("not the same run"), std::string::npos) << why;
    EXPECT_NE(why.find(" UTC"), std::string::npos) << why;
}

}  // namespace
}  // namespace awb
