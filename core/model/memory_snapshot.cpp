#include "model/memory_snapshot.h"

namespace awb {

const char* block_state_name(BlockState state) {
    switch (state) {
        case BlockState::ActiveAllocated: return "active_allocated";
        case BlockState::ActiveAwaitingFree: return "active_awaiting_free";
        case BlockState::Inactive: return "inactive";
    }
    return "?";
}

const char* snapshot_action_name(SnapshotAction action) {
    switch (action) {
        case SnapshotAction::Alloc: return "alloc";
        case SnapshotAction::FreeRequested: return "free_requested";
        case SnapshotAction::FreeCompleted: return "free_completed";
        case SnapshotAction::SegmentAlloc: return "segment_alloc";
        case SnapshotAction::SegmentFree: return "segment_free";
        case SnapshotAction::SegmentMap: return "segment_map";
        case SnapshotAction::SegmentUnmap: return "segment_unmap";
        case SnapshotAction::Oom: return "oom";
        case SnapshotAction::Snapshot: return "snapshot";
    }
    return "?";
}

std::string MemorySnapshot::device_name(int device) const {
    return from_profile && device == int(device_traces.size()) - 1 ? "cpu" : "cuda:" + std::to_string(device);
}

int64_t MemorySnapshot::event_count() const {
    int64_t n = 0;
    for (const auto& trace : device_traces) n += int64_t(trace.size());
    return n;
}

}  // namespace awb
