// What the memory-snapshot views show (analysis/snapshot_frames.h, snapshot_timeline.h's filter and
// bands) against tests/reference/snapshot_views_reference.py, a plain-Python replay of the fixtures'
// JSON: a frame filter's peak, its blocks and curve, and memory_viz's stacked picture (its
// process_alloc_data ported to our event axis). Plus the frame that names a block.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/snapshot_diff.h"
#include "analysis/snapshot_text.h"
#include "analysis/snapshot_frames.h"
#include "analysis/snapshot_timeline.h"
#include "io/memory_snapshot_read.h"
#include "test_support.h"

namespace awb {
namespace {

using test::snapshot_fixture;

nlohmann::json pairs(const std::vector<LiveBlock>& blocks) {
    nlohmann::json a = nlohmann::json::array();
    for (const LiveBlock& b : blocks) a.push_back({b.addr, b.size});
    return a;
}

nlohmann::json steps(const std::vector<StepPoint>& points) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& [x, v] : points) a.push_back({x, v});
    return a;
}

nlohmann::json views_of(const std::string& name) {
    std::ifstream in(snapshot_fixture(name + ".views.json"));
    return nlohmann::json::parse(in);
}

TEST(SnapshotViews, FrameFilterEqualsPythonsReplay) {
    for (const char* name : {"manual", "sdpa", "handmade"}) {
        const MemorySnapshot snap = read_memory_snapshot(snapshot_fixture(std::string(name) + ".p4.pickle"));
        const SnapshotTimeline all = analyze_snapshot(snap);
        const nlohmann::json want = views_of(name);
        ASSERT_EQ(want["devices"].size(), all.devices.size());
        for (size_t d = 0; d < all.devices.size(); ++d)
            for (const auto& [text, w] : want["devices"][d]["filters"].items()) {
                SCOPED_TRACE(std::string(name) + " filtered by " + text);
                SnapshotOptions options;
                options.keep = stacks_matching(snap, text);
                const DeviceMemoryTimeline got = analyze_snapshot(snap, options).devices[d];
                EXPECT_EQ(got.peak_allocated, w["peak_allocated"]);
                EXPECT_EQ(got.peak_index, w["peak_index"]);
                EXPECT_EQ(got.blocks, w["blocks"]);
                EXPECT_EQ(pairs(got.at_peak), w["at_peak"]);
                EXPECT_EQ(pairs(got.before_recording), w["before_recording"]);
                EXPECT_EQ(nlohmann::json(got.allocated), w["allocated"]);
                EXPECT_EQ(got.allocated_all, all.devices[d].allocated) << "the whole curve beside the filtered one";
                EXPECT_EQ(got.reserved, all.devices[d].reserved) << "a filter counts blocks, not segments";
            }
    }
}

TEST(SnapshotViews, FilterThatMatchesSomethingCountsLessThanAll) {
    const MemorySnapshot snap = read_memory_snapshot(snapshot_fixture("manual.p4.pickle"));
    SnapshotOptions options;
    options.keep = stacks_matching(snap, "softmax");
    const DeviceMemoryTimeline filtered = analyze_snapshot(snap, options).devices[0];
    const DeviceMemoryTimeline all = analyze_snapshot(snap).devices[0];
    EXPECT_GT(filtered.peak_allocated, 0);
    EXPECT_LT(filtered.peak_allocated, all.peak_allocated);
    for (size_t x = 0; x < all.allocated.size(); ++x) EXPECT_LE(filtered.allocated[x], all.allocated[x]);
    EXPECT_TRUE(all.allocated_all.empty()) << "no filter: allocated is the whole";
}

