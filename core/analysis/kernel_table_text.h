// The kernel table and the kernel classes as text, as attnwb inspect prints them (the JSON of both is
// in results/run_json.h): beside op_table_text, the one place the CLI's tables are written. Pure C++.
#pragma once

#include <string>
#include <vector>

#include "analysis/kernel_table.h"

namespace awb {

// The first `limit` rows (0: all): the name demangled and shortened to 56 characters by what tells the
// shown kernels apart (model/kernel_name.h), class, calls, total and average time, launch configuration
// and occupancy; "" without rows.
std::string format_kernel_table(const std::vector<KernelRow>& rows, size_t limit);

// One line per kernel class and device (kernels_by_class) with calls, total time and share; "" without rows.
std::string format_kernel_classes(const std::vector<KernelRow>& rows);

}  // namespace awb
