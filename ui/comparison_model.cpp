#include "comparison_model.h"

#include <QBrush>
#include <QColor>

#include <cmath>
#include <limits>

#include "format_qt.h"

namespace awb::ui {

ComparisonModel::ComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void ComparisonModel::setRows(std::vector<OperatorDiffRow> rows) {
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
}

int ComparisonModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int ComparisonModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

double ComparisonModel::raw(const OperatorDiffRow& r, int c) const {
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

QVariant ComparisonModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(rows_.size()) || index.column() >= ColumnCount) return {};
    const OperatorDiffRow& r = rows_[size_t(index.row())];
    const int c = index.column();
    if (role == SortRole) {
        if (c == Name) return QString::fromStdString(r.name);
        if (c == Shapes) return QString::fromStdString(r.input_shapes);
        return raw(r, c);
    }
    if (role == Qt::ToolTipRole && c == Name) return QString::fromStdString(r.name);  // the column elides long names
    const bool delta = c == CallsDelta || c == SelfCpuDelta || c == CpuTotalDelta || c == SelfDeviceDelta || c == CpuMemDelta;
    if (role == Qt::ForegroundRole && delta) {
        const double v = raw(r, c);
        if (v > 0) return QBrush(QColor(180, 30, 30));
        if (v < 0) return QBrush(QColor(20, 130, 50));
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return c == Name || c == Shapes || c == Presence ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                         : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    auto signed_text = [](double v, const QString& text) { return v > 0 ? QStringLiteral("+") + text : text; };
    const double v = raw(r, c);
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

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    static const char* const names[ColumnCount] = {
        "Name", "Input shapes", "In", "Calls A", "Calls B", "Calls B-A", "Self CPU A (time)", "Self CPU B (time)",
        "Self CPU B-A (time)", "Self CPU B/A", "CPU total A (time)", "CPU total B (time)", "CPU total B-A (time)",
        "Self device A (time)", "Self device B (time)", "Self device B-A (time)", "CPU mem A (bytes)", "CPU mem B (bytes)", "CPU mem B-A (bytes)"};
    if (role == Qt::DisplayRole) return tr(names[section]);
    if (role == Qt::ToolTipRole)
        return tr("A and B are the two runs picked above; B-A is positive (red) where B costs more. Rows are matched "
                  "by operator name (and input shapes when grouped).");
    return {};
}

}  // namespace awb::ui
