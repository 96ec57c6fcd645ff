// The base of the workbench's tables (operators, kernels, the comparison): a vector of the core's rows
// under a fixed set of columns, each with a title and a tooltip. It answers Qt's questions the same
// way for all of them: the raw number (or the text of a text column) for sorting under SortRole,
// names and other text columns left-aligned and numbers right-aligned, the full name as the name
// column's tooltip (the view elides it in the middle). A subclass says what its cells hold.
#pragma once

#include <QAbstractTableModel>

#include <utility>
#include <vector>

#include "model/table_cells.h"

namespace awb::ui {

class RowTableModelBase : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role { SortRole = Qt::UserRole + 1, ShareRole };  // one proxy sorts, one delegate paints, every table

    struct Column {
        const char* title;    // translated through tr()
        const char* tooltip;  // idem
        bool text = false;    // left-aligned; sorts on its display text
        bool left = false;    // left-aligned, but sorts on value() (a label standing for a number)
    };

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

protected:
    RowTableModelBase(std::vector<Column> columns, int name_column, QObject* parent);
    virtual QString text(int row, int column) const = 0;  // what the cell shows
    virtual double value(int row, int column) const = 0;  // what a number column sorts on
    // Any other role of a cell (ShareRole, ForegroundRole, ...); nothing by default.
    virtual QVariant roleData(int row, int column, int role) const;

private:
    std::vector<Column> columns_;
    int name_column_;
};

// A model's columns from a table's description (core/analysis/*_columns.h): each info's title and
// tooltip; text columns sort on their text, labels on their number, both left-aligned.
template <typename Info>
std::vector<RowTableModelBase::Column> described_columns(const std::vector<Info>& infos) {
    std::vector<RowTableModelBase::Column> out;
    for (const Info& c : infos)
        out.push_back({c.title, c.tooltip, c.unit == CellUnit::Text, c.unit == CellUnit::Label});
    return out;
}

// The model column of ID among INFOS; -1 where the model does not show it.
template <typename Info, typename Id>
int described_column(const std::vector<Info>& infos, Id id) {
    for (size_t c = 0; c < infos.size(); ++c)
        if (infos[c].id == id) return int(c);
    return -1;
}

template <typename Row>
class RowTableModel : public RowTableModelBase {
public:
    void setRows(std::vector<Row> rows) {
        beginResetModel();
        rows_ = std::move(rows);
        rowsChanged();
        endResetModel();
    }
    const std::vector<Row>& rows() const { return rows_; }
    int rowCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : int(rows_.size()); }

protected:
    using RowTableModelBase::RowTableModelBase;
    virtual void rowsChanged() {}  // totals that shares are of
    const Row& row(int r) const { return rows_[size_t(r)]; }
    std::vector<Row> rows_;
};

}  // namespace awb::ui
