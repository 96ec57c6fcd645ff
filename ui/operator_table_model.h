// The operator table as a Qt model: formatted text for display, the raw number for sorting
// (SortRole) and each time cell's share of its column's total (ShareRole, for the bar delegate).
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QStyledItemDelegate>

#include <vector>

#include "analysis/op_table.h"

namespace awb::ui {

class OperatorTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Shapes, Calls, SelfCpu, SelfCpuShare, CpuTotal, CpuAvg, SelfDevice, DeviceTotal,
                  CpuMemory, SelfCpuMemory, DeviceMemory, SelfDeviceMemory, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, ShareRole };

    explicit OperatorTableModel(QObject* parent = nullptr);
    void setRows(std::vector<OperatorRow> rows);
    const std::vector<OperatorRow>& rows() const { return rows_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Tab-separated text of the given source rows (all when empty), with a header line: for copy and CSV.
    QString toDelimited(const std::vector<int>& rows, QChar separator) const;

private:
    double raw(const OperatorRow& r, int column) const;
    std::vector<OperatorRow> rows_;
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
