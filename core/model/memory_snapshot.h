// A CUDA caching allocator's memory snapshot (torch.cuda.memory._snapshot(), pickled by
// _dump_snapshot): the segments it holds with their blocks at the moment of the snapshot, and the
// trace of what it did while history was recorded, per device. Stacks are kept once each and
// referred to by index (a snapshot repeats the same stack for thousands of blocks).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace awb {

struct SnapshotFrame {
    std::string filename;
    int64_t line = 0;
    std::string name;
    bool operator==(const SnapshotFrame&) const = default;
};

using StackId = int32_t;  // index into MemorySnapshot::stacks; kNoStack: none recorded
inline constexpr StackId kNoStack = -1;

enum class BlockState : uint8_t { ActiveAllocated, ActiveAwaitingFree, Inactive };
const char* block_state_name(BlockState state);

struct SnapshotBlock {
    int64_t address = 0;  // given, or the segment's address plus the sizes of the blocks before it
    int64_t size = 0;
    int64_t requested_size = 0;
    BlockState state = BlockState::Inactive;
    StackId stack = kNoStack;
    bool active() const { return state != BlockState::Inactive; }
};

struct SnapshotSegment {
    int device = 0;
    int64_t address = 0;
    int64_t total_size = 0;
    int64_t stream = 0;
    std::string segment_type;  // "large", "small", or empty when not recorded
    std::vector<SnapshotBlock> blocks;
};

enum class SnapshotAction : uint8_t {
    Alloc,
    FreeRequested,
    FreeCompleted,
    SegmentAlloc,
    SegmentFree,
    SegmentMap,
    SegmentUnmap,
    Oom,
    Snapshot
};
const char* snapshot_action_name(SnapshotAction action);

// 32 bytes: a trace holds millions. What is rare or repeats lives outside it: the stream as an index
// into MemorySnapshot::streams, an oom's device_free in addr (where torch's own TraceEntry keeps it: an
// oom has no address).
struct SnapshotEvent {
    int64_t addr = 0;  // the block's or segment's address; oom: device_free()
    int64_t size = 0;
    int64_t time_us = -1;  // -1: not recorded
    StackId stack = kNoStack;
    SnapshotAction action = SnapshotAction::Alloc;
    uint16_t stream_id = 0;  // MemorySnapshot::streams[stream_id] is its stream (stream_of)
    int64_t device_free() const {
        return action == SnapshotAction::Oom ? addr : -1;
    }  // oom only: what CUDA still reported free
};
static_assert(sizeof(SnapshotEvent) == 32, "a trace holds millions of events");

struct MemorySnapshot {
    std::vector<SnapshotSegment> segments;
    std::vector<std::vector<SnapshotEvent>> device_traces;  // [device][event in order]
    std::vector<SnapshotFrame> frames;
    std::vector<std::vector<int32_t>> stacks;  // frame indices, innermost call first (as recorded)
    std::vector<int64_t> streams{0};  // the distinct streams of the trace events, by stream_id (0: none recorded)
    std::vector<std::pair<std::string, std::string>> allocator_settings;  // name, value as text
    std::vector<std::pair<std::string, int64_t>> unknown_actions;         // trace actions not read, and how many
    int pickle_protocol = 0;
    bool streamed = false;  // read as it streamed (io/pickle_machine.h); false: every value held first
    int64_t events_scanned =
        0;  // trace events made from a scan of their bytes (io/pickle_event_scan.h), not run opcode by opcode
    // Made from a CPU profile by torch.cuda._memory_viz._profile_to_snapshot (its alloc events carry a
    // "category", its segments are one per device and untyped): its last device is the host's memory
    // (torch gives the CPU the index torch.cuda.device_count()), the others are CUDA devices.
    bool from_profile = false;
    int64_t stream_of(const SnapshotEvent& e) const { return streams[e.stream_id]; }
    int64_t event_count() const;                // the trace events of every device
    std::string device_name(int device) const;  // "cuda:1", or "cpu" for a profile's host memory
};

// What a reader hands a snapshot's trace events to while it reads them (io/memory_snapshot_read.h), so
// that their replay (analysis/snapshot_timeline.h: StreamedReplay) runs beside the reading.
class SnapshotEventSink {
public:
    virtual ~SnapshotEventSink() = default;
    // DEVICE's next N events, as they will be in MemorySnapshot::device_traces[device]. They stay valid
    // until wait() returns.
    virtual void take(int device, const SnapshotEvent* first, size_t n) = 0;
    // Returns once every event handed over is done with: the reader moves or frees them after.
    virtual void wait() noexcept = 0;
    // The reading starts over (a streamed reading falling back to a whole one): every event handed so
    // far is forgotten.
    virtual void restart() = 0;
};

}  // namespace awb
