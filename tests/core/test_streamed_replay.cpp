// A snapshot replayed beside its reading (analysis/snapshot_timeline.h: StreamedReplay, handed the
// events by io/snapshot_events.h's EventColumn chunk by chunk) equals analyze_snapshot of the snapshot
// once read: on every fixture, read streamed and whole, after a reading that fell back and started
// over, and when the events come in batches of any size across many chunks.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "analysis/snapshot_timeline.h"
#include "io/memory_snapshot_read.h"
#include "io/snapshot_events.h"
#include "test_support.h"

namespace awb {
namespace streamed_replay_test {

using test::snapshot_fixture;

void expect_same_blocks(const std::vector<LiveBlock>& a, const std::vector<LiveBlock>& b, const char* what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].addr, b[i].addr) << what << " " << i;
        EXPECT_EQ(a[i].size, b[i].size) << what << " " << i;
        EXPECT_EQ(a[i].stack, b[i].stack) << what << " " << i;
        EXPECT_EQ(a[i].alloc_event, b[i].alloc_event) << what << " " << i;
    }
}

// Every field of the two timelines.
void expect_same(const SnapshotTimeline& got, const SnapshotTimeline& want) {
    ASSERT_EQ(got.devices.size(), want.devices.size());
    for (size_t d = 0; d < got.devices.size(); ++d) {
        SCOPED_TRACE("device row " + std::to_string(d));
        const DeviceMemoryTimeline &g = got.devices[d], &w = want.devices[d];
        EXPECT_EQ(g.device, w.device);
        EXPECT_EQ(g.events, w.events);
        EXPECT_EQ(g.allocated, w.allocated);
        EXPECT_EQ(g.reserved, w.reserved);
        EXPECT_EQ(g.allocated_all, w.allocated_all);
        EXPECT_EQ(g.peak_allocated, w.peak_allocated);
        EXPECT_EQ(g.peak_index, w.peak_index);
        EXPECT_EQ(g.peak_reserved, w.peak_reserved);
        expect_same_blocks(g.at_peak, w.at_peak, "at_peak");
        expect_same_blocks(g.before_recording, w.before_recording, "before_recording");
        ASSERT_EQ(g.frames_at_peak.size(), w.frames_at_peak.size());
        for (size_t i = 0; i < g.frames_at_peak.size(); ++i) {
            EXPECT_EQ(g.frames_at_peak[i].frame, w.frames_at_peak[i].frame);
            EXPECT_EQ(g.frames_at_peak[i].bytes, w.frames_at_peak[i].bytes);
            EXPECT_EQ(g.frames_at_peak[i].blocks, w.frames_at_peak[i].blocks);
        }
        EXPECT_EQ(g.blocks, w.blocks);
        EXPECT_EQ(g.unmatched_frees, w.unmatched_frees);
        EXPECT_EQ(g.ooms, w.ooms);
        EXPECT_EQ(g.final_allocated, w.final_allocated);
        EXPECT_EQ(g.final_reserved, w.final_reserved);
        EXPECT_EQ(g.reserved_recorded, w.reserved_recorded);
        ASSERT_EQ(g.bands.size(), w.bands.size());
        for (size_t i = 0; i < g.bands.size(); ++i) {
            expect_same_blocks({g.bands[i].block}, {w.bands[i].block}, "band");
            EXPECT_EQ(g.bands[i].begin, w.bands[i].begin);
            EXPECT_EQ(g.bands[i].end, w.bands[i].end);
            EXPECT_EQ(g.bands[i].bottom, w.bands[i].bottom);
        }
        EXPECT_EQ(g.banded, w.banded);
        for (size_t a = 0; a + 1 < g.allocated.size(); a += std::max<size_t>(1, g.allocated.size() / 7))
            EXPECT_EQ(g.allocated_max.max(g.allocated, a, g.allocated.size()),
                      w.allocated_max.max(w.allocated, a, w.allocated.size()));
    }
}

SnapshotOptions with_bands(size_t n) {
    SnapshotOptions o;
    o.max_bands = n;
    return o;
}

