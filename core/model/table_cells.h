// What the tables' descriptions (analysis/op_columns.h) share: a cell's unit, the views a column
// appears in, and a cell's text in the adaptive units of the GUI and the reports.
#pragma once

#include <string>
#include <vector>

namespace awb {

enum class CellUnit {
    Text,      // a name or a label; sorts on its text
    Count,     // calls, launches
    Duration,  // ns
    Bytes,
    Share,    // a fraction in [0, 1]
    Percent,  // already in percent (an occupancy)
    Label,    // shown as text, sorted by a number (a grid's [x, y, z] by its blocks)
};

// Where a column appears: the CLI's text, the GUI's table, the HTML report.
enum TableView : unsigned { kInText = 1, kInGui = 2, kInHtml = 4, kInAll = 7 };

// "1,234", "12.3 us", "50.0 MiB", "12.3%", "45.2%"; empty for Text and Label (the column's text is its
// own). A negative value of a column whose values may be missing (OPTIONAL) is "-": the trace has none.
std::string format_cell(double value, CellUnit unit, bool optional = false);

// A text table's cell padded to WIDTH characters (UTF-8 counted as characters): right-aligned, or
// left-aligned and cut where WIDTH is negative; as it is where WIDTH is 0.
std::string fit_cell(const std::string& text, int width);

// The columns of a table's description (a list of infos with a `views` mask) that VIEW shows, in order.
template <typename Info>
std::vector<Info> columns_in(const std::vector<Info>& columns, TableView view) {
    std::vector<Info> out;
    for (const Info& c : columns)
        if (c.views & view) out.push_back(c);
    return out;
}

}  // namespace awb
