// Sweep charts (QCustomPlot): median time or peak memory vs N, one curve per variant/dtype/shape of
// every sweep shown (so two sweeps overlay, each with its own marker and line style and its tag in the
// legend), p10-p90 error bars on time, log-log option with the fitted exponent in the legend (or why
// there is none), crossover markers, a read-out of the point under the mouse, and PNG/PDF export. A
// third view draws the points on the roofline (roofline_chart.h) under the roofs the sweeps measured.
// Beside the chart, the list of every sweep of the session: a check box shows or hides each, Remove
// takes the selected ones out (the window's session does both, through the signals).
#pragma once

#include <QWidget>

#include <memory>
#include <string>
#include <vector>

#include "analysis/roofline.h"
#include "analysis/sweep_analysis.h"
#include "model/sweep.h"
#include "plot_export.h"
#include "session_types.h"

class QCustomPlot;
class QComboBox;
class QCheckBox;
class QLabel;
class QListWidget;
class QPushButton;

namespace awb::ui {

class SweepChart : public QWidget {
    Q_OBJECT
public:
    enum class Metric { MedianTime, PeakMemory, Roofline };
    explicit SweepChart(QWidget* parent = nullptr);

    // Lists these sweeps (the session's, in the order they were added) and draws the shown ones; a
    // sweep's tag (or else its label) prefixes its curves when several sweeps are shown.
    void setSweeps(std::vector<LabelledSweep> sweeps);
    void addSweep(const SweepResult& sweep, const QString& label = {});  // one more, over those shown
    void setMetric(Metric m);
    void setLogLog(bool on);
    // .png, .pdf or .jpg at a chosen size (plot_export.h; default 1600 x 900 at 2x), not the widget's
    bool exportTo(const QString& path, QString* error = nullptr, const PlotExportSize& size = {});
    QCustomPlot* plot() const { return plot_; }
    int curveCount() const;
    QString legendText(int curve) const;
    // What the read-out and the tooltip say of the point at length n on graph `graph` (empty when there
    // is none): the curve, N, the value (p10-p90 for time), and where the point ran: host, device,
    // torch, CUDA and driver (each shard's in a merged sweep).
    QString pointText(int graph, double n) const;
    // The same for the roofline view's point i (in the order drawn): rate, intensity, roof, where it ran.
    QString rooflinePointText(int i) const;
    int rooflinePointCount() const { return int(roofline_points_.size()); }
    QListWidget* sweepList() const { return list_; }
    QPushButton* removeButton() const { return remove_; }

signals:
    void sweepShownChanged(int index, bool shown);   // a list check box (index into the sweeps set)
    void removeRequested(std::vector<int> indices);  // Remove: the selected sweeps

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    struct MemoryLine {  // the device's memory, drawn once under the extrapolated memory curves
        double bytes = 0;
        QString fills;  // which curve reaches it where
    };
    void rebuild();
    void rebuildList();
    QWidget* listPanel();
    void layoutLegend();
    void placeLegend();
    void plotCurves();
    void plotMemoryReach(const SweepAnalysis& analysis, const SweepSeries& series, double longest, const QColor& c,
                         MemoryLine& capacity);
    void plotCrossovers(const SweepAnalysis& analysis);
    void plotCapacity(const MemoryLine& capacity);
    std::vector<LabelledSweep> shown() const;
    void showReadout(QMouseEvent* e);
    struct GraphSource {  // a curve's points: the sweep and series they come from
        std::shared_ptr<const SweepResult> sweep;
        std::string series;
    };
    std::vector<GraphSource> graph_sources_;  // per graph index; empty sweep for drawn-only graphs
    std::vector<LabelledSweep> sweeps_;
    std::vector<Roof> roofs_;  // the roofline view's
    std::vector<RooflinePoint> roofline_points_;
    std::vector<std::shared_ptr<const SweepResult>> roofline_sweeps_;  // each roofline point's sweep
    Metric metric_ = Metric::MedianTime;
    bool log_log_ = true;
    QCustomPlot* plot_;
    QComboBox* metric_box_;
    QCheckBox* log_box_;
    QLabel* readout_;
    QListWidget* list_;
    QPushButton* remove_;
    QPushButton* save_;
};

}  // namespace awb::ui
