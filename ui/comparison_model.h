// Two runs' operator tables joined by name (and shapes): values of A and B, the delta and the ratio,
// sortable on the raw numbers; deltas coloured (red: B costs more).
#pragma once

#include <QAbstractTableModel>

#include <vector>

#include "analysis/op_diff.h"

namespace awb::ui {

class ComparisonModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Shapes, Presence, CallsA, CallsB, CallsDelta, SelfCpuA, SelfCpuB, SelfCpuDelta, SelfCpuRatio,
                  CpuTotalA, CpuTotalB, CpuTotalDelta, SelfDeviceA, SelfDeviceB, SelfDeviceDelta, CpuMemA, CpuMemB, CpuMemDelta, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit ComparisonModel(QObject* parent = nullptr);
    void setRows(std::vector<OperatorDiffRow> rows);
    const std::vector<OperatorDiffRow>& rows() const { return rows_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    double raw(const OperatorDiffRow& r, int column) const;
    std::vector<OperatorDiffRow> rows_;
};

}  // namespace awb::ui
