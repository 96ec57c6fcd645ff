#include "format_qt.h"

#include "model/units.h"

namespace awb::ui {

QString format_duration_ns(double ns) { return QString::fromStdString(awb::format_duration_ns(ns)); }

QString format_bytes(int64_t bytes) { return QString::fromStdString(awb::format_bytes(bytes)); }

QString format_address(int64_t addr) { return QStringLiteral("0x") + QString::number(quint64(addr), 16); }

QString format_share(double part, double whole) {
    return whole > 0 ? QString::fromStdString(awb::format_share(part / whole)) : QStringLiteral("-");
}

}  // namespace awb::ui