TEST(SnapshotViews, BandsEqualMemoryVizsStacking) {
    for (const char* name : {"manual", "sdpa", "handmade"}) {
        SCOPED_TRACE(name);
        const MemorySnapshot snap = read_memory_snapshot(snapshot_fixture(std::string(name) + ".p5.pickle"));
        const nlohmann::json want = views_of(name)["devices"][0]["bands"];
        SnapshotOptions options;
        options.max_bands = want["max_bands"];
        const DeviceMemoryTimeline t = analyze_snapshot(snap, options).devices[0];
        ASSERT_EQ(t.bands.size(), want["bands"].size());
        for (size_t b = 0; b < t.bands.size(); ++b) {
            const BlockBand& got = t.bands[b];
            const nlohmann::json& w = want["bands"][b];
            EXPECT_EQ(got.block.addr, w["addr"]);
            EXPECT_EQ(got.block.size, w["size"]);
            EXPECT_EQ(got.begin, w["begin"]);
            EXPECT_EQ(got.end, w["end"]);
            EXPECT_EQ(steps(got.bottom), w["bottom"]);
        }
        EXPECT_EQ(steps(t.banded), want["banded"]);
    }
}

// Whatever the trace, the bands tile from 0 without gaps or overlaps, under the allocated curve.
TEST(SnapshotViews, BandsTileUnderTheCurve) {
    for (const char* name : {"manual", "sdpa", "handmade"}) {
        SCOPED_TRACE(name);
        const MemorySnapshot snap = read_memory_snapshot(snapshot_fixture(std::string(name) + ".p4.pickle"));
        for (const size_t max_bands : {size_t(1), size_t(5), size_t(1000)}) {
            SnapshotOptions options;
            options.max_bands = max_bands;
            const DeviceMemoryTimeline t = analyze_snapshot(snap, options).devices[0];
            EXPECT_EQ(t.bands.size(), std::min<size_t>(max_bands, size_t(t.blocks)));
            for (int64_t x = 0; x < int64_t(t.allocated.size()); ++x) {
                std::vector<std::pair<int64_t, int64_t>> spans;
                for (const BlockBand& b : t.bands)
                    if (b.begin <= x && x < b.end) spans.push_back({b.bottom_at(x), b.block.size});
                std::sort(spans.begin(), spans.end());
                int64_t top = 0;
                for (const auto& [bottom, size] : spans) {
                    EXPECT_EQ(bottom, top) << "at x " << x;
                    top = bottom + size;
                }
                EXPECT_LE(top, t.allocated[size_t(x)]);
                if (max_bands >= size_t(t.blocks)) {
                    EXPECT_EQ(top, t.allocated[size_t(x)]) << "every block drawn: they are the curve";
                }
            }
        }
    }
}

// A filter on a snapshot without any stack counts nothing (not everything), with the whole beside it.
TEST(SnapshotViews, FilterOfASnapshotWithoutStacksCountsNothing) {
    MemorySnapshot s;
    s.device_traces = {{{.addr = 16, .size = 64, .action = SnapshotAction::Alloc},
                        {.addr = 16, .size = 64, .action = SnapshotAction::FreeCompleted}}};
    SnapshotOptions options;
    options.keep = stacks_matching(s, "attention");
    ASSERT_TRUE(options.keep->empty());
    const DeviceMemoryTimeline t = analyze_snapshot(s, options).devices[0];
    EXPECT_EQ(t.peak_allocated, 0);
    EXPECT_EQ(t.blocks, 0);
    EXPECT_EQ(t.allocated_all, (std::vector<int64_t>{0, 64, 0}));
}

// RangeMax (the chart's and the report's column maxima) against a walk over the range, on curves about
// its block size and longer, over every short range near the start and ranges at random.
TEST(SnapshotViews, RangeMaxEqualsAWalkOverTheRange) {
    std::mt19937_64 rng(7);
    for (size_t n : {1, 2, 63, 64, 65, 127, 128, 129, 200, 1000, 4096, 100003}) {
        std::vector<int64_t> curve(n);
        for (int64_t& v : curve) v = int64_t(rng() % 2000) - 1000;
        const RangeMax m(curve);
        const auto check = [&](size_t a, size_t b) {
            ASSERT_EQ(m.max(curve, a, b),
                      *std::max_element(curve.begin() + std::ptrdiff_t(a), curve.begin() + std::ptrdiff_t(b)))
                << n << " values, [" << a << ", " << b << ")";
        };
        for (size_t a = 0; a < std::min<size_t>(n, 140); ++a)
            for (size_t b = a + 1; b <= n && b < a + 400; b += b < a + 140 ? 1 : 37) check(a, b);
        for (int i = 0; i < 2000; ++i) {
            const size_t a = size_t(rng() % n);
            check(a, a + 1 + size_t(rng() % (n - a)));
        }
        check(0, n);
    }
    const std::vector<int64_t> few{3, 9, 4};
    EXPECT_EQ(RangeMax().max(few, 0, 3), 9);  // none built: the range walked
}

