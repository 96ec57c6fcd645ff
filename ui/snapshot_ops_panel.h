// The Memory snapshot tab's Operators page: with the profile of the same run open as well (File > Open
// its chrome trace; the two clocks count from the epoch), each allocation of the snapshot is given to
// the operator running when it was made (analysis/snapshot_ops). The operators are listed by the bytes
// they hold at the peak; choosing one (a row here, or an operator selected in the Operators panel)
// lists the blocks allocated while it ran, its children's included, and the chart marks them.
#pragma once

#include <QWidget>

#include <map>
#include <memory>
#include <vector>

#include "analysis/snapshot_ops.h"
#include "row_table_model.h"
#include "snapshot_shown.h"

class QLabel;
class QTableView;

namespace awb::ui {

class LinesLabel;

// What the page shows, shared by its two tables: the snapshot's replay (the filter's peak), the trace
// and the allocations given to its operators.
struct SnapshotOpsShown {
    std::shared_ptr<const SnapshotShown> shown;
    std::shared_ptr<const Trace> trace;
    std::shared_ptr<const SnapshotOps> ops;
    AllocsAtPeak at_peak;
};

class OpMemoryModel : public RowTableModel<OpMemoryRow> {
    Q_OBJECT
public:
    enum Column { AtPeak, BlocksAtPeak, Allocated, Allocations, Operator, ColumnCount };
    explicit OpMemoryModel(QObject* parent = nullptr);

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
};

class OpBlockModel : public RowTableModel<OpAllocation> {
    Q_OBJECT
public:
    enum Column { Allocated, Time, Size, AtPeak, MadeBy, AllocatedBy, Stack, ColumnCount };
    explicit OpBlockModel(QObject* parent = nullptr);
    void setAllocations(std::shared_ptr<const SnapshotOpsShown> shown, std::vector<OpAllocation> rows);

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
    QVariant roleData(int row, int column, int role) const override;

private:
    const SnapshotEvent& event(int row) const;
    std::shared_ptr<const SnapshotOpsShown> shown_;
};

class SnapshotOpsPanel : public QWidget {
    Q_OBJECT
public:
    explicit SnapshotOpsPanel(QWidget* parent = nullptr);
    // The snapshot's replay (null: none open), and the trace of the same run (null: none open). The
    // allocations are given to operators again when either changes, off the GUI thread when large.
    void setShown(std::shared_ptr<const SnapshotShown> shown);
    void setTrace(std::shared_ptr<const Trace> trace, const QString& name);
    void showOperator(const QString& name);  // "" : none
    QString currentOperator() const { return op_; }
    QTableView* operatorTable() const { return op_view_; }
    QTableView* blockTable() const { return block_view_; }
    QLabel* status() const;
    int operatorCount() const;

    // The chosen operator's allocations on DEVICE (alloc events of its trace), to mark in the chart.
    std::vector<int64_t> marks(int device) const;
    // The positions of DEVICE's event axis the trace covers (TracePeak::first_x, last_x); {-1, -1}: none.
    std::pair<int64_t, int64_t> traceSpan(int device) const;

signals:
    void updated();  // the page shows what it was last given (the marks too)

private:
    void attribute();
    void display();
    void showBlocks();

    std::shared_ptr<const SnapshotShown> shown_;
    std::shared_ptr<const Trace> trace_;
    QString trace_name_;
    std::shared_ptr<const SnapshotOps> ops_;
    const MemorySnapshot* ops_snapshot_ = nullptr;  // what ops_ was made from
    const Trace* ops_trace_ = nullptr;
    std::shared_ptr<const SnapshotOpsShown> page_;
    QString op_;
    std::map<int, std::vector<int64_t>> marks_;  // by device
    std::vector<TracePeak> peaks_;               // trace_peaks of shown_ and trace_, made with ops_
    int generation_ = 0;
    LinesLabel* status_;
    LinesLabel* op_status_;
    OpMemoryModel* ops_model_;
    OpBlockModel* blocks_model_;
    QTableView* op_view_;
    QTableView* block_view_;
};

}  // namespace awb::ui
