// Two memory snapshots compared (attnwb diff A.pickle B.pickle: manual against SDPA attention, say):
// per device, their peaks, and their blocks grouped by the frame that allocated them (its text, which
// stays the same across runs where addresses do not): bytes and blocks at each peak, and allocations
// over each trace; which groups appear in B, which disappear, largest change at the peak first.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/snapshot_timeline.h"

namespace awb {

struct SnapshotSideFigures {
    int64_t peak_bytes = 0;  // of its blocks alive at the device's peak
    int64_t peak_blocks = 0;
    int64_t allocs = 0;       // allocs in the trace
    int64_t alloc_bytes = 0;  // their bytes
};

struct SnapshotDiffRow {
    std::string frame;  // the allocating frame's text; "(no stack recorded)"
    SnapshotSideFigures a, b;
    bool in_a() const { return a.peak_blocks > 0 || a.allocs > 0; }
    bool in_b() const { return b.peak_blocks > 0 || b.allocs > 0; }
    int64_t peak_delta() const { return b.peak_bytes - a.peak_bytes; }
};

struct SnapshotDeviceDiff {
    int device = 0;
    int64_t peak_a = 0, peak_b = 0;  // allocated
    int64_t peak_reserved_a = 0, peak_reserved_b = 0;
    bool reserved_recorded_a = true, reserved_recorded_b = true;  // DeviceMemoryTimeline::reserved_recorded
    int64_t events_a = 0, events_b = 0;
    std::vector<SnapshotDiffRow> rows;  // largest |peak delta| first, then largest |alloc bytes delta|
};

struct SnapshotDiff {
    std::vector<SnapshotDeviceDiff> devices;  // the devices either side has
};

// "both", "gone in B" (only A allocated under the frame), "new in B".
const char* diff_status(const SnapshotDiffRow& row);

SnapshotDiff diff_snapshots(const MemorySnapshot& a, const SnapshotTimeline& ta, const MemorySnapshot& b,
                            const SnapshotTimeline& tb);

// rows: per device (0: all). Every figure with its unit.
std::string format_snapshot_diff(const SnapshotDiff& diff, const std::string& a_name, const std::string& b_name,
                                 size_t rows);
nlohmann::json snapshot_diff_json(const SnapshotDiff& diff);

}  // namespace awb
