// Two runs' operator tables joined by name (and shapes): values of A and B, the delta and the ratio,
// sortable on the raw numbers; deltas coloured (red: B costs more).
#pragma once

#include <vector>

#include "analysis/op_diff.h"
#include "row_table_model.h"

namespace awb::ui {

class ComparisonModel : public RowTableModel<OperatorDiffRow> {
    Q_OBJECT
public:
    enum Column {
        Name,
        Shapes,
        Presence,
        CallsA,
        CallsB,
        CallsDelta,
        SelfCpuA,
        SelfCpuB,
        SelfCpuDelta,
        SelfCpuRatio,
        CpuTotalA,
        CpuTotalB,
        CpuTotalDelta,
        SelfDeviceA,
        SelfDeviceB,
        SelfDeviceDelta,
        CpuMemA,
        CpuMemB,
        CpuMemDelta,
        ColumnCount
    };

    explicit ComparisonModel(QObject* parent = nullptr);

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
    QVariant roleData(int row, int column,
                      int role) const override;  // ForegroundRole: deltas red (B costs more) or green
};

}  // namespace awb::ui