// Blocks alive before recording (found walking back from the final state, on a thread of their own)
// joined to the forward replay: each ends at the first free of its address; a second free of it, or a
// free of an address never alive, is not matched; a block of the final state the trace never names is
// alive throughout. The curves, with and without a filter, and the blocks alive at each point.
TEST(SnapshotViews, BlocksAliveBeforeRecordingEndAtTheirFirstFreeAndTheRestIsUnmatched) {
    MemorySnapshot s;
    s.stacks = {{}, {}};  // 0: kept by the filter below, 1: not
    SnapshotSegment seg;
    seg.address = 4096;
    seg.total_size = 1000;
    seg.blocks = {{.address = 4096, .size = 1000, .state = BlockState::ActiveAllocated, .stack = 1},
                  {.address = 5096, .size = 8, .state = BlockState::Inactive}};
    s.segments = {seg};
    const auto ev = [](SnapshotAction a, int64_t addr, int64_t size, StackId stack) {
        return SnapshotEvent{.addr = addr, .size = size, .stack = stack, .action = a};
    };
    s.device_traces = {{ev(SnapshotAction::FreeCompleted, 16, 64, 0),     // x=1: 16 was alive from the start
                        ev(SnapshotAction::Alloc, 32, 128, 0),            // x=2
                        ev(SnapshotAction::FreeCompleted, 16, 64, 0),     // x=3: 16 again: not matched
                        ev(SnapshotAction::FreeCompleted, 48, 512, 1),    // x=4: 48 was alive from the start (not kept)
                        ev(SnapshotAction::Alloc, 16, 256, 1),            // x=5
                        ev(SnapshotAction::FreeCompleted, 32, 128, 0),    // x=6
                        ev(SnapshotAction::FreeCompleted, 48, 512, 1)}};  // x=7: 48 again: not matched
    SnapshotOptions bands;
    bands.max_bands = 10;
    const DeviceMemoryTimeline t = analyze_snapshot(s, bands).devices.at(0);
    EXPECT_EQ(t.unmatched_frees, 2);
    EXPECT_EQ(t.allocated, (std::vector<int64_t>{1576, 1512, 1640, 1640, 1128, 1384, 1256, 1256}));
    EXPECT_EQ(t.blocks, 5);
    ASSERT_EQ(t.before_recording.size(), 3u);  // largest first
    EXPECT_EQ(t.before_recording[0].addr, 4096);
    EXPECT_EQ(t.before_recording[1].addr, 48);
    EXPECT_EQ(t.before_recording[2].addr, 16);
    EXPECT_EQ(t.peak_allocated, 1640);
    EXPECT_EQ(t.peak_index, 2);
    ASSERT_EQ(t.at_peak.size(), 3u);                     // 4096, 48, 32 (16's first life ended at x=1)
    EXPECT_EQ(blocks_alive_at(s, 0, 5, {}).size(), 3u);  // 4096, 32, and the alloc at 16
    EXPECT_EQ(blocks_alive_at(s, 0, 3, {}).size(), 3u);  // 4096, 48, 32
    // The bands stack the start's blocks first, largest at the bottom, then the allocs as they came.
    ASSERT_EQ(t.bands.size(), 5u);
    EXPECT_EQ(t.bands[0].block.addr, 4096);
    EXPECT_EQ(t.bands[1].block.addr, 48);
    EXPECT_EQ(t.bands[2].block.addr, 16);
    EXPECT_EQ(t.bands[3].block.addr, 32);
    // Only stack 0 kept: 16's first life and 32 counted; every block in allocated_all.
    SnapshotOptions keep;
    keep.keep = std::vector<bool>{true, false};
    const DeviceMemoryTimeline f = analyze_snapshot(s, keep).devices.at(0);
    EXPECT_EQ(f.allocated, (std::vector<int64_t>{64, 0, 128, 128, 128, 128, 0, 0}));
    EXPECT_EQ(f.allocated_all, t.allocated);
    EXPECT_EQ(f.unmatched_frees, 2);
}

