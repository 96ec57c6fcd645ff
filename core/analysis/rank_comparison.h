// The ranks of a run compared in one step: which rank is slow, and in what. Per rank: the step's
// length (its ProfilerStep#k on the CPU), the GPU's computation, communication, exposed communication
// and idle time in that step (gpu_breakdown), and its waits at the step's collectives (the wait it had,
// and the wait its lateness cost the others). Then the slowest rank against the fastest, operator by
// operator over the step (each rank's events from the step's start to the next step's), largest
// difference first. Pure C++.
#pragma once

#include <string>
#include <vector>

#include "analysis/op_diff.h"
#include "analysis/run_analysis.h"

namespace awb {

struct RankStep {
    int32_t rank = -1;
    int64_t step_ns = 0;         // the ProfilerStep's span; 0 when the rank has no such step
    int64_t computation_ns = 0;  // the rank's GPUs in the step, summed over its devices (0 on a CPU run)
    int64_t communication_ns = 0;
    int64_t exposed_ns = 0;
    int64_t idle_ns = 0;
    int64_t wait_ns = 0;         // its waits at the step's collectives
    int64_t caused_wait_ns = 0;  // the others' waits at those it arrived last at
    bool operator==(const RankStep&) const = default;
};

struct RankComparison {
    int step = -1;                // k of the ProfilerStep#k compared; -1 when the trace has none
    std::vector<int> steps;       // the steps every rank recorded
    std::vector<RankStep> ranks;  // ascending
    int32_t slowest = -1, fastest = -1;
    std::vector<OperatorDiffRow>
        operators;  // slowest (B) against fastest (A) over the step, by |self CPU| + |self device| delta
    bool operator==(const RankComparison&) const = default;
};

// step < 0: the step whose slowest rank is furthest ahead of its fastest (where the ranks differ most).
RankComparison compare_ranks(const Trace& trace, const RunAnalysis& analysis, int step = -1);

std::string format_rank_comparison(const RankComparison& c, size_t rows);

}  // namespace awb
