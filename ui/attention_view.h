// The Attention tab: every attention call of the run on screen (analysis/attention.h) in a sortable
// table, with its shapes, backend, pass, causal flag, CPU and device time, FLOPs and rates. Selecting
// a call selects its op in the timeline and zooms to it.
#pragma once

#include <QWidget>

#include <vector>

#include "analysis/attention.h"
#include "row_table_model.h"

class QLabel;
class QTableView;
class QSortFilterProxyModel;

namespace awb::ui {

class AttentionTableModel : public RowTableModel<AttentionInstance> {
    Q_OBJECT
public:
    enum Column { Backend, Pass, Batch, HeadsQ, HeadsKv, SeqQ, SeqK, HeadDim, Dtype, Causal, Start, Cpu, Device, Kernels, Flops, Tflops, Gbs, ColumnCount };
    explicit AttentionTableModel(QObject* parent = nullptr);
    void setBegin(int64_t begin_ns) { begin_ns_ = begin_ns; }  // the trace's start, for the Start column

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;

private:
    int64_t begin_ns_ = 0;
};

class AttentionView : public QWidget {
    Q_OBJECT
public:
    explicit AttentionView(QWidget* parent = nullptr);
    // The run's calls (from its RunAnalysis); begin_ns: the trace's start, for the Start column.
    void setCalls(std::vector<AttentionInstance> calls, int64_t begin_ns);
    AttentionTableModel* model() const { return model_; }
    QTableView* table() const { return view_; }

signals:
    void callSelected(int event, qint64 start_ns, qint64 end_ns);  // the call's op (index into the trace's events)

private:
    AttentionTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* view_;
    QLabel* summary_;
};

}  // namespace awb::ui
