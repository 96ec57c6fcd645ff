// The kernel table's columns, described once: header, tooltip, unit, whether a trace may lack the
// value, the CLI's header and width, and the cell's number or label. The CLI's text
// (kernel_table_text.cpp) and the GUI's model (ui/kernel_table_model.cpp) render from this list.
#pragma once

#include <string>
#include <vector>

#include "analysis/kernel_table.h"
#include "model/table_cells.h"

namespace awb {

// Every column, in the GUI's order (which shows them all).
enum class KernelColumn {
    Name,
    Kind,
    Class,
    Calls,
    Total,
    Share,
    Avg,
    Min,
    Max,
    Grid,
    Block,
    Registers,
    SharedMemory,
    Occupancy,
    Bytes,
};

struct KernelColumnInfo {
    KernelColumn id;
    const char* title;    // the GUI's header, its unit in parentheses
    const char* tooltip;  // what the number is
    CellUnit unit;
    bool optional;           // a negative value means the trace has none ("-")
    const char* text_title;  // the CLI's header; nullptr: not in the CLI's table
    int text_width;          // the CLI's column width; negative: left-aligned
};

const std::vector<KernelColumnInfo>& kernel_columns();
const KernelColumnInfo& kernel_column(KernelColumn id);

// The cell's number: calls, ns, a share in [0, 1] of TOTAL_NS (every row's time), a percent, bytes,
// or a grid's or block's size in blocks or threads; -1 where the trace has none; 0 for the text columns.
double kernel_value(const KernelRow& row, KernelColumn column, int64_t total_ns);
// The text of a Text or Label column (the raw name, kind, class, "[1, 2, 16]"); empty for the others.
std::string kernel_text(const KernelRow& row, KernelColumn column);

}  // namespace awb
