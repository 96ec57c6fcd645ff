// The operator table as text, laid out like key_averages().table(): the CLI prints it, reports embed it.
#pragma once

#include <string>
#include <vector>

#include "analysis/op_columns.h"

namespace awb {

struct TableTextOptions {
    size_t row_limit = 15;        // 0: all rows
    bool device_columns = false;  // Self CUDA / CUDA total / CUDA Mem columns
    bool memory_columns = true;
    bool shapes_column = false;
};

// rows must already be sorted; percentages are of the sum over all rows, not only the shown ones.
std::string format_table(const std::vector<OperatorRow>& rows, const TableTextOptions& options);

}  // namespace awb
