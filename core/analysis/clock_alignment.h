// The ranks of a run recorded on hosts whose clocks differ, aligned on their collectives: the end of a
// collective is the same moment on every rank of its group (none can finish before the last arrives,
// and all finish together), so when matched collectives end on a rank before their last rank arrived
// (collective_report's clock_disagreements), each rank's clock is shifted by the median difference
// between the lowest rank's ends and its own over the collectives they share. Send/recv and broadcast,
// which need not end together, are left out of the estimate. Pure C++.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "analysis/collectives.h"
#include "model/trace.h"

namespace awb {

// Per rank, what to add to its times to bring it onto the lowest rank's clock (ranks without a shared
// collective, and the lowest rank itself, get none).
std::map<int32_t, int64_t> rank_clock_offsets(const CollectiveReport& report);

struct ClockAlignment {
    std::map<int32_t, int64_t> offsets_ns;  // applied, per rank; empty when the clocks agree
    std::string note;                       // what was found and applied, for ImportNotes::run; "" when nothing
};

// When the trace's ranks' clocks disagree, the trace with each rank's events and memory shifted by
// its offset (TraceMeta::clock_offsets_ns says by how much); the trace as it is otherwise. Looks only
// at the communication kernels' names and the CPU side, so it costs a pass over the events.
ClockAlignment align_rank_clocks(Trace& trace);

}  // namespace awb
