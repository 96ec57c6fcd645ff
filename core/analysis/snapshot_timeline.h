// A memory snapshot replayed per device: the allocated and reserved bytes after each event of the
// trace, the peak with the blocks alive at it (largest first) and the bytes under each stack frame
// there, and the blocks that were alive before recording began. Those are reconstructed, as
// memory_viz does, from the snapshot's final state walked back through the trace: a block active at
// the end, or freed in the trace, whose alloc the trace does not hold was there from the start.
//
// A frame filter counts only the blocks whose stack passes it (everything allocated under
// `attention`); the views draw the largest blocks as bands stacked in the order they were allocated
// (memory_viz's picture: a free lets the blocks above it down), the rest as one area above them.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "analysis/range_max.h"
#include "model/handoff.h"
#include "model/memory_snapshot.h"

namespace awb {

struct LiveBlock {
    int64_t addr = 0;
    int64_t size = 0;
    StackId stack = kNoStack;
    int64_t alloc_event = -1;  // index of its alloc in the device's trace; -1: alive before recording
};

struct FrameBytes {
    int32_t frame = 0;  // index into MemorySnapshot::frames
    int64_t bytes = 0;  // of the blocks at the peak with this frame anywhere in their stack
    int64_t blocks = 0;
};

// Positions on the event axis ("x") index DeviceMemoryTimeline::allocated: 0 before the first event,
// i + 1 after event i.
using StepPoint = std::pair<int64_t, int64_t>;  // from x on, a value in bytes

// One block drawn: alive over [begin, end) of the event axis, its bottom edge moving down when a
// block under it is freed.
struct BlockBand {
    LiveBlock block;
    int64_t begin = 0;
    int64_t end = 0;                     // allocated.size() when alive at the end
    std::vector<StepPoint> bottom;       // bytes under it, from each x on; the first at begin
    int64_t bottom_at(int64_t x) const;  // x in [begin, end)
};

struct DeviceMemoryTimeline {
    int device = 0;
    int64_t events = 0;                  // the device's trace events
    std::vector<int64_t> allocated;      // [0]: before the first event, [i + 1]: after event i (the blocks counted)
    std::vector<int64_t> reserved;       // the same for the segments' bytes
    std::vector<int64_t> allocated_all;  // with a frame filter: every block's bytes, as allocated; else empty
    RangeMax allocated_max, reserved_max, allocated_all_max;  // the curves' largest over a range (a chart's column)
    int64_t peak_allocated = 0;
    int64_t peak_index = 0;  // first index of allocated[] at the peak
    int64_t peak_reserved = 0;
    std::vector<LiveBlock> at_peak;           // largest first (then by address)
    std::vector<FrameBytes> frames_at_peak;   // most bytes first
    std::vector<LiveBlock> before_recording;  // largest first
    int64_t blocks = 0;                       // blocks counted: allocs in the trace and those alive before it
    int64_t unmatched_frees = 0;              // free_completed of an address not alive (a trace that wrapped)
    int64_t ooms = 0;
    // The final state's bytes (the segments of this device): allocated = active blocks.
    int64_t final_allocated = 0;
    int64_t final_reserved = 0;
    // Whether the snapshot says what the allocator reserved: a segment with its type, or segment events.
    // A CPU profile's conversion (torch.cuda._memory_viz._profile_to_snapshot) has neither: its one
    // segment spans the addresses the tensors had (torch 2.11 writes the highest address as its
    // total_size), so reserved, peak_reserved and final_reserved are no allocator's and are not shown.
    bool reserved_recorded = true;
    // SnapshotOptions::max_bands largest blocks as bands, in the order they were stacked; banded: the
    // bands' bytes from each x on (allocated[x] minus that is the blocks not drawn).
    std::vector<BlockBand> bands;
    std::vector<StepPoint> banded;
};

struct SnapshotTimeline {
    std::vector<DeviceMemoryTimeline> devices;  // those with a trace or segments, by device index
};

struct SnapshotOptions {
    // By StackId: the blocks counted (stacks_matching; a block without a stack is not); none: every block.
    std::optional<std::vector<bool>> keep;
    size_t max_bands = 0;  // blocks drawn as bands, the largest; 0: none
};

SnapshotTimeline analyze_snapshot(const MemorySnapshot& snapshot, const SnapshotOptions& options = {});

// A snapshot replayed while it is read: the reader hands it each device's trace events as they come
// (read_memory_snapshot's sink), a thread replays them forward beside the reading, and finish() adds
// what needs the whole snapshot (the blocks alive before recording, the bytes reserved at the start,
// the peak, the bands). finish() equals analyze_snapshot on the same snapshot, which it runs instead
// for a frame filter (other blocks counted) or a device whose events it was not handed.
class StreamedReplay final : public SnapshotEventSink {
public:
    StreamedReplay();
    ~StreamedReplay() override;
    void take(int device, const SnapshotEvent* first, size_t n) override;
    void wait() noexcept override;
    void restart() override;
    // Once the reading is done. Rethrows what stopped the replay (out of memory).
    SnapshotTimeline finish(const MemorySnapshot& snapshot, const SnapshotOptions& options = {});
    // Of the last finish(): the events replayed beside the reading (the others were replayed after it).
    int64_t replayed_beside() const { return replayed_beside_; }

private:
    struct Device;
    struct Batch {
        int device = 0;
        const SnapshotEvent* first = nullptr;
        size_t n = 0;
    };
    void consume();
    std::vector<std::unique_ptr<Device>> devices_;  // by device index; null: no events yet
    std::unique_ptr<Handoff<Batch>> handoff_;       // while the thread runs
    std::thread thread_;
    std::exception_ptr failed_;
    int64_t replayed_beside_ = 0;
};

// The blocks counted alive at position X of a device's event axis (0: before its first event),
// largest first: its trace replayed up to there.
std::vector<LiveBlock> blocks_alive_at(const MemorySnapshot& snapshot, int device, int64_t x,
                                       const SnapshotOptions& options = {});

// The blocks' bytes together (those at the peak, those alive before recording).
int64_t bytes_of(const std::vector<LiveBlock>& blocks);

}  // namespace awb
