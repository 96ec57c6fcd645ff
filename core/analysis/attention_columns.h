// The attention table's columns, described once: header, tooltip, unit, the text table's header and
// width, the views that show it, and each cell's number and text. Rows are groups of calls (the CLI's
// `--attention`, the HTML report) or single calls (the GUI: a group of one, AttentionGroup::add), so a
// cell reads the same wherever it is shown.
#pragma once

#include <string>
#include <vector>

#include "analysis/attention.h"
#include "model/table_cells.h"

namespace awb {

enum class AttentionColumn {
    Library,
    Backend,
    Pass,
    Layout,
    Tokens,
    Batch,
    HeadsQ,
    HeadsKv,
    SeqQ,
    SeqK,
    HeadDim,
    Dtype,
    Causal,
    Calls,
    Start,
    Cpu,
    Device,
    StepShare,
    GpuShare,
    Kernels,
    Flops,
    Tflops,
    Gbs,
    RoofShare,
    BytesModel,
    Notes,
};

struct AttentionColumnInfo {
    AttentionColumn id;
    const char* title;       // the GUI's header
    const char* text_title;  // the text table's and the report's header
    const char* tooltip;
    CellUnit unit;
    unsigned views;   // TableView bits
    int text_width;   // the text table's width; negative: left-aligned; 0: last, after two spaces
    bool needs_roof;  // the text table shows it only where a roof applies
};

const std::vector<AttentionColumnInfo>& attention_column_list();  // in order (columns_in: a view's)

// What a row's cells need besides the row: the busy time its share is of (the text table's "% GPU"),
// its place under its roof (roof_fit; not applying without one), the trace's start (the GUI's Start).
struct AttentionCellContext {
    int64_t gpu_busy_ns = 0;
    RoofFit fit;
    int64_t begin_ns = 0;
};

// The context of a group of calls: its share of GPU_BUSY_NS, its fit under the roof of its dtype.
AttentionCellContext attention_context(const AttentionGroup& row, int64_t gpu_busy_ns, const std::vector<Roof>& roofs);

// The number a column sorts on: a dimension, ns, calls, a share (-1 where there is none), FLOP per
// call, a rate; 0 for the text columns.
double attention_value(const AttentionGroup& row, AttentionColumn column, const AttentionCellContext& context);
// The cell as every view shows it: "?" for a dimension or a cost the trace does not give, "-" for a
// time or a share that does not apply.
std::string attention_cell(const AttentionGroup& row, AttentionColumn column, const AttentionCellContext& context);

}  // namespace awb
