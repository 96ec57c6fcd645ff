#include "analysis/op_table_text.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "model/units.h"

namespace awb {

namespace {

std::string percent(int64_t part, int64_t whole) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", whole > 0 ? 100.0 * double(part) / double(whole) : 0.0);
    return buf;
}

std::string pad_left(const std::string& s, size_t w) { return s.size() >= w ? s : std::string(w - s.size(), ' ') + s; }

}  // namespace

std::string format_table(const std::vector<OperatorRow>& rows, const TableTextOptions& o) {
    if (rows.empty()) return "(no operators recorded)\n";
    const OpTableTotals sum = totals(rows);
    const size_t shown = o.row_limit == 0 ? rows.size() : std::min(rows.size(), o.row_limit);

    size_t name_width = 0;
    for (size_t i = 0; i < shown; ++i) name_width = std::max(name_width, rows[i].name.size());
    name_width = std::min<size_t>(name_width + 4, 55);
    const size_t col = 12;
    size_t shapes_width = 12;
    if (o.shapes_column)
        for (size_t i = 0; i < shown; ++i)
            shapes_width = std::min<size_t>(80, std::max(shapes_width, rows[i].input_shapes.size() + 4));

    std::vector<std::string> headers{"Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"};
    if (o.device_columns) headers.insert(headers.end(), {"Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"});
    if (o.memory_columns) {
        headers.insert(headers.end(), {"CPU Mem", "Self CPU Mem"});
        if (o.device_columns) headers.insert(headers.end(), {"CUDA Mem", "Self CUDA Mem"});
    }
    headers.push_back("# of Calls");

    std::string rule = std::string(name_width, '-');
    for (size_t i = 0; i < headers.size(); ++i) rule += "  " + std::string(col, '-');
    if (o.shapes_column) rule += "  " + std::string(shapes_width, '-');
    rule += "  \n";

    auto name_cell = [&](const std::string& n) {
        std::string s = n.size() > name_width - 4 ? n.substr(0, name_width - 7) + "..." : n;
        return pad_left(s, name_width);
    };

    std::string out = rule + pad_left("Name", name_width);
    for (const auto& h : headers) out += "  " + pad_left(h, col);
    if (o.shapes_column) out += "  " + std::string("Input Shapes") + std::string(shapes_width - 12, ' ');
    out += "  \n" + rule;

    for (size_t i = 0; i < shown; ++i) {
        const auto& r = rows[i];
        const double calls = double(std::max<int64_t>(r.calls, 1));
        std::vector<std::string> cells{percent(r.self_cpu_ns, sum.self_cpu_ns), format_time_us(r.self_cpu_ns / 1e3),
                                       percent(r.cpu_total_ns, sum.self_cpu_ns), format_time_us(r.cpu_total_ns / 1e3),
                                       format_time_us(r.cpu_total_ns / 1e3 / calls)};
        if (o.device_columns)
            cells.insert(cells.end(),
                         {format_time_us(r.self_device_ns / 1e3), percent(r.self_device_ns, sum.self_device_ns),
                          format_time_us(r.device_total_ns / 1e3), format_time_us(r.device_total_ns / 1e3 / calls)});
        if (o.memory_columns) {
            cells.insert(cells.end(), {format_memory(r.cpu_memory_bytes), format_memory(r.self_cpu_memory_bytes)});
            if (o.device_columns)
                cells.insert(cells.end(),
                             {format_memory(r.device_memory_bytes), format_memory(r.self_device_memory_bytes)});
        }
        cells.push_back(std::to_string(r.calls));
        out += name_cell(r.name);
        for (const auto& c : cells) out += "  " + pad_left(c, col);
        if (o.shapes_column) {
            std::string s = r.input_shapes.size() > shapes_width ? r.input_shapes.substr(0, shapes_width - 3) + "..."
                                                                 : r.input_shapes;
            out += "  " + s + std::string(shapes_width - s.size(), ' ');
        }
        out += "  \n";
    }
    out += rule;
    out += "Self CPU time total: " + format_time_us(sum.self_cpu_ns / 1e3) + "\n";
    if (o.device_columns) out += "Self CUDA time total: " + format_time_us(sum.self_device_ns / 1e3) + "\n";
    if (shown < rows.size()) out += "(" + std::to_string(rows.size() - shown) + " more rows; --rows 0 shows all)\n";
    return out;
}

}  // namespace awb
