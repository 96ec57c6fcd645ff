// The Attention tab: every attention call of the run on screen (analysis/attention.h) in a sortable
// table: whose it is (SDPA, manual, vLLM, SGLang, FlashInfer, ...), its layout and shapes, backend,
// pass, causal flag, CPU and device time and its share of its step's GPU time, FLOPs and rates, and
// why a number is unknown. Selecting a call selects its op in the timeline and zooms to it.
#pragma once

#include <QWidget>

#include <vector>

#include "analysis/attention.h"
#include "analysis/attention_columns.h"
#include "analysis/gpu_breakdown.h"
#include "roofline_chart.h"
#include "row_table_model.h"
#include "run_view.h"

class QLabel;
class QTableView;
class QSortFilterProxyModel;

namespace awb::ui {

class AttentionTableModel : public RowTableModel<AttentionInstance> {
    Q_OBJECT
public:
    // The model's columns: the GUI's of the description (analysis/attention_columns.h), in its order.
    static int column(AttentionColumn id);
    static const std::vector<AttentionColumnInfo>& columns();

    explicit AttentionTableModel(QObject* parent = nullptr);
    void setBegin(int64_t begin_ns) { begin_ns_ = begin_ns; }              // the trace's start, for the Start column
    void setRoofs(std::vector<Roof> roofs) { roofs_ = std::move(roofs); }  // before setRows: the % of roof column

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
    QVariant roleData(int row, int column, int role) const override;  // the notes' full text as tooltips
    void rowsChanged() override;

private:
    AttentionCellContext context(int row) const;
    int64_t begin_ns_ = 0;
    std::vector<Roof> roofs_;
    std::vector<AttentionGroup>
        groups_;                 // per row: a group of one call (AttentionGroup::of), as the description reads rows
    std::vector<RoofFit> fits_;  // per row
};

class AttentionView : public QWidget, public RunView {
    Q_OBJECT
public:
    explicit AttentionView(QWidget* parent = nullptr);
    void showRun(const NamedRun& run, bool large) override;  // setCalls from the analysis (chart later when large)
    // The run's calls and roofs (from its RunAnalysis); begin_ns: the trace's start, for the Start column;
    // gpu: the run's GPU time breakdown, for the attention's share of the GPUs' busy time.
    // chart_later: the roofline drawn in a later event-loop turn (a large trace's window stays live).
    void setCalls(std::vector<AttentionInstance> calls, std::vector<Roof> roofs, int64_t begin_ns,
                  const std::vector<GpuBreakdown>& gpu = {}, bool chart_later = false);
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
    int generation_ = 0;  // of the calls: a chart queued for older ones is dropped
};

}  // namespace awb::ui
