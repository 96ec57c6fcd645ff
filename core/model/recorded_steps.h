// The recorded steps of a run (profiler on), wherever steps are used (the comparison and its verdict,
// the report, attnwb diff and profile, the checklist): a run's own records of its recorded steps, or,
// for an imported trace (or a run without records), the trace's CPU ProfilerStep#k spans (one per rank;
// under Python frames too, not inside another step), by k. median_recorded_step_ns (profile_result.h)
// is their median. Pure C++.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "model/profile_result.h"

namespace awb {

std::vector<StepRecord> recorded_steps(const ProfileResult& result);
// How many there are, at least 1: what "per step" figures divide by (one per rank and step).
int recorded_step_count(const ProfileResult& result);

// The trace's CPU ProfilerStep#k spans: positions in trace.events(), in trace order.
std::vector<size_t> step_span_events(const Trace& trace);

// Those spans by rank, each rank's in start order: which step holds a time (the GPU time breakdown, the
// collectives and the communication's overlap give a device event to the step that holds its launch).
class StepSpans {
public:
    struct Span {
        int64_t start_ns = 0, end_ns = 0;
        int step = -1;  // k of ProfilerStep#k
    };
    explicit StepSpans(const Trace& trace);
    // k of the rank's last step starting at or before t, if it holds t (its end included); -1 otherwise.
    int at(int32_t rank, int64_t t) const;
    const std::map<int32_t, std::vector<Span>>& by_rank() const { return spans_; }

private:
    std::map<int32_t, std::vector<Span>> spans_;
};

}  // namespace awb
