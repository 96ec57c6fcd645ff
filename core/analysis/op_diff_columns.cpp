#include "analysis/op_diff_columns.h"

#include <limits>

#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

constexpr const char* kDiffTip =
    "A and B are the two runs compared; B-A is positive (red) where B costs more. Rows are matched by operator "
    "name (and input shapes when grouped).";
constexpr unsigned kDiffTextGui = kInText | kInGui;

using DC = DiffColumn;
using U = CellUnit;

// clang-format off
const std::vector<DiffColumnInfo> kDiffColumns = {
    {DC::Name, "Name", "Name", kDiffTip, U::Text, false, kDiffTextGui, -44},
    {DC::Shapes, "Input shapes", nullptr, kDiffTip, U::Text, false, kInGui, 0},
    {DC::Presence, "In", "In", "both runs; vanished: only in A; new: only in B", U::Label, false, kDiffTextGui, -9},
    {DC::CallsA, "Calls A", "Calls A", kDiffTip, U::Count, false, kDiffTextGui, 7},
    {DC::CallsB, "Calls B", "Calls B", kDiffTip, U::Count, false, kDiffTextGui, 7},
    {DC::CallsDelta, "Calls B-A", nullptr, kDiffTip, U::Count, true, kInGui, 0},
    {DC::SelfCpuA, "Self CPU A (time)", "Self CPU A", kDiffTip, U::Duration, false, kDiffTextGui, 12},
    {DC::SelfCpuB, "Self CPU B (time)", "Self CPU B", kDiffTip, U::Duration, false, kDiffTextGui, 12},
    {DC::SelfCpuDelta, "Self CPU B-A (time)", "Delta", kDiffTip, U::Duration, true, kDiffTextGui, 12},
    {DC::SelfCpuRatio, "Self CPU B/A", "B/A", kDiffTip, U::Count, false, kDiffTextGui, 8},
    {DC::CpuTotalA, "CPU total A (time)", nullptr, kDiffTip, U::Duration, false, kInGui, 0},
    {DC::CpuTotalB, "CPU total B (time)", nullptr, kDiffTip, U::Duration, false, kInGui, 0},
    {DC::CpuTotalDelta, "CPU total B-A (time)", nullptr, kDiffTip, U::Duration, true, kInGui, 0},
    {DC::SelfDeviceA, "Self device A (time)", nullptr, kDiffTip, U::Duration, false, kInGui, 0},
    {DC::SelfDeviceB, "Self device B (time)", nullptr, kDiffTip, U::Duration, false, kInGui, 0},
    {DC::SelfDeviceDelta, "Self device B-A (time)", "Dev delta", kDiffTip, U::Duration, true, kDiffTextGui, 12},
    {DC::CpuMemA, "CPU mem A (bytes)", nullptr, kDiffTip, U::Bytes, false, kInGui, 0},
    {DC::CpuMemB, "CPU mem B (bytes)", nullptr, kDiffTip, U::Bytes, false, kInGui, 0},
    {DC::CpuMemDelta, "CPU mem B-A (bytes)", nullptr, kDiffTip, U::Bytes, true, kInGui, 0},
    {DC::MemDelta, "Mem B-A (bytes)", "Mem delta B", "CPU and device memory, B - A", U::Bytes, true, kInText, 12},
};
// clang-format on

double ratio(int64_t a, int64_t b) { return a != 0 ? double(b) / double(a) : std::numeric_limits<double>::infinity(); }

}  // namespace

const std::vector<DiffColumnInfo>& diff_columns() { return kDiffColumns; }

double diff_value(const OperatorDiffRow& r, DiffColumn column) {
    switch (column) {
        case DC::Presence: return r.in_a && r.in_b ? 0 : r.in_a ? -1 : 1;
        case DC::CallsA: return double(r.a.calls);
        case DC::CallsB: return double(r.b.calls);
        case DC::CallsDelta: return double(r.b.calls - r.a.calls);
        case DC::SelfCpuA: return double(r.a.self_cpu_ns);
        case DC::SelfCpuB: return double(r.b.self_cpu_ns);
        case DC::SelfCpuDelta: return double(r.self_cpu_delta_ns());
        case DC::SelfCpuRatio: return ratio(r.a.self_cpu_ns, r.b.self_cpu_ns);
        case DC::CpuTotalA: return double(r.a.cpu_total_ns);
        case DC::CpuTotalB: return double(r.b.cpu_total_ns);
        case DC::CpuTotalDelta: return double(r.b.cpu_total_ns - r.a.cpu_total_ns);
        case DC::SelfDeviceA: return double(r.a.self_device_ns);
        case DC::SelfDeviceB: return double(r.b.self_device_ns);
        case DC::SelfDeviceDelta: return double(r.self_device_delta_ns());
        case DC::CpuMemA: return double(r.a.cpu_memory_bytes);
        case DC::CpuMemB: return double(r.b.cpu_memory_bytes);
        case DC::CpuMemDelta: return double(r.b.cpu_memory_bytes - r.a.cpu_memory_bytes);
        case DC::MemDelta:
            return double(r.b.cpu_memory_bytes + r.b.device_memory_bytes - r.a.cpu_memory_bytes -
                          r.a.device_memory_bytes);
        case DC::Name:
        case DC::Shapes: break;
    }
    return 0;
}

std::string diff_cell(const OperatorDiffRow& r, DiffColumn column) {
    const DiffColumnInfo& info = kDiffColumns[size_t(column)];
    const double v = diff_value(r, column);
    switch (column) {
        case DC::Name: return r.name;
        case DC::Shapes: return r.input_shapes;
        case DC::Presence: return r.in_a && r.in_b ? "both" : r.in_a ? "vanished" : "new";
        case DC::SelfCpuRatio:
            if (r.a.self_cpu_ns == 0) return r.b.self_cpu_ns == 0 ? "-" : "new";
            return printf_string("%.2fx", v);
        default: break;
    }
    std::string text = format_cell(v, info.unit);
    return info.delta && v > 0 ? "+" + text : text;
}

}  // namespace awb
