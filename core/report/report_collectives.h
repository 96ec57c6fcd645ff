// The HTML report's section on a run of several ranks: its collectives matched across ranks (the most
// skewed first), the ranks' waits with the straggler, and the communication hidden or exposed per rank
// and step, with HolisticTraceAnalysis's figure beside ours.
#pragma once

#include <string>

#include "analysis/collectives.h"
#include "analysis/comm_overlap.h"

namespace awb {

// "" when the run has no collectives.
std::string collectives_section(const CollectiveReport& collectives, const OverlapReport& overlap, size_t rows);

}  // namespace awb
