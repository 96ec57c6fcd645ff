// The comparison's columns (two runs' operator tables joined, op_diff.h), described once: header,
// tooltip, unit, whether it is a delta (signed, coloured: B costs more or less), the text table's
// header and width, and each cell's number and text. `attnwb diff` and the GUI's Compare view render
// from this list.
#pragma once

#include <string>
#include <vector>

#include "analysis/op_diff.h"
#include "model/table_cells.h"

namespace awb {

enum class DiffColumn {
    Name,
    Shapes,
    Presence,
    CallsA,
    CallsB,
    CallsDelta,
    SelfCpuA,
    SelfCpuB,
    SelfCpuDelta,
    SelfCpuRatio,
    CpuTotalA,
    CpuTotalB,
    CpuTotalDelta,
    SelfDeviceA,
    SelfDeviceB,
    SelfDeviceDelta,
    CpuMemA,
    CpuMemB,
    CpuMemDelta,
    MemDelta,
};

struct DiffColumnInfo {
    DiffColumn id;
    const char* title;       // the GUI's header, its unit in parentheses
    const char* text_title;  // the text table's header; nullptr: not in it
    const char* tooltip;
    CellUnit unit;
    bool delta;      // B - A: signed, red where B costs more, green where less
    unsigned views;  // TableView bits
    int text_width;  // negative: left-aligned
};

const std::vector<DiffColumnInfo>& diff_columns();  // in order (columns_in: a view's)

// The number a column sorts on: calls, ns, bytes, B - A, or B / A (infinity where A is 0); 0 for the
// text columns.
double diff_value(const OperatorDiffRow& row, DiffColumn column);
// The cell as the GUI shows it: adaptive units, "+" on a positive delta, "1.23x", "new" or "-" for a
// ratio without A; "both", "vanished" (only in A) or "new" (only in B).
std::string diff_cell(const OperatorDiffRow& row, DiffColumn column);

}  // namespace awb
