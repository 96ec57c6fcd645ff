// A memory snapshot and its replay as plain text (attnwb inspect SNAPSHOT) and JSON: per device the
// peak with the blocks alive at it and their stacks, the bytes under each frame there, the blocks alive
// before recording began, the final state. Every figure carries its unit.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analysis/snapshot_timeline.h"

namespace awb {

// rows: blocks and frames listed per table (0: all). frame_filter: the text the timeline was filtered
// by (SnapshotOptions::keep from stacks_matching), said in the heading; empty: none.
std::string format_snapshot(const MemorySnapshot& snapshot, const SnapshotTimeline& timeline, int rows,
                            const std::string& frame_filter = {});
nlohmann::json snapshot_json(const MemorySnapshot& snapshot, const SnapshotTimeline& timeline,
                             const std::string& frame_filter = {});

// Reserved BYTES as text ("1.5 GiB"), or "not recorded" where the snapshot does not say what the
// allocator reserved (DeviceMemoryTimeline::reserved_recorded false: a CPU profile's conversion).
std::string reserved_text(bool recorded, int64_t bytes);
extern const char* const kReservedNotRecordedWhy;  // the reason, for a heading or a tooltip

// "manual (attn.py:34) <- step (train.py:40) <- ...", innermost first, without the machinery
// (is_machinery_frame); "(no stack recorded)".
std::string stack_text(const MemorySnapshot& snapshot, StackId stack, size_t max_frames = 4);

}  // namespace awb
