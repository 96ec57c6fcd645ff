// The operator table: PyTorch's key_averages(), computed from a Trace the way PyTorch computes it
// (torch/autograd/profiler.py _parse_kineto_results, profiler_util.py EventList._build_tree and
// key_averages), so that names, call counts and memory columns agree with the Python profiler.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace.h"

namespace awb {

struct OperatorRow {
    std::string name;          // "ProfilerStep*" for all ProfilerStep#k, as PyTorch rewrites them
    std::string input_shapes;  // Python's str() of the shapes, only when grouped by shape
    DeviceKind device = DeviceKind::CPU;  // CUDA for rows made of kernels themselves
    bool user_annotation = false;         // a device-side user annotation (gpu_user_annotation): no kernel time of its own
    int64_t calls = 0;
    int64_t self_cpu_ns = 0;
    int64_t cpu_total_ns = 0;
    int64_t self_device_ns = 0;
    int64_t device_total_ns = 0;
    int64_t cpu_memory_bytes = 0;
    int64_t self_cpu_memory_bytes = 0;
    int64_t device_memory_bytes = 0;
    int64_t self_device_memory_bytes = 0;
    bool operator==(const OperatorRow&) const = default;
};

struct OpTableOptions {
    bool group_by_shape = false;
};

// Rows in PyTorch's order: first appearance in time.
std::vector<OperatorRow> key_averages(const Trace& trace, const OpTableOptions& options = {});

enum class SortKey { SelfCpu, CpuTotal, SelfDevice, DeviceTotal, Calls, CpuMemory, SelfCpuMemory,
                     DeviceMemory, SelfDeviceMemory };
// Stable sort, descending, like key_averages().table(sort_by=...).
void sort_rows(std::vector<OperatorRow>& rows, SortKey key);
int64_t sort_value(const OperatorRow& row, SortKey key);
std::string to_string(SortKey k);               // "self_cpu", ...
bool parse_sort_key(const std::string& s, SortKey& out);
std::string sort_key_names();                   // for help texts

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
