#include "model/table_cells.h"

#include <cstdint>

#include "model/units.h"

namespace awb {

std::string format_cell(double value, CellUnit unit, bool optional) {
    if (optional && value < 0) return "-";
    switch (unit) {
        case CellUnit::Count: return format_count(int64_t(value));
        case CellUnit::Duration: return format_duration_ns(value);
        case CellUnit::Bytes: return format_bytes(int64_t(value));
        case CellUnit::Share: return format_share(value);
        case CellUnit::Percent: return format_share(value / 100);
        case CellUnit::Text:
        case CellUnit::Label: break;
    }
    return {};
}

}  // namespace awb
