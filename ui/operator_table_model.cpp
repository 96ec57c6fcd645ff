#include "operator_table_model.h"

#include <QPainter>

#include "format_qt.h"

namespace awb::ui {

OperatorTableModel::OperatorTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void OperatorTableModel::setRows(std::vector<OperatorRow> rows) {
    beginResetModel();
    rows_ = std::move(rows);
    totals_ = totals(rows_);
    endResetModel();
}

int OperatorTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int OperatorTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

double OperatorTableModel::raw(const OperatorRow& r, int column) const {
    switch (column) {
        case Calls: return double(r.calls);
        case SelfCpu: return double(r.self_cpu_ns);
        case SelfCpuShare: return totals_.self_cpu_ns > 0 ? double(r.self_cpu_ns) / double(totals_.self_cpu_ns) : 0;
        case CpuTotal: return double(r.cpu_total_ns);
        case CpuAvg: return r.calls > 0 ? double(r.cpu_total_ns) / double(r.calls) : 0;
        case SelfDevice: return double(r.self_device_ns);
        case DeviceTotal: return double(r.device_total_ns);
        case CpuMemory: return double(r.cpu_memory_bytes);
        case SelfCpuMemory: return double(r.self_cpu_memory_bytes);
        case DeviceMemory: return double(r.device_memory_bytes);
        case SelfDeviceMemory: return double(r.self_device_memory_bytes);
        default: return 0;
    }
}

QVariant OperatorTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(rows_.size()) || index.column() >= ColumnCount) return {};
    const OperatorRow& r = rows_[size_t(index.row())];
    const int c = index.column();
    if (role == SortRole) {
        if (c == Name) return QString::fromStdString(r.name);
        if (c == Shapes) return QString::fromStdString(r.input_shapes);
        return raw(r, c);
    }
    if (role == ShareRole) {
        if (c == SelfCpu) return raw(r, SelfCpuShare);
        if (c == SelfDevice && totals_.self_device_ns > 0) return double(r.self_device_ns) / double(totals_.self_device_ns);
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return c == Name || c == Shapes ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && c == Name) return QString::fromStdString(r.name);
    if (role != Qt::DisplayRole) return {};
    switch (c) {
        case Name: return QString::fromStdString(r.name);
        case Shapes: return QString::fromStdString(r.input_shapes);
        case Calls: return QString::number(r.calls);
        case SelfCpuShare: return QStringLiteral("%1 %").arg(raw(r, c) * 100, 0, 'f', 2);
        case SelfCpu:
        case CpuTotal:
        case CpuAvg:
        case SelfDevice:
        case DeviceTotal: return format_duration_ns(raw(r, c));
        default: return format_bytes(int64_t(raw(r, c)));
    }
}

QVariant OperatorTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return QAbstractTableModel::headerData(section, orientation, role);
    static const char* const names[ColumnCount] = {
        "Name", "Input shapes", "Calls", "Self CPU (time)", "Self CPU (%)", "CPU total (time)", "CPU avg (time)",
        "Self device (time)", "Device total (time)", "CPU mem (bytes)", "Self CPU mem (bytes)",
        "Device mem (bytes)", "Self device mem (bytes)"};
    static const char* const tips[ColumnCount] = {
        "Operator name (ProfilerStep#k folded into ProfilerStep*), as PyTorch's key_averages() names it",
        "Input shapes, when the table is grouped by shape",
        "How many times the operator ran in the recorded steps",
        "Self time: the operator's own CPU time, minus the time of the operators it called",
        "Share of \"Self CPU time total\": the sum of every row's self CPU time, so the shares add up to 100 %",
        "Total time: the operator's CPU time including everything it called",
        "CPU total divided by calls",
        "Self device time: kernels launched by this operator itself. The bar is its share of \"Self CUDA time "
        "total\", which counts each kernel, copy and set once (device rows, user annotations left out, as PyTorch's table). "
        "As in PyTorch 2.x's key_averages(), a CPU row is charged every device event linked to it, a GPU-side "
        "annotation's span included (ProfilerStep#k's on the stream)",
        "Device time of the kernels launched by this operator and everything it called",
        "Bytes allocated minus freed while the operator (and its callees) ran. As in PyTorch's key_averages(), "
        "an allocation is charged to every operator whose interval holds its timestamp, ends included: one at the "
        "very instant of a zero-length operator (aten::resolve_conj, aten::view) is charged to it too",
        "Bytes allocated minus freed by the operator itself, not its callees (the same interval rule)",
        "Device bytes allocated minus freed, including callees",
        "Device bytes allocated minus freed by the operator itself"};
    if (section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) return tr(names[section]);
    if (role == Qt::ToolTipRole) return tr(tips[section]);
    return {};
}

QString OperatorTableModel::toDelimited(const std::vector<int>& rows, QChar sep) const {
    QString out;
    for (int c = 0; c < ColumnCount; ++c) out += (c ? QString(sep) : QString()) + headerData(c, Qt::Horizontal).toString();
    out += QLatin1Char('\n');
    auto cell = [&](int r, int c) {
        // Raw numbers (ns, bytes) so that a spreadsheet can compute with them; text for names.
        QString v = c == Name || c == Shapes ? data(index(r, c)).toString() : QString::number(raw(rows_[size_t(r)], c), 'g', 15);
        if (sep == QLatin1Char(',') && (v.contains(sep) || v.contains(QLatin1Char('"'))))
            v = QLatin1Char('"') + v.replace(QLatin1String("\""), QLatin1String("\"\"")) + QLatin1Char('"');
        return v;
    };
    std::vector<int> all;
    if (rows.empty())
        for (int r = 0; r < rowCount(); ++r) all.push_back(r);
    for (int r : rows.empty() ? all : rows) {
        for (int c = 0; c < ColumnCount; ++c) out += (c ? QString(sep) : QString()) + cell(r, c);
        out += QLatin1Char('\n');
    }
    return out;
}

OperatorFilterProxy::OperatorFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(OperatorTableModel::SortRole);
    setSortLocaleAware(false);
    setFilterKeyColumn(OperatorTableModel::Name);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
}

void ShareBarDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    const QVariant share = index.data(OperatorTableModel::ShareRole);
    if (share.isValid()) {
        const double f = std::clamp(share.toDouble(), 0.0, 1.0);
        QRect bar = option.rect.adjusted(2, 3, -2, -3);
        bar.setWidth(int(bar.width() * f));
        painter->fillRect(bar, QColor(90, 160, 255, 70));
    }
    QStyledItemDelegate::paint(painter, option, index);
}

}  // namespace awb::ui
