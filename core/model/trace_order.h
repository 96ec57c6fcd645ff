// Putting a trace's events in time order and finding their nesting: the step of Trace::build that
// costs the most on a big imported trace (a million events and more), done in O(n log runs) on
// compact keys (sorted on two cores from 65,536 events on), moving each event once.
#pragma once

#include <cstdint>
#include <vector>

#include "model/trace.h"

namespace awb {

// The earliest start and the latest end of some events (INT64_MAX, INT64_MIN for none).
struct TimeExtent {
    int64_t begin_ns = INT64_MAX;
    int64_t end_ns = INT64_MIN;
};

// Sorts events by (start ascending, end descending), equal intervals in the order given (what a
// stable sort gives), and sets each event's parent and depth: PyTorch's _populate_cpu_children, per
// (rank, thread) the innermost synchronous CPU event whose interval holds it (-1 and 0 for the rest).
// Returns the events' extent, found on the way.
TimeExtent order_and_nest(std::vector<TraceEvent>& events);

// The events of several parts, each already in order_and_nest's order with its parents and depths (a
// rank's trace), as one list in that order: what order_and_nest gives on the parts' concatenation, found
// by merging them (O(n log parts), each event moved once) instead of sorting and nesting them again. A
// part's parents must stay its own: no event nests under another part's (each part a rank of its own).
// The parts are left empty. Returns the events' extent.
TimeExtent merge_ordered(std::vector<std::vector<TraceEvent>>& parts, std::vector<TraceEvent>& out);

}  // namespace awb