// attnwb diff of two real training steps' snapshots (manual against SDPA attention): each side's peak
// and every allocating frame's bytes and blocks at it and allocs over the trace, as Python groups them.
TEST(SnapshotViews, DiffOfManualAndSdpaEqualsPythons) {
    const MemorySnapshot a = read_memory_snapshot(snapshot_fixture("transformer_manual.pickle.gz"));
    const MemorySnapshot b = read_memory_snapshot(snapshot_fixture("transformer_sdpa.pickle.gz"));
    const SnapshotDiff diff = diff_snapshots(a, analyze_snapshot(a), b, analyze_snapshot(b));
    std::ifstream in(snapshot_fixture("transformer.diff.json"));
    const nlohmann::json want = nlohmann::json::parse(in);
    ASSERT_EQ(diff.devices.size(), want["devices"].size());
    const SnapshotDeviceDiff& d = diff.devices[0];
    const nlohmann::json& w = want["devices"][0];
    EXPECT_EQ(d.peak_a, w["peak_a"]);
    EXPECT_EQ(d.peak_b, w["peak_b"]);
    ASSERT_EQ(d.rows.size(), w["rows"].size());
    auto side = [](const SnapshotSideFigures& f) {
        return nlohmann::json{{"peak_bytes", f.peak_bytes},
                              {"peak_blocks", f.peak_blocks},
                              {"allocs", f.allocs},
                              {"alloc_bytes", f.alloc_bytes}};
    };
    for (const SnapshotDiffRow& r : d.rows) {
        SCOPED_TRACE(r.frame);
        ASSERT_TRUE(w["rows"].contains(r.frame));
        EXPECT_EQ(side(r.a), w["rows"][r.frame]["a"]);
        EXPECT_EQ(side(r.b), w["rows"][r.frame]["b"]);
    }
    for (size_t i = 1; i < d.rows.size(); ++i)
        EXPECT_GE(std::llabs(d.rows[i - 1].peak_delta()), std::llabs(d.rows[i].peak_delta()));
    // The story: the manual attention's forward holds the [4, 8, 512, 512] scores (32 MiB a layer) at the peak.
    EXPECT_EQ(d.rows.front().frame, "make_transformer_snapshots.py(33): forward");
    EXPECT_LT(d.rows.front().peak_delta(), -100 * 1024 * 1024);
    const std::string text = format_snapshot_diff(diff, "manual", "sdpa", 0);
    EXPECT_NE(text.find("peak allocated A 338.5 MiB, B 175.5 MiB (-163.0 MiB)"), std::string::npos) << text;
    // Converted from CPU profiles, they hold one segment spanning the tensors' addresses (torch 2.11
    // writes the highest address as its total_size: 130,898 GiB here): no allocator's reserve.
    EXPECT_FALSE(d.reserved_recorded_a);
    EXPECT_FALSE(d.reserved_recorded_b);
    EXPECT_GT(d.peak_reserved_a, int64_t(1) << 40);
    EXPECT_NE(text.find("peak reserved A not recorded, B not recorded (-)"), std::string::npos) << text;
    EXPECT_EQ(text.find("130898"), std::string::npos) << text;  // the span once shown as reserved: 130898.58 GiB
}

