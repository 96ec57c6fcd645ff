#include "row_table_model.h"

namespace awb::ui {

RowTableModelBase::RowTableModelBase(std::vector<Column> columns, int name_column, QObject* parent)
    : QAbstractTableModel(parent), columns_(std::move(columns)), name_column_(name_column) {}

int RowTableModelBase::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(columns_.size());
}

QVariant RowTableModelBase::roleData(int, int, int) const { return {}; }

QVariant RowTableModelBase::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= int(columns_.size())) return {};
    const int r = index.row(), c = index.column();
    const bool is_text = columns_[size_t(c)].text;
    const bool left = is_text || columns_[size_t(c)].left;
    switch (role) {
        case Qt::DisplayRole: return text(r, c);
        case SortRole: return is_text ? QVariant(text(r, c)) : QVariant(value(r, c));
        case Qt::TextAlignmentRole: return int((left ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
        case Qt::ToolTipRole:
            if (c == name_column_) return text(r, c);
            return roleData(r, c, role);
        default: return roleData(r, c, role);
    }
}

QVariant RowTableModelBase::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return QAbstractTableModel::headerData(section, orientation, role);
    if (section < 0 || section >= int(columns_.size())) return {};
    if (role == Qt::DisplayRole) return tr(columns_[size_t(section)].title);
    if (role == Qt::ToolTipRole) return tr(columns_[size_t(section)].tooltip);
    return {};
}

}  // namespace awb::ui
