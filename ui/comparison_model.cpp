#include "comparison_model.h"

#include <QBrush>
#include <QColor>

#include <cmath>
#include <limits>

#include "format_qt.h"

namespace awb::ui {

namespace {

constexpr const char* kTip =
    "A and B are the two runs picked above; B-A is positive (red) where B costs more. Rows are matched by operator "
    "name (and input shapes when grouped).";

}  // namespace

ComparisonModel::ComparisonModel(QObject* parent)
    : RowTableModel(
          {
              {"Name", kTip, true},
              {"Input shapes", kTip, true},
              {"In", kTip, false, true},
              {"Calls A", kTip},
              {"Calls B", kTip},
              {"Calls B-A", kTip},
              {"Self CPU A (time)", kTip},
              {"Self CPU B (time)", kTip},
              {"Self CPU B-A (time)", kTip},
              {"Self CPU B/A", kTip},
              {"CPU total A (time)", kTip},
              {"CPU total B (time)", kTip},
              {"CPU total B-A (time)", kTip},
              {"Self device A (time)", kTip},
              {"Self device B (time)", kTip},
              {"Self device B-A (time)", kTip},
              {"CPU mem A (bytes)", kTip},
              {"CPU mem B (bytes)", kTip},
              {"CPU mem B-A (bytes)", kTip},
          },
          Name, parent) {}

double ComparisonModel::value(int row_index, int c) const {
    const OperatorDiffRow& r = row(row_index);
    switch (c) {
        case Presence: return r.in_a && r.in_b ? 0 : r.in_a ? -1 : 1;
        case CallsA: return double(r.a.calls);
        case CallsB: return double(r.b.calls);
        case CallsDelta: return double(r.b.calls - r.a.calls);
        case SelfCpuA: return double(r.a.self_cpu_ns);
        case SelfCpuB: return double(r.b.self_cpu_ns);
        case SelfCpuDelta: return double(r.self_cpu_delta_ns());
        case SelfCpuRatio:
            return r.a.self_cpu_ns > 0 ? double(r.b.self_cpu_ns) / double(r.a.self_cpu_ns)
                                       : std::numeric_limits<double>::infinity();
        case CpuTotalA: return double(r.a.cpu_total_ns);
        case CpuTotalB: return double(r.b.cpu_total_ns);
        case CpuTotalDelta: return double(r.b.cpu_total_ns - r.a.cpu_total_ns);
        case SelfDeviceA: return double(r.a.self_device_ns);
        case SelfDeviceB: return double(r.b.self_device_ns);
        case SelfDeviceDelta: return double(r.self_device_delta_ns());
        case CpuMemA: return double(r.a.cpu_memory_bytes);
        case CpuMemB: return double(r.b.cpu_memory_bytes);
        case CpuMemDelta: return double(r.b.cpu_memory_bytes - r.a.cpu_memory_bytes);
        default: return 0;
    }
}

QVariant ComparisonModel::roleData(int row_index, int c, int role) const {
    const bool delta =
        c == CallsDelta || c == SelfCpuDelta || c == CpuTotalDelta || c == SelfDeviceDelta || c == CpuMemDelta;
    if (role != Qt::ForegroundRole || !delta) return {};
    const double v = value(row_index, c);
    if (v > 0) return QBrush(QColor(180, 30, 30));
    if (v < 0) return QBrush(QColor(20, 130, 50));
    return {};
}

QString ComparisonModel::text(int row_index, int c) const {
    const OperatorDiffRow& r = row(row_index);
    auto signed_text = [](double v, const QString& text) { return v > 0 ? QStringLiteral("+") + text : text; };
    const double v = value(row_index, c);
    switch (c) {
        case Name: return QString::fromStdString(r.name);
        case Shapes: return QString::fromStdString(r.input_shapes);
        case Presence: return r.in_a && r.in_b ? tr("both") : r.in_a ? tr("only A (vanished)") : tr("only B (new)");
        case CallsA:
        case CallsB: return QString::number(qlonglong(v));
        case CallsDelta: return signed_text(v, QString::number(qlonglong(v)));
        case SelfCpuRatio: return std::isfinite(v) ? QStringLiteral("%1x").arg(v, 0, 'f', 2) : QStringLiteral("-");
        case SelfCpuA:
        case SelfCpuB:
        case CpuTotalA:
        case CpuTotalB:
        case SelfDeviceA:
        case SelfDeviceB: return format_duration_ns(v);
        case SelfCpuDelta:
        case CpuTotalDelta:
        case SelfDeviceDelta: return signed_text(v, format_duration_ns(v));
        case CpuMemDelta: return signed_text(v, format_bytes(int64_t(v)));
        default: return format_bytes(int64_t(v));
    }
}

}  // namespace awb::ui
