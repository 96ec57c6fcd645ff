// The HTML report's section for a CUDA memory snapshot (attnwb report SNAPSHOT): per device its
// figures, memory over the trace's events as an inline SVG picture of the largest blocks stacked as
// memory_viz stacks them (each coloured by the frame that allocated it; hover one in the browser for
// its size and stack), the blocks alive at the peak with their stacks, the bytes under each frame
// there, and the segments' fragmentation.
#pragma once

#include <string>

#include "analysis/snapshot_timeline.h"

namespace awb {

// timeline: analyze_snapshot with SnapshotOptions::max_bands set (kReportBands: what the picture draws).
inline constexpr size_t kReportBands = 400;
std::string snapshot_section(const MemorySnapshot& snapshot, const SnapshotTimeline& timeline, const std::string& name,
                             size_t top_rows);

}  // namespace awb
