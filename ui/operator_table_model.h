// The operator table as a Qt model: formatted text for display, the raw number for sorting
// (SortRole) and each time cell's share of its column's total (ShareRole, for the bar delegate).
#pragma once

#include <QSortFilterProxyModel>
#include <QStyledItemDelegate>

#include <vector>

#include "analysis/op_table.h"
#include "row_table_model.h"

namespace awb::ui {

class OperatorTableModel : public RowTableModel<OperatorRow> {
    Q_OBJECT
public:
    enum Column {
        Name,
        Shapes,
        Calls,
        SelfCpu,
        SelfCpuShare,
        CpuTotal,
        CpuAvg,
        SelfDevice,
        DeviceTotal,
        CpuMemory,
        SelfCpuMemory,
        DeviceMemory,
        SelfDeviceMemory,
        ColumnCount
    };

    explicit OperatorTableModel(QObject* parent = nullptr);

    // Tab-separated text of the given source rows (all when empty), with a header line: for copy and CSV.
    QString toDelimited(const std::vector<int>& rows, QChar separator) const;

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
    QVariant more(int row, int column, int role) const override;  // ShareRole: the bars of the time columns
    void rowsChanged() override;

private:
    OpTableTotals totals_;
};

// Sorts on SortRole (numbers, not text), filters names case-insensitively, locale-independent.
class OperatorFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit OperatorFilterProxy(QObject* parent = nullptr);
};

// Paints each cell's ShareRole as a bar behind its text.
class ShareBarDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

}  // namespace awb::ui
