// Memory snapshots (io/memory_snapshot_read.h, analysis/snapshot_timeline.h) against
// tests/reference/make_memory_snapshots.py: the article's manual and SDPA attention recorded by torch
// 2.11's profiler and turned into snapshots by torch's own _profile_to_snapshot, plus a hand-written one
// with what a CPU profile does not make. The peak, the blocks alive at it, the bytes under each frame
// there and the blocks alive before recording began equal a replay of the same events in plain Python
// (<name>.expected.json), for every pickle protocol and gzip; a wrong layout is one message naming the field.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "analysis/snapshot_frames.h"
#include "analysis/snapshot_timeline.h"
#include "io/memory_snapshot_read.h"
#include "test_support.h"

namespace awb {
namespace {

using test::snapshot_fixture;

nlohmann::json blocks_json(const std::vector<LiveBlock>& blocks) {
    nlohmann::json a = nlohmann::json::array();
    for (const LiveBlock& b : blocks) a.push_back({b.addr, b.size});
    return a;
}

std::string frame_key(const SnapshotFrame& f) {
    return f.name + " (" + f.filename + ":" + std::to_string(f.line) + ")";
}

TEST(MemorySnapshot, ReplayEqualsPythonsForEveryProtocolAndGzip) {
    for (const char* name : {"manual", "sdpa", "handmade"}) {
        std::ifstream in(snapshot_fixture(std::string(name) + ".expected.json"));
        const nlohmann::json want = nlohmann::json::parse(in);
        for (const char* form : {".p2.pickle", ".p4.pickle", ".p5.pickle", ".p4.pickle.gz"}) {
            SCOPED_TRACE(std::string(name) + form);
            const MemorySnapshot snap = read_memory_snapshot(snapshot_fixture(name + std::string(form)));
            EXPECT_EQ(snap.pickle_protocol, form[2] - '0');
            const SnapshotTimeline timeline = analyze_snapshot(snap);
            ASSERT_EQ(timeline.devices.size(), want["devices"].size());
            for (size_t d = 0; d < timeline.devices.size(); ++d) {
                const DeviceMemoryTimeline& got = timeline.devices[d];
                const nlohmann::json& w = want["devices"][d];
                EXPECT_EQ(got.device, w["device"]);
                EXPECT_EQ(got.events, w["events"]);
                EXPECT_EQ(got.peak_allocated, w["peak_allocated"]);
                EXPECT_EQ(got.peak_index, w["peak_index"]);
                EXPECT_EQ(blocks_json(got.at_peak), w["at_peak"]);
                EXPECT_EQ(blocks_json(got.before_recording), w["before_recording"]);
                EXPECT_EQ(got.final_allocated, w["final_allocated"]);
                EXPECT_EQ(got.final_reserved, w["final_reserved"]);
                std::map<std::string, int64_t> frames;
                for (const FrameBytes& f : got.frames_at_peak)
                    frames[frame_key(snap.frames[size_t(f.frame)])] = f.bytes;
                EXPECT_EQ(nlohmann::json(frames), w["frames_at_peak"]);
                for (size_t i = 1; i < got.frames_at_peak.size(); ++i)
                    EXPECT_GE(got.frames_at_peak[i - 1].bytes, got.frames_at_peak[i].bytes);
                EXPECT_EQ(got.allocated.size(), size_t(got.events) + 1);
                EXPECT_EQ(got.allocated.back(), got.final_allocated)
                    << "the replay ends where the snapshot's final state is";
                EXPECT_EQ(got.unmatched_frees, 0);
            }
        }
    }
}

// Real CUDA snapshots, recorded on an H100 by the GPU check (tests/fixtures/memory_snapshots/gpu/): by
// attnwb profile --memory-snapshot (LibTorch's pickle, protocol 2, C++ stacks) and by PyTorch's
// _record_memory_history / _dump_snapshot (protocol 4, Python and C++ stacks). Each equals the
// plain-Python replay of its events (scripts/gpu_check/snapshots.py, NAME.pickle.replay.json), frames
// included, with the recording's machinery (the unwinder, the caching allocator) left out of both.
TEST(MemorySnapshot, RealCudaSnapshotsEqualTheirPythonReplay) {
    for (const char* name : {"manual.attnwb", "sdpa.attnwb", "manual.pytorch", "sdpa.pytorch"}) {
        SCOPED_TRACE(name);
        const std::string path = snapshot_fixture(std::string("gpu/") + name + ".pickle");
        const nlohmann::json want = nlohmann::json::parse(std::ifstream(path + ".replay.json"));
        const MemorySnapshot snap = read_memory_snapshot(path);
        const SnapshotTimeline timeline = analyze_snapshot(snap);
        ASSERT_EQ(timeline.devices.size(), want.size());
        const DeviceMemoryTimeline& got = timeline.devices[0];
        const nlohmann::json& w = want[0];
        EXPECT_EQ(got.events, w["events"]);
        EXPECT_EQ(got.peak_allocated, w["peak_allocated_bytes"]);
        EXPECT_EQ(got.peak_index, w["peak_after_events"]);
        EXPECT_EQ(got.peak_reserved, w["peak_reserved_bytes"]);
        EXPECT_EQ(got.final_allocated, w["final_allocated_bytes"]);
        EXPECT_EQ(got.blocks, w["blocks"]);
        EXPECT_EQ(blocks_json(got.at_peak), w["blocks_at_peak"]);
        EXPECT_EQ(blocks_json(got.before_recording), w["alive_before_recording"]);
        std::map<std::string, std::vector<int64_t>> frames;
        for (const FrameBytes& f : got.frames_at_peak)
            frames[frame_text(snap.frames[size_t(f.frame)])] = {f.bytes, f.blocks};
        EXPECT_EQ(nlohmann::json(frames), w["frames_at_peak"]);
        EXPECT_EQ(got.unmatched_frees, 0);
        // The cuBLAS workspace (32 MiB on Hopper) is the largest block at the manual variant's peak.
        if (std::string(name).rfind("manual", 0) == 0) {
            EXPECT_EQ(got.at_peak.front().size, 32 << 20);
        }
    }
}

TEST(MemorySnapshot, TheManualVariantsPeakHoldsItsScores) {
    // [1, 2, 64, 64] float32 scores: 32 KiB blocks, in the manual variant's peak and not in SDPA's
    // larger-than-16-KiB blocks beyond what both share.
    const SnapshotTimeline manual = analyze_snapshot(read_memory_snapshot(snapshot_fixture("manual.p4.pickle")));
    const SnapshotTimeline sdpa = analyze_snapshot(read_memory_snapshot(snapshot_fixture("sdpa.p4.pickle")));
    ASSERT_EQ(manual.devices.size(), 1u);
    ASSERT_EQ(sdpa.devices.size(), 1u);
    EXPECT_GT(manual.devices[0].peak_allocated, sdpa.devices[0].peak_allocated);
    EXPECT_EQ(manual.devices[0].at_peak.front().size, 1 * 2 * 64 * 64 * 4);
    EXPECT_LT(sdpa.devices[0].at_peak.front().size, 1 * 2 * 64 * 64 * 4);
    // q, k and v (and what else was alive when the profile began) were there before recording.
    int qkv = 0;
    for (const LiveBlock& b : manual.devices[0].before_recording)
        qkv += b.size == 1 * 2 * 64 * 16 * 4 && b.alloc_event == -1;
    EXPECT_GE(qkv, 3);
}

TEST(MemorySnapshot, HandmadeSegmentsBlocksAndSegmentEvents) {
    const MemorySnapshot snap = read_memory_snapshot(snapshot_fixture("handmade.p4.pickle"));
    ASSERT_EQ(snap.segments.size(), 2u);
    const SnapshotSegment& large = snap.segments[0];
    EXPECT_EQ(large.segment_type, "large");
    ASSERT_EQ(large.blocks.size(), 3u);
    EXPECT_EQ(large.blocks[1].state, BlockState::ActiveAwaitingFree);
    EXPECT_EQ(large.blocks[2].address, (2 << 20) + 4096);
    EXPECT_EQ(large.blocks[0].requested_size, 1000000);
    EXPECT_EQ(snap.segments[1].stream, 7);
    // One stack for the shared frames list, innermost first, frames kept once.
    ASSERT_NE(large.blocks[0].stack, kNoStack);
    const auto& stack = snap.stacks[size_t(large.blocks[0].stack)];
    ASSERT_EQ(stack.size(), 2u);
    EXPECT_EQ(snap.frames[size_t(stack[0])], (SnapshotFrame{"model.py", 12, "attention"}));
    EXPECT_EQ(snap.device_traces[0][1].stack, large.blocks[0].stack);
    EXPECT_EQ(snap.frames.size(), 2u);
    const auto& trace = snap.device_traces.at(0);
    ASSERT_EQ(trace.size(), 9u);
    EXPECT_EQ(trace[6].action, SnapshotAction::Oom);
    EXPECT_EQ(trace[6].device_free(), 123456789);
    EXPECT_EQ(trace[0].time_us, 10);
    // Reserved bytes: the final 2 MiB + 512 walked back through segment_alloc, map, unmap and free.
    const DeviceMemoryTimeline t = analyze_snapshot(snap).devices.at(0);
    EXPECT_EQ(t.reserved.front(), (1 << 20) + 512);
    EXPECT_EQ(t.peak_reserved, (5 << 20) + 512);
    EXPECT_EQ(t.reserved.back(), (2 << 20) + 512);
    EXPECT_EQ(t.ooms, 1);
    // The 512-byte block of the small segment was alive before recording began.
    ASSERT_EQ(t.before_recording.size(), 1u);
    EXPECT_EQ(t.before_recording[0].addr, int64_t(1) << 30);
    // Allocator settings as text.
    std::map<std::string, std::string> settings(snap.allocator_settings.begin(), snap.allocator_settings.end());
    EXPECT_EQ(settings["ratio"], "0.25");
    EXPECT_EQ(settings["expandable_segments"], "False");
    EXPECT_EQ(settings["last_allocator_settings"], "None");
    EXPECT_EQ(settings["big"], std::to_string((int64_t(1) << 62) + 5));
    EXPECT_EQ(settings["roundup_power2_divisions"], "{1: 0, 2: 0}");
}

std::string message_of(const std::string& bad) {
    try {
        read_memory_snapshot(snapshot_fixture("bad/" + bad + ".pickle"));
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(read)";
}

TEST(MemorySnapshot, AWrongLayoutNamesTheFileAndTheField) {
    EXPECT_NE(message_of("segments_not_a_list").find("segments_not_a_list.pickle: segments: an int, not a list"),
              std::string::npos)
        << message_of("segments_not_a_list");
    EXPECT_NE(message_of("size_a_str").find("device_traces[0][0].size: a str, not an int"), std::string::npos)
        << message_of("size_a_str");
    EXPECT_NE(message_of("not_a_dict").find("the snapshot: a dict (segments, device_traces), not a list"),
              std::string::npos)
        << message_of("not_a_dict");
    EXPECT_NE(message_of("block_state").find("segments[0].blocks[0].state: 'weird'"), std::string::npos)
        << message_of("block_state");
    // An action this reader does not know is counted and passed over; the rest is read.
    const MemorySnapshot snap = read_memory_snapshot(snapshot_fixture("bad/unknown_action.pickle"));
    ASSERT_EQ(snap.unknown_actions.size(), 1u);
    EXPECT_EQ(snap.unknown_actions[0], (std::pair<std::string, int64_t>{"user_thing", 1}));
    ASSERT_EQ(snap.device_traces.at(0).size(), 1u);
    EXPECT_EQ(snap.device_traces[0][0].addr, 16);
}

// The streamed reading (trace events made as they are read, io/pickle_machine.h) against the whole one.
std::string stack_text(const MemorySnapshot& s, StackId stack) {
    std::string t;
    if (stack != kNoStack)
        for (int32_t f : s.stacks[size_t(stack)]) t += frame_key(s.frames[size_t(f)]) + ";";
    return t;
}

std::string events_text(const MemorySnapshot& s) {
    std::string t;
    for (const auto& trace : s.device_traces) {
        t += "|";
        for (const SnapshotEvent& e : trace) {
            t += std::string(snapshot_action_name(e.action)) + " " + std::to_string(e.addr) + " " +
                 std::to_string(e.size) + " " + std::to_string(s.stream_of(e)) + " " + std::to_string(e.time_us) +
                 " [" + stack_text(s, e.stack) + "] ";
        }
    }
    return t;
}

TEST(MemorySnapshot, StreamedEqualsWholeForEveryProtocolAndGzip) {
    for (const char* name : {"manual", "sdpa", "handmade"})
        for (const char* form : {".p2.pickle", ".p4.pickle", ".p5.pickle", ".p4.pickle.gz"}) {
            SCOPED_TRACE(std::string(name) + form);
            const std::string path = snapshot_fixture(name + std::string(form));
            const MemorySnapshot streamed = read_memory_snapshot(path);
            const MemorySnapshot whole = read_memory_snapshot(path, SnapshotReading::Whole);
            EXPECT_FALSE(streamed.device_traces.at(0).empty());
            EXPECT_EQ(events_text(streamed), events_text(whole));
            EXPECT_EQ(streamed.stacks.size(), whole.stacks.size());
            EXPECT_EQ(streamed.frames.size(), whole.frames.size());
            EXPECT_EQ(streamed.segments.size(), whole.segments.size());
            EXPECT_EQ(streamed.allocator_settings, whole.allocator_settings);
        }
}

// torch_layout: scripts/bench_snapshot.py --generate --events 1100 --seed 7, gzipped (56 KB: under the
// fuzzer's 64 KiB, so it seeds it too). The objects are shared as torch's py_symbolize shares them: one
// frames list per allocation, written first in the segments' blocks or the alloc event and referred to
// again by the block's frees (some in the second APPENDS batch of 1000 events), frame dicts shared by
// every list.
TEST(MemorySnapshot, TorchsSharingStreamsAndEqualsTheWholeReading) {
    const std::string path = snapshot_fixture("torch_layout.p4.pickle.gz");
    std::ifstream meta_in(snapshot_fixture("torch_layout.meta.json"));
    const nlohmann::json meta = nlohmann::json::parse(meta_in);
    const MemorySnapshot streamed = read_memory_snapshot(path);
    const MemorySnapshot whole = read_memory_snapshot(path, SnapshotReading::Whole);
    EXPECT_TRUE(streamed.streamed);  // no fallback: what the lists and frames made is found through the memo
    EXPECT_FALSE(whole.streamed);
    ASSERT_EQ(streamed.device_traces.at(0).size(), meta["events"].get<size_t>());
    EXPECT_EQ(events_text(streamed), events_text(whole));  // stacks and frames by their text: numbered as first read
    EXPECT_EQ(streamed.stacks.size(), whole.stacks.size());
    EXPECT_EQ(streamed.frames.size(), whole.frames.size());
    ASSERT_EQ(streamed.segments.size(), whole.segments.size());
    for (size_t i = 0; i < streamed.segments.size(); ++i)
        EXPECT_EQ(stack_text(streamed, streamed.segments[i].blocks.at(0).stack),
                  stack_text(whole, whole.segments[i].blocks.at(0).stack));
    const SnapshotTimeline t = analyze_snapshot(streamed);
    EXPECT_EQ(t.devices.at(0).peak_allocated, meta["peak_allocated"].get<int64_t>());
    EXPECT_EQ(t.devices.at(0).final_allocated, meta["final_allocated"].get<int64_t>());
    EXPECT_GT(streamed.device_traces[0].back().time_us, streamed.device_traces[0].front().time_us);
}

std::string written(const std::string& name, std::string_view bytes) {
    const std::string path = testing::TempDir() + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

TEST(MemorySnapshot, ALayoutStreamingDoesNotExpectIsReadWhole) {
    // t = [{'action': 'alloc', 'addr': 16, 'size': 32, 'stream': 5}]; {'device_traces': [t, t]}: the
    // second trace is the first list again (BINGET), which streaming no longer holds.
    const std::string twice(
        "\x80\x04\x95O\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\rdevice_traces\x94]\x94(]\x94}\x94(\x8c\x06"
        "action\x94\x8c\x05"
        "alloc\x94\x8c\x04"
        "addr\x94K\x10\x8c\x04size\x94K \x8c\x06stream\x94K\x05uah\x03"
        "es.",
        90);
    const MemorySnapshot a = read_memory_snapshot(written("twice.pickle", twice));
    ASSERT_EQ(a.device_traces.size(), 2u);
    EXPECT_EQ(events_text(a), "|alloc 16 32 5 -1 [] |alloc 16 32 5 -1 [] ");
    // e = {'action': 'oom', 'device_free': 7, 'size': 32}; {'device_traces': [[e, e]]}: one event dict twice.
    const std::string same_event(
        "\x80\x04\x95I\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\rdevice_traces\x94]\x94]\x94(}\x94(\x8c\x06"
        "action\x94\x8c\x03"
        "oom\x94\x8c\x0b"
        "device_free\x94K\x07\x8c\x04size\x94K uh\x04"
        "eas.",
        84);
    const MemorySnapshot b = read_memory_snapshot(written("same_event.pickle", same_event));
    ASSERT_EQ(b.device_traces.at(0).size(), 2u);
    EXPECT_EQ(b.device_traces[0][1].device_free(), 7);
    EXPECT_EQ(b.device_traces[0][1].action, SnapshotAction::Oom);
    EXPECT_EQ(sizeof(SnapshotEvent), 32u);
}

TEST(MemorySnapshot, AFramesListFilledAtOnceIsReadAtOnceAndFallsBackWhenFilledAgain) {
    // f, g: frame dicts. Two batches of trace events (two APPENDS): the first event's frames [f, g] are
    // read with it; the second event's list is filled by one APPENDS of those frames (BINGET), so
    // the machine has it read at once, before its event (io/pickle_machine.cpp, made_at_once).
    const std::string once(
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
        "eueas.",
        174);
    const MemorySnapshot a = read_memory_snapshot(written("frames_once.pickle", once));
    EXPECT_TRUE(a.streamed);
    ASSERT_EQ(a.device_traces.at(0).size(), 2u);
    EXPECT_EQ(a.stacks.size(), 1u);  // the same frames: one stack
    EXPECT_EQ(a.device_traces[0][1].stack, a.device_traces[0][0].stack);
    EXPECT_EQ(events_text(a),
              events_text(read_memory_snapshot(testing::TempDir() + "frames_once.pickle", SnapshotReading::Whole)));
    // The same list then filled again by a second APPENDS ([f, g], then [f]), which Python's pickler
    // does not write below 1,000 items: the whole reading, with all three frames.
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
    const MemorySnapshot b = read_memory_snapshot(written("frames_again.pickle", again));
    EXPECT_FALSE(b.streamed);
    ASSERT_EQ(b.device_traces.at(0).size(), 2u);
    EXPECT_EQ(stack_text(b, b.device_traces[0][1].stack), "f (a.py:1);g (b.py:2);f (a.py:1);");
}

// Real snapshots and our fixtures: the events the machine made from a scan of their bytes
// (io/pickle_event_scan.h) equal those the opcode loop makes with every value held (the whole reading).
// Real CUDA snapshots, from torch's _dump_snapshot (Python's pickler) and from our LibTorch build
// (LibTorch's, which memoizes a dict after its SETITEMS), are nearly all scanned: only events that
// bring new frame dicts, or whose frames are not read yet, run opcode by opcode.
TEST(MemorySnapshot, ScannedEventsEqualTheOpcodeLoops) {
    for (const char* name : {"gpu/manual.pytorch.pickle", "gpu/sdpa.pytorch.pickle", "gpu/manual.attnwb.pickle",
                             "gpu/sdpa.attnwb.pickle", "linked/manual.pickle", "torch_layout.p4.pickle.gz",
                             "transformer_manual.pickle.gz", "manual.p2.pickle", "handmade.p5.pickle"}) {
        SCOPED_TRACE(name);
        const MemorySnapshot streamed = read_memory_snapshot(snapshot_fixture(name));
        const MemorySnapshot whole = read_memory_snapshot(snapshot_fixture(name), SnapshotReading::Whole);
        EXPECT_TRUE(streamed.streamed);
        EXPECT_GT(streamed.events_scanned, 0);
        EXPECT_EQ(whole.events_scanned, 0);  // no streaming, no scan
        EXPECT_EQ(events_text(streamed),
                  events_text(whole));  // stacks and frames by their text: numbered as first read
        EXPECT_EQ(streamed.stacks.size(), whole.stacks.size());
        EXPECT_EQ(streamed.frames.size(), whole.frames.size());
        if (std::string(name).rfind("gpu/", 0) == 0) {
            EXPECT_GT(streamed.events_scanned, streamed.event_count() * 4 / 5);
        }
    }
}

// A snapshot made from a CPU profile (torch's _profile_to_snapshot: "category" on its allocs, one
// untyped segment per device) names its last device the host's memory; the allocator's own, CUDA.
TEST(MemorySnapshot, AProfilesHostMemoryIsNamedCpu) {
    for (const char* name : {"manual.p4.pickle", "sdpa.p2.pickle", "transformer_manual.pickle.gz"}) {
        const MemorySnapshot s = read_memory_snapshot(snapshot_fixture(name));
        EXPECT_TRUE(s.from_profile) << name;
        EXPECT_EQ(s.device_name(int(s.device_traces.size()) - 1), "cpu") << name;
    }
    for (const char* name : {"gpu/manual.pytorch.pickle", "gpu/sdpa.attnwb.pickle", "handmade.p4.pickle"}) {
        const MemorySnapshot s = read_memory_snapshot(snapshot_fixture(name));
        EXPECT_FALSE(s.from_profile) << name;
        EXPECT_EQ(s.device_name(0), "cuda:0") << name;
    }
}

// Opcodes written by hand for the tests below (protocol 4), with the memo slots MEMOIZE gives.
class PickleWriter {
public:
    PickleWriter& op(char c) {
        s_ += c;
        return *this;
    }
    PickleWriter& memoize(uint32_t* slot = nullptr) {
        if (slot) *slot = next_;
        ++next_;
        return op('\x94');
    }
    PickleWriter& str(std::string_view t, uint32_t* slot = nullptr) {
        op('\x8c').op(char(t.size()));
        s_ += t;
        return memoize(slot);
    }
    PickleWriter& get(uint32_t slot) { return op('h').op(char(slot)); }  // BINGET (the slots here are under 256)
    PickleWriter& put(uint32_t slot) { return op('q').op(char(slot)); }  // BINPUT
    PickleWriter& int1(int v) { return op('K').op(char(v)); }
    PickleWriter& frame() {  // FRAME: groups what follows; nothing to the values
        s_ += std::string("\x95\x10\x00\x00\x00\x00\x00\x00\x00", 9);
        return *this;
    }
    std::string bytes() const { return s_ + "."; }

private:
    std::string s_ = std::string("\x80\x04", 2);
    uint32_t next_ = 0;
};

// The frames lists the scan has seen are reused by their bytes (RunCache), but never past a change of
// what those bytes refer to: a frame dict's memo slot given another dict (BINPUT) makes the same run
// name other frames.
TEST(MemorySnapshot, AScannedFramesRunIsReusedOnlyWhileItsMemoSlotsHoldTheSameFrames) {
    PickleWriter w;
    uint32_t root, key, traces, trace, action, alloc, addr, size, frames, filename, line, name, a, list;
    w.op('}').memoize(&root).str("device_traces", &key).op(']').memoize(&traces).op(']').memoize(&trace);
    // Batch 1: an event with its keys and its frame dict f (a.py:1) written out: run opcode by opcode.
    w.op('(')
        .op('}')
        .memoize()
        .op('(')
        .str("action", &action)
        .str("alloc", &alloc)
        .str("addr", &addr)
        .int1(16)
        .str("size", &size)
        .int1(32);
    w.str("frames", &frames)
        .op(']')
        .memoize()
        .op('(')
        .op('}')
        .memoize(&a)
        .op('(')
        .str("filename", &filename)
        .str("a.py")
        .str("line", &line)
        .int1(1);
    w.str("name", &name).str("f").op('u').op('e').op('u').op('e');
    const auto event = [&](bool framed) {  // keys and frames by memo reference: scanned
        w.op('}').memoize().op('(').get(action).get(alloc).get(addr);
        if (framed) w.frame();
        w.int1(16).get(size).int1(32).get(frames).op(']').memoize(&list).op('(');
        if (framed) w.frame();
        w.get(a).op('e').op('u');
    };
    // Batch 2: [f] three times (the run seen first, then with FRAMEs in it, then from the cache).
    w.op('(');
    event(false);
    event(true);
    event(false);
    // A dict g (b.py:2) put in f's memo slot, and dropped: the run [slot a] now names g.
    w.op('}').memoize().op('(').get(filename).str("b.py").get(line).int1(2).get(name).str("g").op('u').put(a).op('0');
    event(false);
    w.op('e');
    w.op('(');
    event(false);  // Batch 3: g made by now
    w.op('e').op('a').op('s');
    const std::string path = written("run_cache.pickle", w.bytes());
    const MemorySnapshot streamed = read_memory_snapshot(path);
    const MemorySnapshot whole = read_memory_snapshot(path, SnapshotReading::Whole);
    EXPECT_TRUE(streamed.streamed);
    EXPECT_EQ(streamed.events_scanned, 6);  // all but the first event, and g's dict
    ASSERT_EQ(streamed.device_traces.at(0).size(), 6u);
    std::string stacks;
    for (const SnapshotEvent& e : streamed.device_traces[0]) stacks += stack_text(streamed, e.stack) + "|";
    EXPECT_EQ(stacks, "f (a.py:1);|f (a.py:1);|f (a.py:1);|f (a.py:1);|g (b.py:2);|g (b.py:2);|");
    EXPECT_EQ(events_text(streamed), events_text(whole));
}

// A big snapshot's reading tells how far it is, in MiB of the file, and stops when asked (Cancelled).
TEST(MemorySnapshot, AReadingReportsItsProgressAndStopsWhenAsked) {
    PickleWriter w;
    uint32_t action, alloc, addr, size;
    w.op('}').memoize().str("device_traces").op(']').memoize().op(']').memoize();
    w.op('(')
        .op('}')
        .memoize()
        .op('(')
        .str("action", &action)
        .str("alloc", &alloc)
        .str("addr", &addr)
        .int1(16)
        .str("size", &size)
        .int1(32);
    w.op('u').op('e');
    for (int batch = 0; batch < 1200; ++batch) {  // 1,200 batches of 1,000 events of 15 bytes: 18 MB, over 16 MiB
        w.op('(');
        for (int i = 0; i < 1000; ++i)
            w.op('}').op('(').get(action).get(alloc).get(addr).int1(16).get(size).int1(32).op('u');
        w.op('e');
    }
    w.op('a').op('s');
    const std::string path = written("progress.pickle", w.bytes());
    struct Recorder : RunObserver {
        std::vector<std::pair<int, int>> seen;
        int cancel_after = -1;
        void on_progress(int done, int total, const std::string& what) override {
            seen.emplace_back(done, total);
            EXPECT_NE(what.find(" MiB"), std::string::npos) << what;
        }
        bool cancel_requested() const override { return cancel_after >= 0 && int(seen.size()) > cancel_after; }
    };
    Recorder all;
    const MemorySnapshot s = read_memory_snapshot(path, SnapshotReading::Streamed, &all);
    EXPECT_EQ(s.event_count(), 1200001);
    ASSERT_GE(all.seen.size(), 2u);
    EXPECT_EQ(all.seen.back().first, all.seen.back().second);  // to the end of the file
    EXPECT_GE(all.seen.back().second, 16);
    for (size_t i = 1; i < all.seen.size(); ++i) EXPECT_GE(all.seen[i].first, all.seen[i - 1].first);
    Recorder stop;
    stop.cancel_after = 1;
    EXPECT_THROW(read_memory_snapshot(path, SnapshotReading::Streamed, &stop), Cancelled);
    EXPECT_LT(stop.seen.size(), all.seen.size());
}

// scripts/bench_snapshot.py --reader: the reader alone on AWB_SNAPSHOT_BENCH (skipped without it).
TEST(MemorySnapshot, ReadOnlyBench) {
    const char* path = std::getenv("AWB_SNAPSHOT_BENCH");
    if (!path) GTEST_SKIP() << "AWB_SNAPSHOT_BENCH not set";
    const MemorySnapshot snap = read_memory_snapshot(path);
    EXPECT_FALSE(snap.device_traces.empty());
    std::printf("%lld events (%lld read straight from the bytes), %zu stacks, %s\n", (long long)snap.event_count(),
                (long long)snap.events_scanned, snap.stacks.size(),
                snap.streamed ? "streamed" : "read whole (no streaming)");
}

}  // namespace
}  // namespace awb
