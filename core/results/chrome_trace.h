// Chrome-trace export in PyTorch's (Kineto's) layout, which Perfetto, chrome://tracing and PyTorch's
// own tools read: X events with Input Dims / Input type args, kernels with their launch configuration,
// [memory] instant events with Bytes and Total Allocated, process, thread and stream names, ac2g flows
// from a CPU op to its kernels, distributedInfo for a rank's file.
// What the importer (trace_import.h) reads back from it is the trace that was written: same events
// (kinds, devices, streams, ids, shapes, stacks, launch configurations, ranks) and the same names; the
// few things Kineto's layout has no place for (the names' maps, the source, legacy device spans) go
// in the metadata (trace_meta_json) and come back through restore_trace_meta.
#pragma once

#include <nlohmann/json.hpp>

#include <climits>
#include <string>

#include "io/trace_import.h"
#include "model/comm_args.h"
#include "model/device_properties.h"
#include "model/environment.h"
#include "model/profile_result.h"
#include "model/trace.h"

namespace awb {

inline constexpr int32_t kAllRanks = INT32_MIN;

struct ChromeTraceInfo {
    std::string trace_name;  // e.g. "manual 2x8x512x64 float32 cpu"
    std::string process_name = "attnwb";
    int64_t pid = 0;          // 0: this process's pid
    nlohmann::json metadata;  // extra top-level keys (spec, environment), may be null
    // Only the events of this rank, written as that rank's file (distributedInfo); kAllRanks: every event.
    int32_t rank = kAllRanks;
    // Exactly the trace held (workspaces): no thread names or memory totals it does not have. Otherwise
    // (exports) unnamed threads get a name and memory events without the allocator's totals a running total.
    bool exact = false;
    std::vector<DeviceProperties> devices;  // written as deviceProperties (Kineto's: the GPUs the trace ran on)
};

// The file's text (each event written as it is made: no JSON tree of the whole trace in memory).
std::string chrome_trace_text(const Trace& trace, const ChromeTraceInfo& info);
// The info of a run's trace: its described spec as the name, and as metadata an "attention_workbench"
// object with the spec, options, environment, steps, device peak and the trace's own metadata, which
// profile_result_from_import (workspace.h) reads back, so a saved trace reopens as the run it was.
ChromeTraceInfo run_trace_info(const ProfileResult& result, std::string process_name);

// What TraceMeta holds beyond the events (names by id, source, ranks' world, legacy spans), as JSON;
// restore_trace_meta puts it back over a trace read from the file (a copy of it; unchanged when j is
// not such an object).
nlohmann::json trace_meta_json(const TraceMeta& meta);
Trace restore_trace_meta(const Trace& trace, const nlohmann::json& j);

// distributedInfo as Kineto writes it: rank, world size, backend and the process groups (pg_config).
nlohmann::json distributed_info_json(int32_t rank, int world_size, const std::string& backend,
                                     const std::vector<ProcessGroup>& groups);

void write_chrome_trace(const Trace& trace, const ChromeTraceInfo& info, const std::string& path);

// trace (the part of source's kept in a rank's summary: analysis/rank_summary.h) written as rank's file
// with what source's file said of itself (Kineto's header, the GPUs, distributedInfo with its NCCL
// version), and "attention_workbench": {"summary": summary}, which the importer notes (.gz: compressed).
void write_rank_file(const Trace& trace, const ImportedTrace& source, int32_t rank, nlohmann::json summary,
                     const std::string& path);

}  // namespace awb
