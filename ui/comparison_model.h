// Two runs' operator tables joined by name (and shapes): values of A and B, the delta and the ratio,
// sortable on the raw numbers; deltas coloured (red: B costs more).
#pragma once

#include <vector>

#include "analysis/op_diff_columns.h"
#include "row_table_model.h"

namespace awb::ui {

class ComparisonModel : public RowTableModel<OperatorDiffRow> {
    Q_OBJECT
public:
    // The model's columns: the GUI's of the description (analysis/op_diff_columns.h), in its order.
    static int column(DiffColumn id);
    static const std::vector<DiffColumnInfo>& columns();

    explicit ComparisonModel(QObject* parent = nullptr);

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
    QVariant roleData(int row, int column,
                      int role) const override;  // ForegroundRole: deltas red (B costs more) or green
};

}  // namespace awb::ui
