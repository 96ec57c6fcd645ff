#include "analysis/kernel_table_text.h"

#include <algorithm>

#include "model/kernel_name.h"
#include "model/printf_string.h"

namespace awb {

namespace {

constexpr size_t kNameWidth = 56;

// The name column: demangled, shortened by what tells the shown kernels apart, padded by characters
// (the "…" is one character, three bytes).
std::vector<std::string> kernel_name_column(const std::vector<KernelRow>& rows, size_t shown) {
    std::vector<std::string> names;
    for (size_t i = 0; i < shown; ++i) names.push_back(demangled_kernel_name(rows[i].name));
    std::vector<std::string> out = elide_kernel_names(names, kNameWidth);
    for (std::string& n : out) n += std::string(kNameWidth - std::min(kNameWidth, display_length(n)), ' ');
    return out;
}

std::string number_or_dash(double v, bool present, int decimals) {
    return present ? printf_string("%.*f", decimals, v) : "-";
}

}  // namespace

std::string format_kernel_table(const std::vector<KernelRow>& rows, size_t limit) {
    if (rows.empty()) return "";
    const size_t shown = limit == 0 ? rows.size() : std::min(limit, rows.size());
    const std::vector<std::string> names = kernel_name_column(rows, shown);
    std::string out =
        printf_string("%-56s %-18s %6s %12s %12s %14s %14s %5s %8s %6s\n", "Kernel / copy (demangled)", "Class",
                      "Calls", "Total (us)", "Avg (us)", "Grid", "Block", "Regs", "Smem (B)", "Occ %");
    for (size_t i = 0; i < shown; ++i) {
        const KernelRow& k = rows[i];
        const DeviceLaunch& l = k.launch;
        out += printf_string("%s %-18.18s %6lld %12.3f %12.3f %14s %14s %5s %8s %6s\n", names[i].c_str(),
                             to_string(k.cls).c_str(), (long long)k.calls, double(k.total_ns) / 1e3, k.avg_ns() / 1e3,
                             format_dim3(l.grid).c_str(), format_dim3(l.block).c_str(),
                             number_or_dash(l.registers_per_thread, l.registers_per_thread >= 0, 0).c_str(),
                             number_or_dash(double(l.shared_memory_bytes), l.shared_memory_bytes >= 0, 0).c_str(),
                             number_or_dash(k.mean_occupancy_pct, k.mean_occupancy_pct >= 0, 1).c_str());
    }
    return out;
}

std::string format_kernel_classes(const std::vector<KernelRow>& rows) {
    if (rows.empty()) return "";
    const std::vector<KernelRow> classes = kernels_by_class(rows);
    int64_t all = 0;
    for (const auto& k : classes) all += k.total_ns;
    std::string out =
        printf_string("%-30s %6s %8s %12s %8s\n", "Kernel class", "Device", "Calls", "Total (us)", "Share");
    for (const auto& k : classes)
        out += printf_string("%-30s %6d %8lld %12.3f %7.1f%%\n", k.name.c_str(), k.device_index, (long long)k.calls,
                             double(k.total_ns) / 1e3, 100.0 * (all > 0 ? double(k.total_ns) / double(all) : 0.0));
    return out;
}

}  // namespace awb
