// A snapshot's allocations by the profile's operators (analysis/snapshot_ops) as plain text (attnwb
// inspect SNAPSHOT --trace TRACE [--op NAME]) and JSON: how many allocations fell inside operators, the
// table of operators by the bytes they hold at the peak, and with an operator named, the allocations
// made while it ran. Every figure carries its unit.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analysis/snapshot_ops.h"

namespace awb {

// What the text and the JSON say, computed once (snapshot_ops_view).
struct SnapshotOpsView {
    const MemorySnapshot& snapshot;
    const Trace& trace;
    const SnapshotTimeline& timeline;
    const SnapshotOps& ops;
    std::string trace_name;           // the trace's file, for the heading
    std::string op;                   // --op: list the allocations made under it; empty: none
    int rows = 15;                    // rows per table (0: all)
    std::vector<TracePeak> peaks;     // trace_peaks
    AllocsAtPeak at_peak;             // of the peaks
    std::vector<OpMemoryRow> table;   // op_memory_rows
    std::vector<OpAllocation> under;  // allocations_under(op); empty without one
};

SnapshotOpsView snapshot_ops_view(const MemorySnapshot& snapshot, const Trace& trace, const SnapshotTimeline& timeline,
                                  const SnapshotOptions& options, const SnapshotOps& ops, std::string trace_name,
                                  std::string op, int rows);

// "device 0: the table's peak is the one inside the trace, 103.0 MiB after event 163; the device's own,
// 103.0 MiB after event 103, came before the trace began"; "" when the table's peak is the device's own.
std::string trace_peak_text(const TracePeak& peak, const SnapshotTimeline& timeline, const MemorySnapshot& snapshot);

std::string format_snapshot_ops(const SnapshotOpsView& v);
nlohmann::json snapshot_ops_json(const SnapshotOpsView& v);

// "0.123 ms": an allocation's time after the trace began (the snapshot's microseconds, against the
// trace's first event); "-" without a time.
std::string time_in_trace(const SnapshotEvent& e, const Trace& trace);

}  // namespace awb