TEST(SnapshotViews, ReservedIsShownOnlyWhereTheAllocatorRecordedIt) {
    for (const char* name : {"gpu/manual.attnwb.pickle", "gpu/sdpa.pytorch.pickle", "handmade.p4.pickle"}) {
        SCOPED_TRACE(name);
        const MemorySnapshot s = read_memory_snapshot(snapshot_fixture(name));
        const SnapshotTimeline t = analyze_snapshot(s);
        ASSERT_FALSE(t.devices.empty());
        EXPECT_TRUE(t.devices[0].reserved_recorded);  // typed segments (CUDA's) or segment events
        EXPECT_NE(format_snapshot(s, t, 3).find(" reserved\n  peak allocated"), std::string::npos)
            << format_snapshot(s, t, 3);
    }
    const MemorySnapshot cpu = read_memory_snapshot(snapshot_fixture("manual.p4.pickle"));
    const SnapshotTimeline t = analyze_snapshot(cpu);
    EXPECT_FALSE(t.devices.at(0).reserved_recorded);
    const std::string text = format_snapshot(cpu, t, 3);
    EXPECT_NE(text.find("at the snapshot 48.0 KiB allocated\n  reserved not recorded: "), std::string::npos) << text;
    EXPECT_EQ(text.find("peak reserved"), std::string::npos) << text;
    EXPECT_EQ(snapshot_json(cpu, t)["devices"][0]["reserved_recorded"], false);
}

MemorySnapshot with_stack(std::vector<SnapshotFrame> frames) {
    MemorySnapshot s;
    s.frames = std::move(frames);
    s.stacks.push_back({});
    for (size_t i = 0; i < s.frames.size(); ++i) s.stacks.back().push_back(int32_t(i));
    return s;
}

TEST(SnapshotViews, AllocatingFrameIsTheModelsLine) {
    // A CUDA snapshot with C++ frames first, then torch's Python, then the model's line.
    const MemorySnapshot cuda =
        with_stack({{"??", 0, "c10::cuda::CUDACachingAllocator::malloc"},
                    {"/usr/lib/python3/site-packages/torch/nn/functional.py", 5500, "scaled_dot_product_attention"},
                    {"/home/me/model/attn.py", 34, "forward"},
                    {"/home/me/train.py", 90, "step"}});
    EXPECT_EQ(allocating_frame(cuda, 0), 2);
    // A profile's frames ("file.py(line): name" with filename "none").
    const MemorySnapshot profile = with_stack({{"none", 0, "<built-in method softmax of type object at 0x7f>"},
                                               {"none", 0, "torch/nn/functional.py(2140): softmax"},
                                               {"none", 0, "make_memory_snapshots.py(37): manual"}});
    EXPECT_EQ(allocating_frame(profile, 0), 2);
    // Only torch's Python: its innermost; only C++: the innermost frame.
    EXPECT_EQ(allocating_frame(with_stack({{"??", 0, "malloc"},
                                           {"torch/_tensor.py", 5, "backward"},
                                           {"torch/autograd/graph.py", 8, "run"}}),
                               0),
              1);
    EXPECT_EQ(allocating_frame(with_stack({{"??", 0, "malloc"}, {"alloc.cpp", 9, "f"}}), 0), 0);
    EXPECT_EQ(allocating_frame(cuda, kNoStack), -1);
    EXPECT_EQ(allocating_frames(cuda), std::vector<int32_t>{2});
}

TEST(SnapshotViews, StacksMatchingIsCaseInsensitiveOnTheFramesText) {
    const MemorySnapshot s = with_stack({{"/m/attn.py", 34, "Attention.forward"}, {"none", 0, "train.py(9): step"}});
    EXPECT_EQ(stacks_matching(s, "attention"), std::vector<bool>{true});
    EXPECT_EQ(stacks_matching(s, "ATTN.PY:34"), std::vector<bool>{true}) << "the file and line are in the text";
    EXPECT_EQ(stacks_matching(s, "train.py(9)"), std::vector<bool>{true});
    EXPECT_EQ(stacks_matching(s, "mlp"), std::vector<bool>{false});
    EXPECT_EQ(frame_text(s.frames[0]), "Attention.forward (/m/attn.py:34)");
    EXPECT_EQ(frame_text(s.frames[1]), "train.py(9): step");
}

}  // namespace
}  // namespace awb
