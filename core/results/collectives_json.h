// JSON for the collectives across ranks and the communication's overlap (analysis/collectives.h,
// analysis/comm_overlap.h), as attnwb inspect --collectives --json writes them beside gpu_breakdown:
// calls[] (matched across ranks, each with ranks[] of start, duration and wait), per_rank[] (every
// call on every rank), attention[] (attention calls and the communication they issue), straggler, ranks[],
// overlap[] (step -1: the whole trace), overlap_hta[], notes;
// and the ranks compared in one step (analysis/rank_comparison.h).
// Times in ns on the trace's clock (like the file's ts), bandwidths in GB/s (1e9 bytes per second).
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/collectives.h"
#include "analysis/comm_overlap.h"
#include "analysis/rank_comparison.h"

namespace awb {

nlohmann::json collectives_json(const CollectiveReport& collectives, const OverlapReport& overlap);

// attnwb inspect --ranks --json: step, steps, ranks[] {rank, step_ns, computation_ns, communication_ns,
// exposed_ns, idle_ns, wait_ns, caused_wait_ns}, slowest, fastest, operators[] (slowest against fastest).
nlohmann::json rank_comparison_json(const RankComparison& c);

}  // namespace awb
