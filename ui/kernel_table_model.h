// The kernel table (kernels, copies and sets of a trace with device events, grouped by name and
// launch configuration) as a Qt model, and the panel that shows it sorted and filtered.
#pragma once

#include <QAbstractTableModel>
#include <QWidget>

#include <memory>
#include <vector>

#include "analysis/kernel_table.h"

class QLineEdit;
class QLabel;
class QTableView;

namespace awb::ui {

class OperatorFilterProxy;

class KernelTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Kind, Calls, Total, Share, Avg, Min, Max, Grid, Block, Registers, SharedMemory, Occupancy, Bytes, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;  // the same role the operator table sorts on
    static constexpr int ShareRole = Qt::UserRole + 2;

    explicit KernelTableModel(QObject* parent = nullptr);
    void setRows(std::vector<KernelRow> rows);
    const std::vector<KernelRow>& rows() const { return rows_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    double raw(const KernelRow& r, int column) const;  // -1 where the trace has no value
    std::vector<KernelRow> rows_;
    int64_t total_ns_ = 0;
};

class KernelPanel : public QWidget {
    Q_OBJECT
public:
    explicit KernelPanel(QWidget* parent = nullptr);
    KernelTableModel* model() const { return model_; }
    OperatorFilterProxy* proxy() const { return proxy_; }
    void setRows(std::vector<KernelRow> rows);  // a run's kernel table (from its RunAnalysis)

signals:
    void kernelSelected(const QString& name);  // to highlight its events in the timeline

private:
    KernelTableModel* model_;
    OperatorFilterProxy* proxy_;
    QTableView* view_;
    QLineEdit* filter_;
    QLabel* summary_;
};

}  // namespace awb::ui
