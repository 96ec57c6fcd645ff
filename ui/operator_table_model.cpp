#include "operator_table_model.h"

#include <QPainter>

#include "format_qt.h"

namespace awb::ui {

OperatorTableModel::OperatorTableModel(QObject* parent)
    : RowTableModel(
          {
              {"Name", "Operator name (ProfilerStep#k folded into ProfilerStep*), as PyTorch's key_averages() names it",
               true},
              {"Input shapes", "Input shapes, when the table is grouped by shape", true},
              {"Calls", "How many times the operator ran in the recorded steps"},
              {"Self CPU (time)", "Self time: the operator's own CPU time, minus the time of the operators it called"},
              {"Self CPU (%)",
               "Share of \"Self CPU time total\": the sum of every row's self CPU time, so the shares add up to 100 %"},
              {"CPU total (time)", "Total time: the operator's CPU time including everything it called"},
              {"CPU avg (time)", "CPU total divided by calls"},
              {"Self device (time)",
               "Self device time: kernels launched by this operator itself. The bar is its share of \"Self CUDA time "
               "total\", which counts each kernel, copy and set once (device rows, user annotations left out, as "
               "PyTorch's table). "
               "As in PyTorch 2.x's key_averages(), a CPU row is charged every device event linked to it, a GPU-side "
               "annotation's span included (ProfilerStep#k's on the stream)"},
              {"Device total (time)", "Device time of the kernels launched by this operator and everything it called"},
              {"CPU mem (bytes)",
               "Bytes allocated minus freed while the operator (and its callees) ran. As in PyTorch's key_averages(), "
               "an allocation is charged to every operator whose interval holds its timestamp, ends included: one at "
               "the "
               "very instant of a zero-length operator (aten::resolve_conj, aten::view) is charged to it too"},
              {"Self CPU mem (bytes)",
               "Bytes allocated minus freed by the operator itself, not its callees (the same interval rule)"},
              {"Device mem (bytes)", "Device bytes allocated minus freed, including callees"},
              {"Self device mem (bytes)", "Device bytes allocated minus freed by the operator itself"},
          },
          Name, parent) {}

void OperatorTableModel::rowsChanged() { totals_ = totals(rows_); }

double OperatorTableModel::value(int row_index, int column) const {
    const OperatorRow& r = row(row_index);
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

QString OperatorTableModel::text(int row_index, int c) const {
    const OperatorRow& r = row(row_index);
    switch (c) {
        case Name: return QString::fromStdString(r.name);
        case Shapes: return QString::fromStdString(r.input_shapes);
        case Calls: return QString::number(r.calls);
        case SelfCpuShare: return QStringLiteral("%1 %").arg(value(row_index, c) * 100, 0, 'f', 2);
        case SelfCpu:
        case CpuTotal:
        case CpuAvg:
        case SelfDevice:
        case DeviceTotal: return format_duration_ns(value(row_index, c));
        default: return format_bytes(int64_t(value(row_index, c)));
    }
}

QVariant OperatorTableModel::more(int row_index, int c, int role) const {
    if (role != ShareRole) return {};
    if (c == SelfCpu) return value(row_index, SelfCpuShare);
    if (c == SelfDevice && totals_.self_device_ns > 0)
        return double(row(row_index).self_device_ns) / double(totals_.self_device_ns);
    return {};
}

QString OperatorTableModel::toDelimited(const std::vector<int>& rows, QChar sep) const {
    QString out;
    for (int c = 0; c < ColumnCount; ++c)
        out += (c ? QString(sep) : QString()) + headerData(c, Qt::Horizontal).toString();
    out += QLatin1Char('\n');
    auto cell = [&](int r, int c) {
        // Raw numbers (ns, bytes) so that a spreadsheet can compute with them; text for names.
        QString v = c == Name || c == Shapes ? text(r, c) : QString::number(value(r, c), 'g', 15);
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
