// The Attention tab: every attention call of the run on screen (analysis/attention.h) in a sortable
// table, with its shapes, backend, pass, causal flag, CPU and device time, FLOPs and rates. Selecting
// a call selects its op in the timeline and zooms to it.
#pragma once

#include <QWidget>

#include <vector>

#include "analysis/attention.h"
#include "roofline_chart.h"
#include "row_table_model.h"

class QLabel;
class QTableView;
class QSortFilterProxyModel;

namespace awb::ui {

class AttentionTableModel : public RowTableModel<AttentionInstance> {
    Q_OBJECT
public:
    enum Column { Backend, Pass, Batch, HeadsQ, HeadsKv, SeqQ, SeqK, HeadDim, Dtype, Causal, Start, Cpu, Device, Kernels, Flops, Tflops, Gbs,
                  RoofShare, Bytes, ColumnCount };
    explicit AttentionTableModel(QObject* parent = nullptr);
    void setBegin(int64_t begin_ns) { begin_ns_ = begin_ns; }  // the trace's start, for the Start column
    void setRoofs(std::vector<Roof> roofs) { roofs_ = std::move(roofs); }  // before setRows: the % of roof column

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
    void rowsChanged() override;

private:
    int64_t begin_ns_ = 0;
    std::vector<Roof> roofs_;
    std::vector<RoofFit> fits_;  // per row
};

class AttentionView : public QWidget {
    Q_OBJECT
public:
    explicit AttentionView(QWidget* parent = nullptr);
    // The run's calls and roofs (from its RunAnalysis); begin_ns: the trace's start, for the Start column.
    void setCalls(std::vector<AttentionInstance> calls, std::vector<Roof> roofs, int64_t begin_ns);
    AttentionTableModel* model() const { return model_; }
    QTableView* table() const { return view_; }
    RooflineChart* roofline() const { return roofline_; }

signals:
    void callSelected(int event, qint64 start_ns, qint64 end_ns);  // the call's op (index into the trace's events)

private:
    AttentionTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* view_;
    QLabel* summary_;
    RooflineChart* roofline_;
};

}  // namespace awb::ui
