// A memory snapshot replayed per device: the allocated and reserved bytes after each event of the
// trace, the peak with the blocks alive at it (largest first) and the bytes under each stack frame
// there, and the blocks that were alive before recording began. Those are reconstructed, as
// memory_viz does, from the snapshot's final state walked back through the trace: a block active at
// the end, or freed in the trace, whose alloc the trace does not hold was there from the start.
#pragma once

#include <cstdint>
#include <vector>

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

struct DeviceMemoryTimeline {
    int device = 0;
    int64_t events = 0;               // the device's trace events
    std::vector<int64_t> allocated;   // [0]: before the first event, [i + 1]: after event i
    std::vector<int64_t> reserved;    // the same for the segments' bytes
    int64_t peak_allocated = 0;
    int64_t peak_index = 0;           // first index of allocated[] at the peak
    int64_t peak_reserved = 0;
    std::vector<LiveBlock> at_peak;            // largest first (then by address)
    std::vector<FrameBytes> frames_at_peak;    // most bytes first
    std::vector<LiveBlock> before_recording;   // largest first
    int64_t unmatched_frees = 0;      // free_completed of an address not alive (a trace that wrapped)
    int64_t ooms = 0;
    // The final state's bytes (the segments of this device): allocated = active blocks.
    int64_t final_allocated = 0;
    int64_t final_reserved = 0;
};

struct SnapshotTimeline {
    std::vector<DeviceMemoryTimeline> devices;  // those with a trace or segments, by device index
};

SnapshotTimeline analyze_snapshot(const MemorySnapshot& snapshot);

}  // namespace awb
