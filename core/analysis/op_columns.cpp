#include "analysis/op_columns.h"

#include <algorithm>

namespace awb {

namespace {

constexpr unsigned kTextGui = kInText | kInGui;
constexpr unsigned kTextHtml = kInText | kInHtml;
constexpr unsigned kDevMem = kNeedsDevice | kNeedsMemory;

// clang-format off
const std::vector<OpColumnInfo> kOpColumns = {
    {OpColumn::Name, "Name",
     "Operator name (ProfilerStep#k folded into ProfilerStep*), as PyTorch's key_averages() names it",
     CellUnit::Text, kAlways, kInGui | kInHtml, "Name", -1, nullptr},
    {OpColumn::Shapes, "Input shapes", "Input shapes, when the table is grouped by shape",
     CellUnit::Text, kNeedsShapes, kInAll, "Input Shapes", -1, nullptr},
    {OpColumn::Calls, "Calls", "How many times the operator ran in the recorded steps",
     CellUnit::Count, kAlways, kInAll, "# of Calls", 13, "calls"},
    {OpColumn::SelfCpu, "Self CPU (time)",
     "Self time: the operator's own CPU time, minus the time of the operators it called",
     CellUnit::Duration, kAlways, kInAll, "Self CPU", 1, "self_cpu"},
    {OpColumn::SelfCpuShare, "Self CPU (%)",
     "Share of \"Self CPU time total\": the sum of every row's self CPU time, so the shares add up to 100 %",
     CellUnit::Share, kAlways, kInAll, "Self CPU %", 0, nullptr},
    {OpColumn::CpuTotal, "CPU total (time)",
     "Total time: the operator's CPU time including everything it called",
     CellUnit::Duration, kAlways, kInAll, "CPU total", 3, "cpu_total"},
    {OpColumn::CpuTotalShare, "CPU total (%)",
     "CPU total as a share of \"Self CPU time total\" (PyTorch's; nested operators make these add up to more "
     "than 100 %)",
     CellUnit::Share, kAlways, kInText, "CPU total %", 2, nullptr},
    {OpColumn::CpuAvg, "CPU avg (time)", "CPU total divided by calls",
     CellUnit::Duration, kAlways, kTextGui, "CPU time avg", 4, nullptr},
    {OpColumn::SelfDevice, "Self device (time)",
     "Self device time: kernels launched by this operator itself. The bar is its share of \"Self CUDA time "
     "total\", which counts each kernel, copy and set once (device rows, user annotations left out, as PyTorch's "
     "table). As in PyTorch 2.x's key_averages(), a CPU row is charged every device event linked to it, a "
     "GPU-side annotation's span included (ProfilerStep#k's on the stream)",
     CellUnit::Duration, kNeedsDevice, kInAll, "Self CUDA", 5, "self_device"},
    {OpColumn::SelfDeviceShare, "Self device (%)",
     "Share of \"Self CUDA time total\": each kernel, copy and set counted once",
     CellUnit::Share, kNeedsDevice, kTextHtml, "Self CUDA %", 6, nullptr},
    {OpColumn::DeviceTotal, "Device total (time)",
     "Device time of the kernels launched by this operator and everything it called",
     CellUnit::Duration, kNeedsDevice, kInAll, "CUDA total", 7, "device_total"},
    {OpColumn::DeviceAvg, "Device avg (time)", "Device total divided by calls",
     CellUnit::Duration, kNeedsDevice, kInText, "CUDA time avg", 8, nullptr},
    {OpColumn::CpuMemory, "CPU mem (bytes)",
     "Bytes allocated minus freed while the operator (and its callees) ran. As in PyTorch's key_averages(), an "
     "allocation is charged to every operator whose interval holds its timestamp, ends included: one at the very "
     "instant of a zero-length operator (aten::resolve_conj, aten::view) is charged to it too",
     CellUnit::Bytes, kNeedsMemory, kInAll, "CPU Mem", 9, "cpu_mem"},
    {OpColumn::SelfCpuMemory, "Self CPU mem (bytes)",
     "Bytes allocated minus freed by the operator itself, not its callees (the same interval rule)",
     CellUnit::Bytes, kNeedsMemory, kInAll, "Self CPU Mem", 10, "self_cpu_mem"},
    {OpColumn::DeviceMemory, "Device mem (bytes)", "Device bytes allocated minus freed, including callees",
     CellUnit::Bytes, kDevMem, kInAll, "CUDA Mem", 11, "device_mem"},
    {OpColumn::SelfDeviceMemory, "Self device mem (bytes)", "Device bytes allocated minus freed by the operator itself",
     CellUnit::Bytes, kDevMem, kTextGui, "Self CUDA Mem", 12, "self_device_mem"},
};
// clang-format on

double share(int64_t part, int64_t whole) { return whole > 0 ? double(part) / double(whole) : 0.0; }
double average(int64_t total, int64_t calls) { return calls > 0 ? double(total) / double(calls) : 0.0; }

}  // namespace

const std::vector<OpColumnInfo>& op_columns() { return kOpColumns; }

const OpColumnInfo& op_column(OpColumn id) { return kOpColumns[size_t(id)]; }

std::vector<OpColumnInfo> op_columns_in(TableView view, unsigned available) {
    std::vector<OpColumnInfo> out = columns_in(kOpColumns, view);
    std::erase_if(out, [available](const OpColumnInfo& c) { return (c.needs & ~available) != 0; });
    return out;
}

double op_value(const OperatorRow& r, OpColumn column, const OpTableTotals& t) {
    switch (column) {
        case OpColumn::Calls: return double(r.calls);
        case OpColumn::SelfCpu: return double(r.self_cpu_ns);
        case OpColumn::SelfCpuShare: return share(r.self_cpu_ns, t.self_cpu_ns);
        case OpColumn::CpuTotal: return double(r.cpu_total_ns);
        case OpColumn::CpuTotalShare: return share(r.cpu_total_ns, t.self_cpu_ns);
        case OpColumn::CpuAvg: return average(r.cpu_total_ns, r.calls);
        case OpColumn::SelfDevice: return double(r.self_device_ns);
        case OpColumn::SelfDeviceShare: return share(r.self_device_ns, t.self_device_ns);
        case OpColumn::DeviceTotal: return double(r.device_total_ns);
        case OpColumn::DeviceAvg: return average(r.device_total_ns, r.calls);
        case OpColumn::CpuMemory: return double(r.cpu_memory_bytes);
        case OpColumn::SelfCpuMemory: return double(r.self_cpu_memory_bytes);
        case OpColumn::DeviceMemory: return double(r.device_memory_bytes);
        case OpColumn::SelfDeviceMemory: return double(r.self_device_memory_bytes);
        case OpColumn::Name:
        case OpColumn::Shapes: break;
    }
    return 0;
}

const std::string& op_text(const OperatorRow& r, OpColumn column) {
    static const std::string none;
    if (column == OpColumn::Name) return r.name;
    if (column == OpColumn::Shapes) return r.input_shapes;
    return none;
}

int64_t sort_value(const OperatorRow& r, SortKey key) { return int64_t(op_value(r, key, {})); }

void sort_rows(std::vector<OperatorRow>& rows, SortKey key) {
    std::stable_sort(rows.begin(), rows.end(), [key](const OperatorRow& a, const OperatorRow& b) {
        return sort_value(a, key) > sort_value(b, key);
    });
}

std::string to_string(SortKey k) {
    const char* name = op_column(k).sort_name;
    return name ? name : "?";
}

bool parse_sort_key(const std::string& s, SortKey& out) {
    for (const OpColumnInfo& c : kOpColumns)
        if (c.sort_name && s == c.sort_name) {
            out = c.id;
            return true;
        }
    return false;
}

std::string sort_key_names() {
    std::string out;
    for (const OpColumnInfo& c : kOpColumns)
        if (c.sort_name) out += (out.empty() ? "" : ", ") + std::string(c.sort_name);
    return out;
}

}  // namespace awb
