#include "analysis/snapshot_timeline.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace awb {

namespace {

using LiveMap = std::unordered_map<int64_t, LiveBlock>;  // by address

bool grows_reserved(SnapshotAction a) { return a == SnapshotAction::SegmentAlloc || a == SnapshotAction::SegmentMap; }
bool shrinks_reserved(SnapshotAction a) { return a == SnapshotAction::SegmentFree || a == SnapshotAction::SegmentUnmap; }

// The blocks alive when recording began: the final state walked back through the trace.
LiveMap alive_at_start(const std::vector<SnapshotSegment>& segments, int device, const std::vector<SnapshotEvent>& events) {
    LiveMap live;
    for (const SnapshotSegment& seg : segments)
        if (seg.device == device)
            for (const SnapshotBlock& b : seg.blocks)
                if (b.active()) live[b.address] = {b.address, b.size, b.stack, -1};
    for (auto e = events.rbegin(); e != events.rend(); ++e) {
        if (e->action == SnapshotAction::Alloc) live.erase(e->addr);
        else if (e->action == SnapshotAction::FreeCompleted) live[e->addr] = {e->addr, e->size, e->stack, -1};
    }
    return live;
}

int64_t bytes_of(const LiveMap& live) {
    int64_t sum = 0;
    for (const auto& [addr, b] : live) sum += b.size;
    return sum;
}

std::vector<LiveBlock> largest_first(const LiveMap& live) {
    std::vector<LiveBlock> blocks;
    blocks.reserve(live.size());
    for (const auto& [addr, b] : live) blocks.push_back(b);
    std::sort(blocks.begin(), blocks.end(), [](const LiveBlock& a, const LiveBlock& b) { return a.size != b.size ? a.size > b.size : a.addr < b.addr; });
    return blocks;
}

// Event i applied to the live blocks; false for a free of an address not alive.
bool apply(const SnapshotEvent& e, int64_t i, LiveMap& live, int64_t& allocated) {
    if (e.action == SnapshotAction::Alloc) {
        auto [it, added] = live.try_emplace(e.addr, LiveBlock{e.addr, e.size, e.stack, i});
        if (!added) {  // an address allocated twice without a free between: the trace lost the free
            allocated -= it->second.size;
            it->second = {e.addr, e.size, e.stack, i};
        }
        allocated += e.size;
    } else if (e.action == SnapshotAction::FreeCompleted) {
        const auto it = live.find(e.addr);
        if (it == live.end()) return false;
        allocated -= it->second.size;
        live.erase(it);
    }
    return true;
}

// Bytes under each frame: per distinct stack first (blocks share stacks), then its frames, each once.
std::vector<FrameBytes> frames_of(const MemorySnapshot& snapshot, const std::vector<LiveBlock>& blocks) {
    std::map<StackId, std::pair<int64_t, int64_t>> by_stack;  // bytes, blocks
    for (const LiveBlock& b : blocks)
        if (b.stack != kNoStack) {
            auto& [bytes, count] = by_stack[b.stack];
            bytes += b.size;
            ++count;
        }
    std::map<int32_t, FrameBytes> by_frame;
    std::vector<int32_t> seen;
    for (const auto& [stack, totals] : by_stack) {
        seen.assign(snapshot.stacks[size_t(stack)].begin(), snapshot.stacks[size_t(stack)].end());
        std::sort(seen.begin(), seen.end());
        seen.erase(std::unique(seen.begin(), seen.end()), seen.end());  // a recursive frame counts once
        for (int32_t f : seen) {
            FrameBytes& fb = by_frame[f];
            fb.frame = f;
            fb.bytes += totals.first;
            fb.blocks += totals.second;
        }
    }
    std::vector<FrameBytes> out;
    out.reserve(by_frame.size());
    for (const auto& [f, fb] : by_frame) out.push_back(fb);
    std::stable_sort(out.begin(), out.end(), [](const FrameBytes& a, const FrameBytes& b) { return a.bytes > b.bytes; });
    return out;
}

DeviceMemoryTimeline replay_device(const MemorySnapshot& snapshot, int device) {
    static const std::vector<SnapshotEvent> kNone;
    const auto& events = size_t(device) < snapshot.device_traces.size() ? snapshot.device_traces[size_t(device)] : kNone;
    DeviceMemoryTimeline t;
    t.device = device;
    t.events = int64_t(events.size());
    for (const SnapshotSegment& seg : snapshot.segments)
        if (seg.device == device) {
            t.final_reserved += seg.total_size;
            for (const SnapshotBlock& b : seg.blocks)
                if (b.active()) t.final_allocated += b.size;
        }
    const LiveMap start = alive_at_start(snapshot.segments, device, events);
    t.before_recording = largest_first(start);
    // Reserved at the start: the final segments' bytes walked back through the segment events.
    int64_t reserved = t.final_reserved;
    for (const SnapshotEvent& e : events) reserved += shrinks_reserved(e.action) ? e.size : grows_reserved(e.action) ? -e.size : 0;

    LiveMap live = start;
    int64_t allocated = bytes_of(live);
    t.allocated.reserve(events.size() + 1);
    t.reserved.reserve(events.size() + 1);
    t.allocated.push_back(allocated);
    t.reserved.push_back(reserved);
    for (size_t i = 0; i < events.size(); ++i) {
        const SnapshotEvent& e = events[i];
        if (!apply(e, int64_t(i), live, allocated)) ++t.unmatched_frees;
        reserved += grows_reserved(e.action) ? e.size : shrinks_reserved(e.action) ? -e.size : 0;
        if (e.action == SnapshotAction::Oom) ++t.ooms;
        t.allocated.push_back(allocated);
        t.reserved.push_back(reserved);
    }
    const auto peak = std::max_element(t.allocated.begin(), t.allocated.end());
    t.peak_allocated = *peak;
    t.peak_index = peak - t.allocated.begin();
    t.peak_reserved = *std::max_element(t.reserved.begin(), t.reserved.end());
    // The blocks at the peak: the replay again, up to it.
    live = start;
    allocated = bytes_of(live);
    for (int64_t i = 0; i < t.peak_index; ++i) apply(events[size_t(i)], i, live, allocated);
    t.at_peak = largest_first(live);
    t.frames_at_peak = frames_of(snapshot, t.at_peak);
    return t;
}

}  // namespace

SnapshotTimeline analyze_snapshot(const MemorySnapshot& snapshot) {
    int devices = int(snapshot.device_traces.size());
    for (const SnapshotSegment& seg : snapshot.segments) devices = std::max(devices, seg.device + 1);
    SnapshotTimeline timeline;
    for (int d = 0; d < devices; ++d) {
        const bool has_trace = size_t(d) < snapshot.device_traces.size() && !snapshot.device_traces[size_t(d)].empty();
        const bool has_segments = std::any_of(snapshot.segments.begin(), snapshot.segments.end(), [d](const SnapshotSegment& s) { return s.device == d; });
        if (has_trace || has_segments) timeline.devices.push_back(replay_device(snapshot, d));
    }
    return timeline;
}

}  // namespace awb
