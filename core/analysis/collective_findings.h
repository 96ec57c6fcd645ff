// The advisor's rules for runs of several ranks (advisor.h), from the run's collectives and overlap:
//   - straggler: one rank's late arrivals cost each other rank at least 2% of a step in waiting (on average);
//   - exposed-communication: on some rank at least 10% of a step is communication nothing runs beside;
//   - latency-bound: at least 20 collectives of under 1 MiB a step on a rank, taking at least 5% of it;
//   - low-bandwidth: collectives of 32 MiB or more within one node (a group of at most 8 ranks in one
//     block of 8) whose median bus bandwidth is under a quarter of the GPU's NVLink (device_roofs.h).
// Each names its evidence with units and one action; weights are shares of a step. Pure C++.
#pragma once

#include <vector>

#include "analysis/advisor.h"
#include "analysis/run_analysis.h"

namespace awb {

struct CollectiveThresholds {
    double straggler_share = 0.02;            // each other rank's wait for it per step over the step
    double exposed_share = 0.10;              // exposed communication per step over the step
    int64_t small_bytes = 1 << 20;            // a collective under this many bytes is latency-bound...
    double small_per_step = 20;               // ...when at least this many run per step...
    double small_share = 0.05;                // ...taking at least this share of it
    int64_t large_bytes = int64_t(32) << 20;  // a collective this large is bandwidth-bound...
    double link_share = 0.25;                 // ...and far under the link below this share of its bandwidth
};

// device: the GPU the run says it ran on ("NVIDIA H100 80GB HBM3"), for the link's bandwidth; "" when unknown.
void collective_findings(const Trace& trace, const RunAnalysis& analysis, std::vector<Finding>& out,
                         const std::string& device = "", const CollectiveThresholds& t = {});

}  // namespace awb
