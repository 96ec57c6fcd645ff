// JSON for the collectives across ranks and the communication's overlap (analysis/collectives.h,
// analysis/comm_overlap.h), as attnwb inspect --collectives --json writes them beside gpu_breakdown:
// calls[] (matched across ranks, each with ranks[] of start, duration and wait), per_rank[] (every
// call on every rank), straggler, ranks[], overlap[] (step -1: the whole trace), overlap_hta[], notes.
// Times in ns on the trace's clock (like the file's ts), bandwidths in GB/s (1e9 bytes per second).
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/collectives.h"
#include "analysis/comm_overlap.h"

namespace awb {

nlohmann::json collectives_json(const CollectiveReport& collectives, const OverlapReport& overlap);

}  // namespace awb
