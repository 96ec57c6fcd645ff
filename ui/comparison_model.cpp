#include "comparison_model.h"

#include <QBrush>
#include <QColor>

namespace awb::ui {

ComparisonModel::ComparisonModel(QObject* parent)
    : RowTableModel(described_columns(columns()), column(DiffColumn::Name), parent) {}

const std::vector<DiffColumnInfo>& ComparisonModel::columns() {
    static const std::vector<DiffColumnInfo> shown = columns_in(diff_columns(), kInGui);
    return shown;
}

int ComparisonModel::column(DiffColumn id) { return described_column(columns(), id); }

double ComparisonModel::value(int row_index, int c) const {
    return diff_value(row(row_index), columns()[size_t(c)].id);
}

QVariant ComparisonModel::roleData(int row_index, int c, int role) const {
    if (role != Qt::ForegroundRole || !columns()[size_t(c)].delta) return {};
    const double v = value(row_index, c);
    if (v > 0) return QBrush(QColor(180, 30, 30));
    if (v < 0) return QBrush(QColor(20, 130, 50));
    return {};
}

QString ComparisonModel::text(int row_index, int c) const {
    return QString::fromStdString(diff_cell(row(row_index), columns()[size_t(c)].id));
}

}  // namespace awb::ui
