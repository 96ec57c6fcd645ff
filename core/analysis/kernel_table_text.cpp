#include "analysis/kernel_table_text.h"

#include <algorithm>

#include "analysis/kernel_columns.h"
#include "model/kernel_name.h"
#include "model/printf_string.h"

namespace awb {

namespace {

size_t name_width() { return size_t(-kernel_column(KernelColumn::Name).text_width); }

// The name column: demangled, shortened by what tells the shown kernels apart, padded by characters
// (the "…" is one character, three bytes).
std::vector<std::string> kernel_name_column(const std::vector<KernelRow>& rows, size_t shown) {
    std::vector<std::string> names;
    for (size_t i = 0; i < shown; ++i) names.push_back(demangled_kernel_name(rows[i].name));
    const size_t width = name_width();
    std::vector<std::string> out = elide_kernel_names(names, width);
    for (std::string& n : out) n = fit_cell(n, -int(width));
    return out;
}

// The CLI's text of a cell: fixed units (us with three decimals, raw bytes), "-" where the trace has none.
std::string text_cell(const KernelRow& k, const KernelColumnInfo& c, int64_t total_ns) {
    const double v = kernel_value(k, c.id, total_ns);
    if (c.optional && v < 0) return "-";
    switch (c.unit) {
        case CellUnit::Duration: return printf_string("%.3f", v / 1e3);
        case CellUnit::Count:
        case CellUnit::Bytes: return printf_string("%.0f", v);
        case CellUnit::Share: return printf_string("%.1f", 100 * v);
        case CellUnit::Percent: return printf_string("%.1f", v);
        case CellUnit::Text:
        case CellUnit::Label: break;
    }
    return kernel_text(k, c.id);
}

}  // namespace

std::string format_kernel_table(const std::vector<KernelRow>& rows, size_t limit) {
    if (rows.empty()) return "";
    const size_t shown = limit == 0 ? rows.size() : std::min(limit, rows.size());
    const std::vector<std::string> names = kernel_name_column(rows, shown);
    int64_t total_ns = 0;
    for (const KernelRow& k : rows) total_ns += k.total_ns;
    std::vector<KernelColumnInfo> columns;
    for (const KernelColumnInfo& c : kernel_columns())
        if (c.text_title) columns.push_back(c);
    std::string out;
    for (const KernelColumnInfo& c : columns) out += (out.empty() ? "" : " ") + fit_cell(c.text_title, c.text_width);
    out += "\n";
    for (size_t i = 0; i < shown; ++i) {
        std::string line;
        for (const KernelColumnInfo& c : columns) {
            if (!line.empty()) line += " ";
            line += c.id == KernelColumn::Name ? names[i] : fit_cell(text_cell(rows[i], c, total_ns), c.text_width);
        }
        out += line + "\n";
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
