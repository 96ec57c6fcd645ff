#include "analysis/kernel_columns.h"

#include "analysis/kernel_class_rules.h"

namespace awb {

namespace {

// Every class, from the rules' table (kernel_class_rules.h).
const char* class_tooltip() {
    static const std::string text =
        "What the kernel does, from its name and the op that launched it, by the first of the rules that holds "
        "(attnwb inspect --kernel-classes lists them): " +
        kernel_class_names();
    return text.c_str();
}

std::vector<KernelColumnInfo> make_columns() {
    using U = CellUnit;
    // clang-format off
    return {
        {KernelColumn::Name, "Kernel / copy",
         "Kernel, memcpy or memset name, demangled; long names keep what tells them from the table's others (tile "
         "sizes, layouts) and \u2026 marks what is left out. The tooltip has the whole name and the raw one; Ctrl+C "
         "copies the raw names of the selected rows. Rows are grouped by name and launch configuration",
         U::Text, false, "Kernel / copy (demangled)", -56},
        {KernelColumn::Kind, "Kind", "kernel, gpu_memcpy or gpu_memset", U::Text, false, nullptr, 0},
        {KernelColumn::Class, "Class", class_tooltip(), U::Text, false, "Class", -18},
        {KernelColumn::Calls, "Calls", "Launches in the trace", U::Count, false, "Calls", 6},
        {KernelColumn::Total, "Total (time)", "Summed device time of all launches",
         U::Duration, false, "Total (us)", 12},
        {KernelColumn::Share, "Share of device time",
         "Share of the device time of every kernel, copy and set in the trace", U::Share, false, nullptr, 0},
        {KernelColumn::Avg, "Avg (time)", "Total / calls", U::Duration, false, "Avg (us)", 12},
        {KernelColumn::Min, "Min (time)", "Shortest launch", U::Duration, false, nullptr, 0},
        {KernelColumn::Max, "Max (time)", "Longest launch", U::Duration, false, nullptr, 0},
        {KernelColumn::Grid, "Grid", "Blocks in the grid (x, y, z), from CUPTI; - where the trace has none (ROCm)",
         U::Label, true, "Grid", 14},
        {KernelColumn::Block, "Block", "Threads per block (x, y, z)", U::Label, true, "Block", 14},
        {KernelColumn::Registers, "Registers / thread", "Registers per thread of the kernel",
         U::Count, true, "Regs", 5},
        {KernelColumn::SharedMemory, "Shared memory (bytes)", "Shared memory per block", U::Bytes, true, "Smem (B)", 8},
        {KernelColumn::Occupancy, "Occupancy (%)",
         "Estimated achieved occupancy, weighted by duration (theoretical occupancy in 2021 traces)",
         U::Percent, true, "Occ %", 6},
        {KernelColumn::Bytes, "Bytes copied", "Bytes moved by copies and sets", U::Bytes, true, nullptr, 0},
    };
    // clang-format on
}

double volume(const std::array<int32_t, 3>& d) { return d[0] > 0 ? double(d[0]) * d[1] * d[2] : -1; }

}  // namespace

const std::vector<KernelColumnInfo>& kernel_columns() {
    static const std::vector<KernelColumnInfo> columns = make_columns();
    return columns;
}

const KernelColumnInfo& kernel_column(KernelColumn id) { return kernel_columns()[size_t(id)]; }

double kernel_value(const KernelRow& r, KernelColumn column, int64_t total_ns) {
    const DeviceLaunch& l = r.launch;
    switch (column) {
        case KernelColumn::Calls: return double(r.calls);
        case KernelColumn::Total: return double(r.total_ns);
        case KernelColumn::Share: return total_ns > 0 ? double(r.total_ns) / double(total_ns) : 0.0;
        case KernelColumn::Avg: return r.avg_ns();
        case KernelColumn::Min: return double(r.min_ns);
        case KernelColumn::Max: return double(r.max_ns);
        case KernelColumn::Grid: return volume(l.grid);
        case KernelColumn::Block: return volume(l.block);
        case KernelColumn::Registers: return l.registers_per_thread;
        case KernelColumn::SharedMemory: return double(l.shared_memory_bytes);
        case KernelColumn::Occupancy: return r.mean_occupancy_pct;
        case KernelColumn::Bytes: return l.bytes > 0 ? double(l.bytes) : -1;
        case KernelColumn::Name:
        case KernelColumn::Kind:
        case KernelColumn::Class: break;
    }
    return 0;
}

std::string kernel_text(const KernelRow& r, KernelColumn column) {
    switch (column) {
        case KernelColumn::Name: return r.name;
        case KernelColumn::Kind: return to_string(r.kind);
        case KernelColumn::Class: return to_string(r.cls);
        case KernelColumn::Grid: return format_dim3(r.launch.grid);
        case KernelColumn::Block: return format_dim3(r.launch.block);
        default: return {};
    }
}

}  // namespace awb
