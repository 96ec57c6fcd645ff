// The GPU time breakdown of the run on screen (its RunAnalysis::gpu; docs/inspect.md "GPU time breakdown"): a
// stacked bar per rank, device and ProfilerStep whose parts sum to the span (computation, exposed
// communication, copies and sets not hidden by either, idle), with every figure on hover, and a
// sortable table of all figures, each with its share of the span.
#pragma once

#include <QWidget>

#include <vector>

#include "analysis/gpu_breakdown.h"
#include "plot_export.h"
#include "row_table_model.h"
#include "run_view.h"

class QCustomPlot;
class QLabel;
class QTableView;

namespace awb::ui {

class GpuTimeModel : public RowTableModel<GpuBreakdown> {
    Q_OBJECT
public:
    enum Column {
        Where,
        Step,
        Span,
        Events,
        Busy,
        Computation,
        Communication,
        Memcpy,
        Memset,
        Idle,
        ExposedComm,
        ExposedMemcpy,
        ColumnCount
    };
    explicit GpuTimeModel(QObject* parent = nullptr);

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
    QVariant roleData(int row, int column, int role) const override;  // ShareRole: the bar of the span
};

// The parts a bar is made of: they partition the span.
struct GpuBarParts {
    double computation_ns, exposed_communication_ns, other_busy_ns, idle_ns;
};
GpuBarParts bar_parts(const GpuBreakdown& b);

class GpuTimeView : public QWidget, public RunView {
    Q_OBJECT
public:
    explicit GpuTimeView(QWidget* parent = nullptr);
    void showRun(const NamedRun& run, bool large) override;  // setRows(the analysis's GPU breakdown)
    void setRows(std::vector<GpuBreakdown> rows);            // empty: a CPU run or a trace without device events
    GpuTimeModel* model() const { return model_; }
    QCustomPlot* plot() const { return plot_; }
    // .png, .pdf or .jpg at a chosen size (plot_export.h; default 1600 x 900 at 2x), not the widget's
    bool exportTo(const QString& path, QString* error = nullptr, const PlotExportSize& size = {});
    int barCount() const { return int(bars_.size()); }  // the rows drawn as bars
    const GpuBreakdown& bar(int i) const { return bars_[size_t(i)]; }

private:
    void rebuildChart();
    void showReadout(QMouseEvent* e);
    GpuTimeModel* model_;
    QTableView* table_;
    QCustomPlot* plot_;
    QLabel* summary_;
    std::vector<GpuBreakdown> bars_;  // the steps, or each device's whole trace when it has no steps
};

}  // namespace awb::ui
