#include "model/table_cells.h"

#include <algorithm>
#include <cstdint>

#include "model/kernel_name.h"

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

std::string fit_cell(const std::string& text, int width) {
    if (width == 0) return text;
    const size_t w = size_t(width < 0 ? -width : width);
    std::string cut = text;
    if (width < 0 && display_length(text) > w) {  // cut after w characters, not inside one
        size_t chars = 0, end = 0;
        for (; end < text.size(); ++end)
            if ((static_cast<unsigned char>(text[end]) & 0xC0) != 0x80 && chars++ == w) break;
        cut = text.substr(0, end);
    }
    const std::string pad(w - std::min(w, display_length(cut)), ' ');
    return width < 0 ? cut + pad : pad + cut;
}

}  // namespace awb
