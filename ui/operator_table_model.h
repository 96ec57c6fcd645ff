// The operator table as a Qt model: formatted text for display, the raw number for sorting
// (SortRole) and each time cell's share of its column's total (ShareRole, for the bar delegate).
#pragma once

#include <QSortFilterProxyModel>
#include <QStyledItemDelegate>

#include <vector>

#include "analysis/op_columns.h"
#include "row_table_model.h"

namespace awb::ui {

// The GUI's columns of the operator table's description (analysis/op_columns.h), in its order; the
// panel hides the device columns where the run has no device time and the shapes unless grouped.
class OperatorTableModel : public RowTableModel<OperatorRow> {
    Q_OBJECT
public:
    explicit OperatorTableModel(QObject* parent = nullptr);

    static int column(OpColumn id);                     // the model's column of ID; -1 where the GUI does not show it
    static const std::vector<OpColumnInfo>& columns();  // what each model column is

    // Tab-separated text of the given source rows (all when empty), with a header line: for copy and CSV.
    QString toDelimited(const std::vector<int>& rows, QChar separator) const;

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
    QVariant roleData(int row, int column, int role) const override;  // ShareRole: the bars of the time columns
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
