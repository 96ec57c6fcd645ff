#include "format_qt.h"

#include <cmath>

namespace awb::ui {

QString format_duration_ns(double ns) {
    const double a = std::abs(ns);
    if (a < 1e3) return QStringLiteral("%1 ns").arg(ns, 0, 'f', 0);
    if (a < 1e6) return QStringLiteral("%1 us").arg(ns / 1e3, 0, 'f', a < 1e4 ? 2 : 1);
    if (a < 1e9) return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'f', a < 1e7 ? 3 : 2);
    return QStringLiteral("%1 s").arg(ns / 1e9, 0, 'f', 3);
}

QString format_bytes(int64_t bytes) {
    const double a = std::abs(double(bytes));
    if (a < 1024) return QStringLiteral("%1 B").arg(bytes);
    if (a < 1024.0 * 1024) return QStringLiteral("%1 KiB").arg(double(bytes) / 1024, 0, 'f', 1);
    if (a < 1024.0 * 1024 * 1024) return QStringLiteral("%1 MiB").arg(double(bytes) / 1048576.0, 0, 'f', 1);
    return QStringLiteral("%1 GiB").arg(double(bytes) / 1073741824.0, 0, 'f', 2);
}

}  // namespace awb::ui
