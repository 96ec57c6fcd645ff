#include "operator_table_model.h"

#include <QPainter>

namespace awb::ui {

OperatorTableModel::OperatorTableModel(QObject* parent)
    : RowTableModel(described_columns(columns()), column(OpColumn::Name), parent) {}

const std::vector<OpColumnInfo>& OperatorTableModel::columns() {
    static const std::vector<OpColumnInfo> shown = op_columns_in(kInGui, kNeedsDevice | kNeedsMemory | kNeedsShapes);
    return shown;
}

int OperatorTableModel::column(OpColumn id) { return described_column(columns(), id); }

void OperatorTableModel::rowsChanged() { totals_ = totals(rows_); }

double OperatorTableModel::value(int row_index, int c) const {
    return op_value(row(row_index), columns()[size_t(c)].id, totals_);
}

QString OperatorTableModel::text(int row_index, int c) const {
    const OpColumnInfo& info = columns()[size_t(c)];
    if (info.unit == CellUnit::Text) return QString::fromStdString(op_text(row(row_index), info.id));
    return QString::fromStdString(format_cell(value(row_index, c), info.unit));
}

QVariant OperatorTableModel::roleData(int row_index, int c, int role) const {
    if (role != ShareRole) return {};
    const OpColumn id = columns()[size_t(c)].id;
    if (id == OpColumn::SelfCpu) return op_value(row(row_index), OpColumn::SelfCpuShare, totals_);
    if (id == OpColumn::SelfDevice && totals_.self_device_ns > 0)
        return op_value(row(row_index), OpColumn::SelfDeviceShare, totals_);
    return {};
}

QString OperatorTableModel::toDelimited(const std::vector<int>& rows, QChar sep) const {
    QString out;
    for (int c = 0; c < columnCount(); ++c)
        out += (c ? QString(sep) : QString()) + headerData(c, Qt::Horizontal).toString();
    out += QLatin1Char('\n');
    auto cell = [&](int r, int c) {
        // Raw numbers (ns, bytes) so that a spreadsheet can compute with them; text for names.
        QString v = columns()[size_t(c)].unit == CellUnit::Text ? text(r, c) : QString::number(value(r, c), 'g', 15);
        if (sep == QLatin1Char(',') && (v.contains(sep) || v.contains(QLatin1Char('"'))))
            v = QLatin1Char('"') + v.replace(QLatin1String("\""), QLatin1String("\"\"")) + QLatin1Char('"');
        return v;
    };
    std::vector<int> all;
    if (rows.empty())
        for (int r = 0; r < rowCount(); ++r) all.push_back(r);
    for (int r : rows.empty() ? all : rows) {
        for (int c = 0; c < columnCount(); ++c) out += (c ? QString(sep) : QString()) + cell(r, c);
        out += QLatin1Char('\n');
    }
    return out;
}

OperatorFilterProxy::OperatorFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(OperatorTableModel::SortRole);
    setSortLocaleAware(false);
    setFilterKeyColumn(OperatorTableModel::column(OpColumn::Name));
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
