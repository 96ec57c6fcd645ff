// A memory snapshot laid against a profile of the same run: an allocation was made by the CPU operator
// of the trace running when it was, the shortest one running during its microsecond, on any thread
// (the snapshot records neither threads nor anything finer than a microsecond). Both clocks count from the epoch: a
// snapshot's time_us (torch records it
// since 2.1; a conversion of a CPU profile by _profile_to_snapshot has none) and a Kineto trace's
// baseTimeNanoseconds plus ts (Trace's start_ns once imported).
//
// What this gives: the operators' allocations as a table (the bytes each allocated, and how many of
// them were alive at its device's peak: which operator holds the peak), and the allocations made
// while an operator ran, its children's included (a selected operator's blocks, in the GUI and
// `attnwb inspect SNAPSHOT --trace TRACE --op NAME`).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "analysis/snapshot_timeline.h"
#include "model/memory_snapshot.h"
#include "model/trace.h"

namespace awb {

// OpAllocation::op of an allocation no operator made: when it was, against the operators' span.
inline constexpr int32_t kBetweenOperators = -1;  // inside the span, while none ran
inline constexpr int32_t kBeforeTrace = -2;       // before the first operator began (a run's setup, warm-up)
inline constexpr int32_t kAfterTrace = -3;        // after the last one ended
inline constexpr int32_t kNoTime = -4;            // the snapshot gives it no time_us

struct OpAllocation {
    int device = 0;
    int64_t event = 0;     // the alloc's index in snapshot.device_traces[device]
    int32_t op = kNoTime;  // the CPU operator that made it (index into trace.events()); < 0: none (kBeforeTrace...)
};

struct SnapshotOps {
    int64_t allocations = 0;              // allocs in the snapshot's traces
    int64_t timed = 0;                    // of them, with a time_us
    int64_t in_ops = 0;                   // of them, inside an operator of the trace
    int64_t first_us = -1, last_us = -1;  // the allocations' times, -1: none timed
    std::vector<OpAllocation> by_alloc;   // every alloc, device by device, in trace order
};

SnapshotOps attribute_allocations(const MemorySnapshot& snapshot, const Trace& trace);

// The span of the trace's CPU operators in microseconds since the epoch (the snapshot's clock): the
// window whose own peak the operators' table reads (SnapshotOptions::window). None: no operators.
std::optional<std::pair<int64_t, int64_t>> operators_span_us(const Trace& trace);

// Why nothing was attributed, for the user ("" when something was): no times in the snapshot, or the
// two do not overlap in time (another run's profile).
std::string attribution_problem(const SnapshotOps& ops, const Trace& trace);

struct OpMemoryRow {
    std::string name;         // operator_name: "(before the trace began)" and the like for the rest
    int64_t allocations = 0;  // made by it (not by an operator under it)
    int64_t bytes = 0;
    int64_t at_peak = 0;  // of them, alive at their device's peak
    int64_t bytes_at_peak = 0;
};

// The name of operator OP of the trace (OpAllocation::op); for none, when the allocation was:
// "(before the trace began)", "(between operators)", "(after the trace ended)", "(no time recorded)".
std::string_view operator_name(const Trace& trace, int32_t op);

// A device's peak as the operators' table reads it: the most allocated after an event timed inside
// the operators' span (a snapshot of a whole run holds its setup and warm-up, the profile only the
// steps after them), and the blocks alive there. The device's own peak when no event is inside.
struct TracePeak {
    int device = 0;
    int64_t index = 0;  // on the device's event axis (DeviceMemoryTimeline::allocated)
    int64_t allocated = 0;
    bool device_peak = true;            // it is the device's own peak
    std::vector<LiveBlock> blocks;      // largest first
    int64_t first_x = -1, last_x = -1;  // the positions after the first and the last event inside the span; -1: none
};
// OPTIONS: the timeline's (its frame filter).
std::vector<TracePeak> trace_peaks(const MemorySnapshot& snapshot, const SnapshotTimeline& timeline,
                                   const SnapshotOptions& options, const Trace& trace);

// By device: the alloc events (indices into its trace) of the blocks alive at the peak.
using AllocsAtPeak = std::map<int, std::unordered_set<int64_t>>;
AllocsAtPeak allocs_at_peak(const std::vector<TracePeak>& peaks);
bool alive_at_peak(const AllocsAtPeak& at_peak, const OpAllocation& a);

// One row per operator name that allocated, most bytes at the peak first, then most bytes.
std::vector<OpMemoryRow> op_memory_rows(const SnapshotOps& ops, const MemorySnapshot& snapshot, const Trace& trace,
                                        const AllocsAtPeak& at_peak);

// The bytes of some allocations, and of those of them alive at the peak.
struct AllocationBytes {
    int64_t bytes = 0;
    int64_t at_peak = 0;
};
AllocationBytes allocation_bytes(const MemorySnapshot& snapshot, const AllocsAtPeak& at_peak,
                                 const std::vector<OpAllocation>& allocations);

// The allocations made while an operator named NAME ran: by it or by an operator under it.
std::vector<OpAllocation> allocations_under(const SnapshotOps& ops, const Trace& trace, std::string_view name);

}  // namespace awb
