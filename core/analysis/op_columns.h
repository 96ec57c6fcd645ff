// The operator table's columns, described once: header, tooltip, unit, what PyTorch's
// key_averages().table() calls it, which views show it, and the cell's number (the sort key). The
// CLI's text (op_table_text.cpp, PyTorch's layout), the GUI's model (ui/operator_table_model.cpp) and
// the HTML report (report/report_html.cpp) all render from this list, so a new column is one entry.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/op_table.h"
#include "model/table_cells.h"

namespace awb {

// Every column of the operator table. The ones with a sort name are `--sort` keys (op_table.h SortKey).
enum class OpColumn {
    Name,
    Shapes,
    Calls,
    SelfCpu,
    SelfCpuShare,
    CpuTotal,
    CpuTotalShare,
    CpuAvg,
    SelfDevice,
    SelfDeviceShare,
    DeviceTotal,
    DeviceAvg,
    CpuMemory,
    SelfCpuMemory,
    DeviceMemory,
    SelfDeviceMemory,
};

// What a column needs to be shown: device columns only where the run has device time
// (RunAnalysis::device_columns), memory columns only where memory was profiled, the shapes column only
// when the table is grouped by shape.
inline constexpr unsigned kAlways = 0;
inline constexpr unsigned kNeedsDevice = 1;
inline constexpr unsigned kNeedsMemory = 2;
inline constexpr unsigned kNeedsShapes = 4;

struct OpColumnInfo {
    OpColumn id;
    const char* title;    // the GUI's and the report's header, its unit in parentheses
    const char* tooltip;  // what the number is (the GUI's header tooltip, the report's title)
    CellUnit unit;
    unsigned needs;             // the kNeeds bits
    unsigned views;             // TableViews: where the column appears
    const char* pytorch_title;  // key_averages().table()'s header; nullptr: not in PyTorch's table
    int pytorch_position;       // its place there (left to right); -1: not there
    const char* sort_name;      // the `--sort` key; nullptr: not a sort key
};

// In the GUI's and the report's order.
const std::vector<OpColumnInfo>& op_columns();
const OpColumnInfo& op_column(OpColumn id);
// The columns VIEW shows, in order, given what the run has (the kNeeds bits that hold).
std::vector<OpColumnInfo> op_columns_in(TableView view, unsigned available);

// The cell's number: ns, bytes or calls, a share in [0, 1] of the table's totals (op_table.h), or an
// average over the calls (0 for a row without calls); 0 for the text columns.
double op_value(const OperatorRow& row, OpColumn column, const OpTableTotals& totals);
// The text of a text column (the name, the input shapes); empty for the others.
const std::string& op_text(const OperatorRow& row, OpColumn column);

// Sorting by a column, as key_averages().table(sort_by=...): stable, descending. The keys are the
// columns with a sort name.
using SortKey = OpColumn;
void sort_rows(std::vector<OperatorRow>& rows, SortKey key);
int64_t sort_value(const OperatorRow& row, SortKey key);
std::string to_string(SortKey k);  // "self_cpu", ...
bool parse_sort_key(const std::string& s, SortKey& out);
std::string sort_key_names();  // for help texts

}  // namespace awb
