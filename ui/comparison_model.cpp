#include "comparison_model.h"

#include <QBrush>
#include <QColor>

namespace awb::ui {

namespace {

std::vector<RowTableModelBase::Column> diff_model_columns() {
    std::vector<RowTableModelBase::Column> out;
    for (const DiffColumnInfo& c : ComparisonModel::columns())
        out.push_back({c.title, c.tooltip, c.unit == CellUnit::Text, c.unit == CellUnit::Label});
    return out;
}

}  // namespace

ComparisonModel::ComparisonModel(QObject* parent)
    : RowTableModel(diff_model_columns(), column(DiffColumn::Name), parent) {}

const std::vector<DiffColumnInfo>& ComparisonModel::columns() {
    static const std::vector<DiffColumnInfo> shown = diff_columns_in(kInGui);
    return shown;
}

int ComparisonModel::column(DiffColumn id) {
    const auto& all = columns();
    for (size_t c = 0; c < all.size(); ++c)
        if (all[c].id == id) return int(c);
    return -1;
}

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