TEST(StreamedReplay, EqualsTheReplayOfTheSnapshotReadOnEveryFixture) {
    for (const char* name :
         {"handmade.p2.pickle", "handmade.p4.pickle.gz", "handmade.p5.pickle", "manual.p4.pickle", "sdpa.p5.pickle",
          "gpu/manual.pytorch.pickle", "gpu/sdpa.pytorch.pickle", "gpu/manual.attnwb.pickle", "gpu/sdpa.attnwb.pickle",
          "linked/manual.pickle", "torch_layout.p4.pickle.gz", "transformer_manual.pickle.gz",
          "transformer_sdpa.pickle.gz"}) {
        for (const SnapshotReading how : {SnapshotReading::Streamed, SnapshotReading::Whole}) {
            SCOPED_TRACE(std::string(name) + (how == SnapshotReading::Whole ? " (whole)" : " (streamed)"));
            StreamedReplay replay;
            const MemorySnapshot s = read_memory_snapshot(snapshot_fixture(name), how, nullptr, &replay);
            ASSERT_GT(s.event_count(), 0);
            expect_same(replay.finish(s, with_bands(40)), analyze_snapshot(s, with_bands(40)));
            EXPECT_EQ(replay.replayed_beside(), s.event_count());
        }
    }
}

// A frame filter counts other blocks: finish() replays the snapshot again with it.
TEST(StreamedReplay, AFrameFilterIsReplayedAgain) {
    StreamedReplay replay;
    const MemorySnapshot s =
        read_memory_snapshot(snapshot_fixture("manual.p4.pickle"), SnapshotReading::Streamed, nullptr, &replay);
    SnapshotOptions keep = with_bands(10);
    keep.keep = std::vector<bool>(s.stacks.size(), false);
    for (size_t i = 0; i < s.stacks.size(); i += 2) (*keep.keep)[i] = true;
    const SnapshotTimeline t = replay.finish(s, keep);
    expect_same(t, analyze_snapshot(s, keep));
    EXPECT_EQ(replay.replayed_beside(), 0);
    EXPECT_FALSE(t.devices.at(0).allocated_all.empty());
}

// A reading that falls back to holding every value (a frames list filled twice) starts over: the events
// handed before are forgotten, not replayed twice.
TEST(StreamedReplay, AReadingThatStartsOverIsReplayedOnce) {
    const std::string again(
        "\x80\x04}\x94\x8c\x0d"
        "device_traces\x94]\x94]\x94(}\x94(\x8c\x06"
        "action\x94\x8c\x05"
        "alloc\x94\x8c\x04"
        "addr\x94K\x10\x8c\x04size\x94K \x8c\x06"
        "frames\x94]\x94(}\x94(\x8c\x08"
        "filename\x94\x8c\x04"
        "a.py\x94\x8c\x04line\x94K\x01\x8c\x04name\x94\x8c\x01"
        "f\x94u}\x94(h\x0c\x8c\x04"
        "b.py\x94h\x0eK\x02h\x0f\x8c\x01g\x94ueue(}"
        "\x94(h\x05h\x06h\x07K0h\x08K h\x09]\x94(h\x0bh\x11"
        "e(h\x0b"
        "eueas.",
        178);
    const std::string path = testing::TempDir() + "streamed_replay_again.pickle";
    std::ofstream(path, std::ios::binary) << again;
    StreamedReplay replay;
    const MemorySnapshot s = read_memory_snapshot(path, SnapshotReading::Streamed, nullptr, &replay);
    EXPECT_FALSE(s.streamed);
    const SnapshotTimeline t = replay.finish(s);
    expect_same(t, analyze_snapshot(s));
    EXPECT_EQ(replay.replayed_beside(), 2);
    EXPECT_EQ(t.devices.at(0).allocated, (std::vector<int64_t>{0, 32, 64}));
}

