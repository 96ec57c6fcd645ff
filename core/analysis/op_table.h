// The operator table: PyTorch's key_averages(), computed from a Trace the way PyTorch computes it
// (torch/autograd/profiler.py _parse_kineto_results, profiler_util.py EventList._build_tree and
// key_averages), so that names, call counts and memory columns agree with the Python profiler.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/operator_row.h"
#include "model/trace.h"

namespace awb {

struct OpTableOptions {
    bool group_by_shape = false;
};

// Rows in PyTorch's order: first appearance in time. Ops recorded while a CUDA graph was captured and
// placed at its replayed kernels (TraceEvent::replayed, results/graph_replay.h) did not run on the CPU in the
// trace: their self and total CPU time are 0 and no [memory] record is theirs; their device time counts
// as any op's, one call per replay.
std::vector<OperatorRow> key_averages(const Trace& trace, const OpTableOptions& options = {});

// PyTorch's _rewrite_name(with_wildcard=True): every ProfilerStep#k becomes "ProfilerStep*".
std::string table_name(const std::string& event_name);
std::string_view table_name_view(const std::string& event_name);  // the same, without a copy

// PyTorch's _filter_name: utility ops it leaves out of its tables.
bool is_filtered_op_name(const std::string& name);

// The footer of PyTorch's table (profiler_util.py _build_table): "Self CPU time total" sums the rows'
// self CPU; "Self CUDA time total" sums the device rows (kernels, copies, sets) that are not user
// annotations, or, when a table has no device rows (LibTorch 1.x, the legacy profiler), the CPU rows'
// self device time. Summing every row would count each kernel twice (its own row and the op that
// launched it) and the annotations' spans on top.
struct OpTableTotals {
    int64_t self_cpu_ns = 0;
    int64_t self_device_ns = 0;
};
OpTableTotals totals(const std::vector<OperatorRow>& rows);

}  // namespace awb
