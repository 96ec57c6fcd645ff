// A memory snapshot laid against a profile of the same run: an allocation was made by the CPU operator
// of the trace running when it was, the shortest one running during its microsecond, on any thread
// (the snapshot records neither threads nor anything finer than a microsecond). Both clocks count from the epoch: a snapshot's time_us (torch records it
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
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "analysis/snapshot_timeline.h"
#include "model/memory_snapshot.h"
#include "model/trace.h"

namespace awb {

struct OpAllocation {
    int device = 0;
    int64_t event = 0;  // the alloc's index in snapshot.device_traces[device]
    int32_t op = -1;    // the CPU operator that made it (index into trace.events()); -1: none running then
};

struct SnapshotOps {
    int64_t allocations = 0;  // allocs in the snapshot's traces
    int64_t timed = 0;        // of them, with a time_us
    int64_t in_ops = 0;       // of them, inside an operator of the trace
    int64_t first_us = -1, last_us = -1;  // the allocations' times, -1: none timed
    std::vector<OpAllocation> by_alloc;  // every alloc, device by device, in trace order
};

SnapshotOps attribute_allocations(const MemorySnapshot& snapshot, const Trace& trace);

// Why nothing was attributed, for the user ("" when something was): no times in the snapshot, or the
// two do not overlap in time (another run's profile).
std::string attribution_problem(const SnapshotOps& ops, const Trace& trace);

struct OpMemoryRow {
    std::string name;            // operator_name: "(outside every operator)" for the rest
    int64_t allocations = 0;     // made by it (not by an operator under it)
    int64_t bytes = 0;
    int64_t at_peak = 0;         // of them, alive at their device's peak
    int64_t bytes_at_peak = 0;
};

// The name of operator OP of the trace (OpAllocation::op); "(outside every operator)" for -1.
std::string_view operator_name(const Trace& trace, int32_t op);

// By device: the alloc events (indices into its trace) of the blocks alive at its peak.
using AllocsAtPeak = std::map<int, std::unordered_set<int64_t>>;
AllocsAtPeak allocs_at_peak(const SnapshotTimeline& timeline);
bool alive_at_peak(const AllocsAtPeak& at_peak, const OpAllocation& a);

// One row per operator name that allocated, most bytes at the peak first, then most bytes.
std::vector<OpMemoryRow> op_memory_rows(const SnapshotOps& ops, const MemorySnapshot& snapshot, const Trace& trace, const AllocsAtPeak& at_peak);

// The bytes of some allocations, and of those of them alive at the peak.
struct AllocationBytes {
    int64_t bytes = 0;
    int64_t at_peak = 0;
};
AllocationBytes allocation_bytes(const MemorySnapshot& snapshot, const AllocsAtPeak& at_peak, const std::vector<OpAllocation>& allocations);

// The allocations made while an operator named NAME ran: by it or by an operator under it.
std::vector<OpAllocation> allocations_under(const SnapshotOps& ops, const Trace& trace, std::string_view name);

}  // namespace awb