// A trace of many chunks, with blocks alive before recording, segment events and oom, handed in
// batches of random sizes, with a restart half-way: the same as the replay of the snapshot.
TEST(StreamedReplay, BatchesOfAnySizeEqualOneReplay) {
    MemorySnapshot s;
    s.stacks = {{}, {}, {}};
    std::mt19937_64 rng(7);
    std::vector<int64_t> live;
    auto& trace = s.device_traces.emplace_back();
    const auto ev = [](SnapshotAction a, int64_t addr, int64_t size, StackId stack) {
        return SnapshotEvent{.addr = addr, .size = size, .stack = stack, .action = a};
    };
    for (int64_t i = 0; i < 300000; ++i) {
        const uint64_t r = rng() % 100;
        if (r < 45 || live.empty()) {
            const int64_t addr = 512 * int64_t(rng() % 20000);
            trace.push_back(ev(SnapshotAction::Alloc, addr, 512 * int64_t(1 + rng() % 64), StackId(rng() % 3)));
            live.push_back(addr);
        } else if (r < 90) {
            const size_t k = size_t(rng() % live.size());
            trace.push_back(ev(SnapshotAction::FreeCompleted, live[k], 512, StackId(rng() % 3)));
            live[k] = live.back();
            live.pop_back();
        } else if (r < 95) {
            trace.push_back(
                ev(SnapshotAction::FreeCompleted, 512 * int64_t(20000 + rng() % 50), 4096, 0));  // alive from the start
        } else if (r < 99) {
            trace.push_back(
                ev(rng() % 2 ? SnapshotAction::SegmentAlloc : SnapshotAction::SegmentFree, 1 << 30, 2 << 20, kNoStack));
        } else {
            trace.push_back(ev(SnapshotAction::Oom, 1000, 0, kNoStack));
        }
    }
    SnapshotSegment seg;
    seg.total_size = 64 << 20;
    seg.segment_type = "large";
    seg.blocks = {{.address = 512 * 20001, .size = 4096, .state = BlockState::ActiveAllocated, .stack = 1},
                  {.address = 512 * 30000, .size = 8192, .state = BlockState::ActiveAllocated, .stack = 2}};
    s.segments = {seg};
    StreamedReplay replay;
    size_t handed = 0;
    while (handed < trace.size() / 2) {
        const size_t n = std::min<size_t>(1 + rng() % 9000, trace.size() - handed);
        replay.take(0, trace.data() + handed, n);
        handed += n;
    }
    replay.restart();
    for (handed = 0; handed < trace.size();) {
        const size_t n = std::min<size_t>(rng() % 3 ? 1 + rng() % 70000 : 0, trace.size() - handed);
        replay.take(0, trace.data() + handed, n);
        handed += n;
        if (rng() % 5 == 0) replay.wait();  // the reader moving on to the next device, or taking the events
    }
    const SnapshotTimeline t = replay.finish(s, with_bands(500));
    expect_same(t, analyze_snapshot(s, with_bands(500)));
    EXPECT_EQ(replay.replayed_beside(), int64_t(trace.size()));
    EXPECT_GT(t.devices.at(0).unmatched_frees, 0);
    EXPECT_FALSE(t.devices.at(0).before_recording.empty());
    EXPECT_TRUE(t.devices.at(0).reserved_recorded);
}

// What the reader's column hands a sink: every event once, in order, a full chunk at a time and the rest
// when taken, after which it waits for the sink; the events taken are the events pushed.
class RecordingSink final : public SnapshotEventSink {
public:
    void take(int device, const SnapshotEvent* first, size_t n) override {
        EXPECT_EQ(device, 3);
        sizes.push_back(n);
        seen.insert(seen.end(), first, first + n);
    }
    void wait() noexcept override { ++waits; }
    void restart() override {}
    std::vector<size_t> sizes;
    std::vector<SnapshotEvent> seen;
    int waits = 0;
};

TEST(StreamedReplay, TheReadersColumnHandsEveryEventOnceInChunks) {
    RecordingSink sink;
    const size_t chunk = ChunkedColumn<SnapshotEvent>::kChunk;
    const size_t n = 2 * chunk + 1234;
    std::vector<SnapshotEvent> taken;
    {
        EventColumn column(&sink, 3);
        for (size_t i = 0; i < n; ++i) column.push(SnapshotEvent{.addr = int64_t(i), .size = int64_t(i % 7)});
        EXPECT_EQ(sink.sizes, (std::vector<size_t>{chunk, chunk}));  // the full chunks, as they filled
        EXPECT_EQ(sink.waits, 0);
        taken = column.take();
        EXPECT_EQ(sink.sizes, (std::vector<size_t>{chunk, chunk, 1234}));
        EXPECT_EQ(sink.waits, 1);
    }
    ASSERT_EQ(taken.size(), n);
    ASSERT_EQ(sink.seen.size(), n);
    for (size_t i = 0; i < n; ++i) {
        EXPECT_EQ(taken[i].addr, int64_t(i));
        EXPECT_EQ(sink.seen[i].addr, int64_t(i));
    }
}

}  // namespace streamed_replay_test
}  // namespace awb
