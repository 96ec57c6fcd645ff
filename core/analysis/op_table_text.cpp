#include "analysis/op_table_text.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "model/units.h"

namespace awb {

namespace {

std::string percent(double share) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", 100.0 * share);
    return buf;
}

std::string pad_left(const std::string& s, size_t w) { return s.size() >= w ? s : std::string(w - s.size(), ' ') + s; }

// PyTorch's text of a cell: "12.34%", "1.234ms", "1.50 Mb", "20".
std::string pytorch_cell(const OperatorRow& r, const OpColumnInfo& c, const OpTableTotals& sum) {
    const double v = op_value(r, c.id, sum);
    switch (c.unit) {
        case CellUnit::Share: return percent(v);
        case CellUnit::Percent: return percent(v / 100);
        case CellUnit::Duration: return format_time_us(v / 1e3);
        case CellUnit::Bytes: return format_memory(int64_t(v));
        case CellUnit::Count: return std::to_string(int64_t(v));
        case CellUnit::Text:
        case CellUnit::Label: break;
    }
    return op_text(r, c.id);
}

// The numeric columns of PyTorch's table that the options ask for, in its order.
std::vector<OpColumnInfo> pytorch_columns(const TableTextOptions& o) {
    const unsigned available = (o.device_columns ? kNeedsDevice : 0) | (o.memory_columns ? kNeedsMemory : 0);
    std::vector<OpColumnInfo> out;
    for (const OpColumnInfo& c : op_columns_in(kInText, available))
        if (c.unit != CellUnit::Text) out.push_back(c);
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.pytorch_position < b.pytorch_position; });
    return out;
}

}  // namespace

std::string format_table(const std::vector<OperatorRow>& rows, const TableTextOptions& o) {
    if (rows.empty()) return "(no operators recorded)\n";
    const OpTableTotals sum = totals(rows);
    const size_t shown = o.row_limit == 0 ? rows.size() : std::min(rows.size(), o.row_limit);
    const std::vector<OpColumnInfo> columns = pytorch_columns(o);

    size_t name_width = 0;
    for (size_t i = 0; i < shown; ++i) name_width = std::max(name_width, rows[i].name.size());
    name_width = std::min<size_t>(name_width + 4, 55);
    const size_t col = 12;
    size_t shapes_width = 12;
    if (o.shapes_column)
        for (size_t i = 0; i < shown; ++i)
            shapes_width = std::min<size_t>(80, std::max(shapes_width, rows[i].input_shapes.size() + 4));

    std::string rule = std::string(name_width, '-');
    for (size_t i = 0; i < columns.size(); ++i) rule += "  " + std::string(col, '-');
    if (o.shapes_column) rule += "  " + std::string(shapes_width, '-');
    rule += "  \n";

    auto name_cell = [&](const std::string& n) {
        std::string s = n.size() > name_width - 4 ? n.substr(0, name_width - 7) + "..." : n;
        return pad_left(s, name_width);
    };

    const std::string shapes_title = op_column(OpColumn::Shapes).pytorch_title;
    std::string out = rule + pad_left(op_column(OpColumn::Name).pytorch_title, name_width);
    for (const auto& c : columns) out += "  " + pad_left(c.pytorch_title, col);
    if (o.shapes_column) out += "  " + shapes_title + std::string(shapes_width - shapes_title.size(), ' ');
    out += "  \n" + rule;

    for (size_t i = 0; i < shown; ++i) {
        const auto& r = rows[i];
        out += name_cell(r.name);
        for (const auto& c : columns) out += "  " + pad_left(pytorch_cell(r, c, sum), col);
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
