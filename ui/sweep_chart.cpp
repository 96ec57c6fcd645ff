#include "sweep_chart.h"

#include <QCheckBox>
#include <QComboBox>
#include <QListWidget>
#include <QShortcut>
#include <QSplitter>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include "plot_export.h"

#include <cmath>

#include "analysis/results_text.h"
#include "analysis/sweep_analysis.h"
#include "model/sweep_merge.h"
#include "format_qt.h"
#include "roofline_chart.h"
#include "run_modules.h"

namespace awb::ui {

namespace {

const char* metric_key(SweepChart::Metric m) {
    return m == SweepChart::Metric::MedianTime ? "median_time" : "peak_memory";
}

// "ran on gpu-node-3: NVIDIA H200 (cuda:0), torch 2.11.0, CUDA 13.0, driver 580.65"
QString ran_on_text(const Environment& e) {
    QString text = QObject::tr("ran on %1: %2")
                       .arg(QString::fromStdString(e.host.empty() ? "?" : e.host),
                            QString::fromStdString(e.device_name.empty() ? e.device : e.device_name));
    if (!e.device.empty() && !e.device_name.empty())
        text += QStringLiteral(" (%1)").arg(QString::fromStdString(e.device));
    if (!e.torch_version.empty()) text += QObject::tr(", torch %1").arg(QString::fromStdString(e.torch_version));
    if (!e.cuda_version.empty()) text += QObject::tr(", CUDA %1").arg(QString::fromStdString(e.cuda_version));
    if (!e.driver_version.empty()) text += QObject::tr(", driver %1").arg(QString::fromStdString(e.driver_version));
    if (const QString modules = environment_modules_text(e); !modules.isEmpty()) text += QLatin1Char('\n') + modules;
    return text;
}

}  // namespace

SweepChart::SweepChart(QWidget* parent)
    : QWidget(parent),
      plot_(new QCustomPlot),
      metric_box_(new QComboBox),
      log_box_(new QCheckBox(tr("Log-log"))),
      readout_(new QLabel),
      list_(new QListWidget),
      remove_(new QPushButton(tr("Remove"))),
      save_(new QPushButton(tr("Export..."))) {
    save_->setToolTip(tr("The chart as PNG or PDF"));
    metric_box_->addItem(tr("Median time vs N (bars: p10-p90)"));
    metric_box_->addItem(tr("Peak memory vs N"));
    metric_box_->addItem(tr("Roofline (TFLOP/s vs FLOP/byte)"));
    metric_box_->setItemData(
        2,
        tr("Each point's achieved rate at its arithmetic intensity (FLOPs over ideal bytes), under the roof "
           "measured in the sweep (CPU) or the GPU's datasheet roof"),
        Qt::ToolTipRole);
    log_box_->setChecked(log_log_);
    log_box_->setToolTip(tr("Both axes logarithmic: a power law N^k is a straight line of slope k"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(listPanel());  // the controls and the list beside the chart: all the dock's height is the chart's
    split->addWidget(plot_);
    split->setStretchFactor(1, 1);
    split->setSizes({230, 800});
    layout->addWidget(split, 1);
    readout_->setWordWrap(true);
    readout_->setFont(QFont(font().family(), 8));
    readout_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // a long read-out never widens the dock
    layoutLegend();
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->setMinimumHeight(150);  // the Sweep charts dock at 1000x700 shows ~190 px
    connect(metric_box_, &QComboBox::currentIndexChanged, this, [this](int i) {
        setMetric(i == 0 ? Metric::MedianTime : i == 1 ? Metric::PeakMemory : Metric::Roofline);
    });
    connect(log_box_, &QCheckBox::toggled, this, &SweepChart::setLogLog);
    connect(plot_, &QCustomPlot::mouseMove, this, &SweepChart::showReadout);
    connect(save_, &QPushButton::clicked, this,
            [this] { export_plot_interactively(this, plot_, tr("Export chart"), QStringLiteral("sweep.png")); });
    rebuild();
}

// Beside the chart: what it shows (metric, log-log, export), the read-out of the point under the mouse,
// and the list of sweeps (check: on the chart) over its Remove button.
QWidget* SweepChart::listPanel() {
    auto* panel = new QWidget;
    auto* v = new QVBoxLayout(panel);
    v->setContentsMargins(0, 0, 0, 0);
    v->addWidget(metric_box_);
    auto* row = new QHBoxLayout;
    row->addWidget(log_box_);
    row->addStretch(1);
    row->addWidget(save_);
    v->addLayout(row);
    v->addWidget(readout_);
    v->addWidget(new QLabel(tr("Sweeps (checked: on the chart)")));
    v->addWidget(list_, 1);
    v->addWidget(remove_);
    list_->setMinimumHeight(36);  // two rows: the panel never makes the dock scroll
    list_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    list_->setToolTip(
        tr("Every sweep of this window: opened, run here or restored with the workspace. Check the ones to "
           "show together; select and Remove to take them out."));
    remove_->setToolTip(
        tr("Removes the selected sweeps from this window (File > Save sweep still saves the last sweep run here)"));
    remove_->setEnabled(false);
    auto* del = new QShortcut(QKeySequence::Delete, list_, nullptr, nullptr, Qt::WidgetShortcut);
    connect(del, &QShortcut::activated, remove_, &QPushButton::click);
    connect(list_, &QListWidget::itemSelectionChanged, this,
            [this] { remove_->setEnabled(!list_->selectedItems().isEmpty()); });
    connect(list_, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
        const int i = list_->row(item);
        if (i >= 0 && size_t(i) < sweeps_.size() && sweeps_[size_t(i)].shown != (item->checkState() == Qt::Checked))
            emit sweepShownChanged(i, item->checkState() == Qt::Checked);
    });
    connect(remove_, &QPushButton::clicked, this, [this] {
        std::vector<int> rows;
        for (const QListWidgetItem* item : list_->selectedItems()) rows.push_back(list_->row(item));
        if (!rows.empty()) emit removeRequested(rows);
    });
    return panel;
}

// The legend in a column right of the axes, never over a point (and the axes keep the dock's height);
// more curves than fit the height wrap into further columns (placeLegend).
void SweepChart::layoutLegend() {
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    auto* side = new QCPLayoutGrid;  // the legend at the top of its column, at its own height
    plot_->plotLayout()->addElement(0, 1, side);
    plot_->plotLayout()->setColumnStretchFactor(1, 0.001);
    side->addElement(0, 0, plot_->legend);
    side->addElement(1, 0, new QCPLayoutElement(plot_));
    side->setRowStretchFactor(0, 0.001);
    side->setRowSpacing(0);
    plot_->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
    plot_->legend->setFont(QFont(font().family(), 8));
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->legend->setRowSpacing(0);
    plot_->legend->setMargins(QMargins(4, 2, 2, 2));
    plot_->legend->setVisible(true);
}

void SweepChart::placeLegend() {
    const int row = QFontMetrics(plot_->legend->font()).height() + 2;
    plot_->legend->setWrap(std::max(1, (plot_->height() - 8) / row));
}

void SweepChart::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    placeLegend();
    plot_->replot();
}

void SweepChart::setSweeps(std::vector<LabelledSweep> sweeps) {
    sweeps_ = std::move(sweeps);
    for (LabelledSweep& s : sweeps_)  // one given without its analysis gets it here, once
        if (!s.analysis) s = labelled_sweep(s.label, s.sweep, s.shown, s.tag);
    rebuildList();
    rebuild();
}

void SweepChart::addSweep(const SweepResult& sweep, const QString& label) {
    sweeps_.push_back(labelled_sweep(label, std::make_shared<const SweepResult>(sweep)));
    rebuildList();
    rebuild();
}

void SweepChart::rebuildList() {
    const QSignalBlocker quiet(list_);
    auto name_of = [](const LabelledSweep& s) {
        return s.tag.isEmpty() ? s.label : s.tag + QStringLiteral("  ") + s.label;
    };
    bool same = list_->count() == int(sweeps_.size());
    for (int i = 0; same && i < list_->count(); ++i) same = list_->item(i)->text() == name_of(sweeps_[size_t(i)]);
    if (!same) {  // a check box toggled keeps its items (the list may be inside that item's signal)
        list_->clear();
        for (const LabelledSweep& s : sweeps_) {
            auto* item = new QListWidgetItem(name_of(s), list_);
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
        }
    }
    for (int i = 0; i < list_->count(); ++i) {
        const LabelledSweep& s = sweeps_[size_t(i)];
        QListWidgetItem* item = list_->item(i);
        item->setCheckState(s.shown ? Qt::Checked : Qt::Unchecked);
        item->setToolTip(QStringLiteral("%1\n%2\n%3")
                             .arg(s.label, QString::fromStdString(sweep_count_text(*s.sweep)),
                                  QString::fromStdString(s.sweep->environment.device_name)));
    }
    remove_->setEnabled(!list_->selectedItems().isEmpty());
}

std::vector<LabelledSweep> SweepChart::shown() const {
    std::vector<LabelledSweep> out;
    for (const LabelledSweep& s : sweeps_)
        if (s.shown) out.push_back(s);
    return out;
}

void SweepChart::setMetric(Metric m) {
    metric_ = m;
    metric_box_->setCurrentIndex(m == Metric::MedianTime ? 0 : m == Metric::PeakMemory ? 1 : 2);
    rebuild();
}

void SweepChart::setLogLog(bool on) {
    log_log_ = on;
    log_box_->setChecked(on);
    rebuild();
}

int SweepChart::curveCount() const { return plot_->graphCount(); }
QString SweepChart::legendText(int curve) const {
    return curve < plot_->graphCount() ? plot_->graph(curve)->name() : QString();
}

namespace {

// What tells the sweeps apart on the chart: each shown sweep's marker and line style.
QCPScatterStyle::ScatterShape sweep_marker(size_t k) {
    static const QCPScatterStyle::ScatterShape shapes[] = {
        QCPScatterStyle::ssCircle,  QCPScatterStyle::ssSquare,           QCPScatterStyle::ssTriangle,
        QCPScatterStyle::ssDiamond, QCPScatterStyle::ssTriangleInverted, QCPScatterStyle::ssCrossSquare};
    return shapes[k % 6];
}
Qt::PenStyle sweep_line(size_t k) {
    static const Qt::PenStyle styles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine};
    return styles[k % 4];
}

QString prefix_of(const LabelledSweep& s, size_t shown) {
    const QString& name = s.tag.isEmpty() ? s.label : s.tag;
    return shown > 1 && !name.isEmpty() ? name + QStringLiteral(": ") : QString();
}

// "  (N^2.00) 95%: 1.98 to 2.02", or why there is no exponent.
QString fit_text(const SweepAnalysis& analysis, const std::string& series, const char* metric) {
    for (const auto& f : analysis.fits)
        if (f.series == series && f.metric == metric) {
            if (!f.fit.valid) return QStringLiteral("  [%1]").arg(QString::fromStdString(fit_refusal(f.fit)));
            QString text = QStringLiteral("  (N^%1)").arg(f.fit.exponent, 0, 'f', 2);
            if (f.exponent_interval.valid)
                text += QObject::tr(" 95%: %1 to %2")
                            .arg(f.exponent_interval.low, 0, 'f', 2)
                            .arg(f.exponent_interval.high, 0, 'f', 2);
            return text;
        }
    return {};
}

}  // namespace

void SweepChart::rebuild() {
    log_box_->setEnabled(metric_ != Metric::Roofline);  // a roofline is log-log
    if (metric_ == Metric::Roofline) {
        roofs_.clear();
        roofline_points_.clear();
        roofline_sweeps_.clear();
        const std::vector<LabelledSweep> on = shown();
        for (const auto& s : on) {
            const QString prefix = prefix_of(s, on.size());
            for (RooflinePoint p : roofline_points(*s.sweep)) {
                p.series = prefix.toStdString() + p.series;
                roofline_points_.push_back(std::move(p));
                roofline_sweeps_.push_back(s.sweep);
            }
            for (const Roof& r : sweep_roofs(*s.sweep))
                if (std::find(roofs_.begin(), roofs_.end(), r) == roofs_.end()) roofs_.push_back(r);
        }
        plot_roofline(plot_, roofs_, roofline_points_);
        return;
    }
    plot_->clearPlottables();
    plot_->clearItems();
    graph_sources_.clear();
    const bool time = metric_ == Metric::MedianTime;
    plot_->xAxis->setLabel(tr("sequence length N (tokens)"));
    plot_->yAxis->setLabel(time ? tr("median time (ms)") : tr("peak memory (MiB)"));  // fits the shortest axis: 250 px
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
        axis->setScaleType(log_log_ ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
        if (log_log_)
            axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        else
            axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    }
    plotCurves();
    plot_->rescaleAxes();
    // Some room around the points (multiplicative on log axes).
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
        const QCPRange r = axis->range();
        if (log_log_ && r.lower > 0)
            axis->setRange(r.lower / 1.3, r.upper * 1.3);
        else
            axis->setRange(r.lower - 0.05 * r.size(), r.upper + 0.05 * r.size());
    }
    plot_->legend->setVisible(plot_->graphCount() > 0);
    placeLegend();
    plot_->replot();
}

void SweepChart::plotCurves() {
    const bool time = metric_ == Metric::MedianTime;
    const double scale = time ? 1e6 : 1048576.0;  // ms, MiB
    int color = 0;
    MemoryLine capacity;
    const std::vector<LabelledSweep> on = shown();
    for (size_t k = 0; k < on.size(); ++k) {
        const SweepAnalysis& analysis = *on[k].analysis;
        for (const auto& series : sweep_series(*on[k].sweep)) {
            const auto points = metric_points(series, metric_key(metric_));
            if (points.empty()) continue;
            const QColor c = series_color(color++);
            if (!time) plotMemoryReach(analysis, series, points.back().n, c, capacity);
            QCPGraph* g = plot_->addGraph();
            graph_sources_.resize(size_t(plot_->graphCount()));
            graph_sources_.back() = {on[k].sweep, series.name};
            g->setPen(QPen(c, 2, sweep_line(k)));
            g->setScatterStyle(QCPScatterStyle(sweep_marker(k), c, Qt::white, 7));
            g->setName(prefix_of(on[k], on.size()) + QString::fromStdString(series.name) +
                       fit_text(analysis, series.name, metric_key(metric_)));
            QVector<double> xs, ys, lo, hi;
            for (const auto& p : points) {
                xs << p.n;
                ys << p.value / scale;
            }
            g->setData(xs, ys, true);
            if (!time) continue;
            auto* bars = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
            bars->removeFromLegend();
            bars->setDataPlottable(g);
            bars->setPen(QPen(c, 1));
            for (const auto& s : series.samples) {
                lo << (s.median_ns - s.p10_ns) / scale;
                hi << (s.p90_ns - s.median_ns) / scale;
            }
            bars->setData(lo, hi);
        }
        plotCrossovers(analysis);
    }
    if (capacity.bytes > 0) plotCapacity(capacity);
}

// Peak memory: the fitted curve extended (dashed) to the length at which it reaches the device's
// memory, marked, when that is within 64x the longest measured length.
void SweepChart::plotMemoryReach(const SweepAnalysis& analysis, const SweepSeries& series, double longest,
                                 const QColor& c, MemoryLine& capacity) {
    const double scale = 1048576.0;
    for (const auto& f : analysis.fits) {
        if (f.series != series.name || f.metric != "peak_memory" || f.fills_memory_at_n <= 0 ||
            f.fills_memory_at_n > 64 * longest)
            continue;
        QCPGraph* ext = plot_->addGraph();
        graph_sources_.resize(size_t(plot_->graphCount()));  // drawn only: no points of its own
        ext->removeFromLegend();
        ext->setPen(QPen(c, 1, Qt::DashLine));
        QVector<double> xs, ys;
        for (double n = longest; n < f.fills_memory_at_n; n *= 1.25) {
            xs << n;
            ys << f.fit.coefficient * std::pow(n, f.fit.exponent) / scale;
        }
        xs << f.fills_memory_at_n;
        ys << double(analysis.memory_bytes) / scale;
        ext->setData(xs, ys, true);
        auto* mark = new QCPItemTracer(plot_);  // where this curve reaches the device's memory
        mark->setStyle(QCPItemTracer::tsCircle);
        mark->setSize(9);
        mark->setPen(QPen(c, 2));
        mark->position->setCoords(f.fills_memory_at_n, double(analysis.memory_bytes) / scale);
        capacity.fills +=
            (capacity.fills.isEmpty() ? QString() : QStringLiteral(", ")) +
            tr("%1 at N~%2").arg(QString::fromStdString(series.variant)).arg(f.fills_memory_at_n, 0, 'f', 0);
        capacity.bytes = double(analysis.memory_bytes);
    }
}

void SweepChart::plotCrossovers(const SweepAnalysis& analysis) {
    int labelled = 0;
    for (const auto& x : analysis.crossovers) {
        if (x.metric != metric_key(metric_)) continue;
        auto* line = new QCPItemStraightLine(plot_);
        line->point1->setCoords(x.at.n, 1);
        line->point2->setCoords(x.at.n, 2);
        // Crossovers inside the p10-p90 noise get a faint dotted line and no label.
        line->setPen(x.within_noise ? QPen(QColor(190, 190, 190), 1, Qt::DotLine)
                                    : QPen(QColor(90, 90, 90), 1, Qt::DashLine));
        if (x.n_interval.valid) {  // where the crossover lies in 95% of the resamples that keep it: a band
            auto* band = new QCPItemRect(plot_);
            band->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
            band->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
            band->topLeft->setCoords(x.n_interval.low, 0);
            band->bottomRight->setCoords(x.n_interval.high, 1);
            band->setPen(Qt::NoPen);
            band->setBrush(QColor(90, 90, 90, x.within_noise ? 15 : 35));
        }
        if (x.within_noise) continue;
        auto* text = new QCPItemText(plot_);
        text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(x.at.n, 0.97 - 0.06 * (labelled++ % 6));  // staggered, bottom up
        text->setPositionAlignment(Qt::AlignBottom | Qt::AlignLeft);
        const std::string& lower = x.at.a_lower_after ? x.series_a : x.series_b;
        const std::string& other = x.at.a_lower_after ? x.series_b : x.series_a;
        const QString range =
            x.n_interval.valid ? tr(" (95%: %1-%2)").arg(x.n_interval.low, 0, 'f', 0).arg(x.n_interval.high, 0, 'f', 0)
                               : QString();
        text->setText(tr(" N~%1%2: %3 below %4")
                          .arg(x.at.n, 0, 'f', 0)
                          .arg(range, QString::fromStdString(lower.substr(0, lower.find(' '))),
                               QString::fromStdString(other.substr(0, other.find(' ')))));
        text->setFont(QFont(font().family(), 8));
        text->setBrush(QBrush(QColor(255, 255, 255, 200)));
    }
}

void SweepChart::plotCapacity(const MemoryLine& capacity) {
    auto* cap = new QCPItemStraightLine(plot_);
    cap->point1->setCoords(1, capacity.bytes / 1048576.0);
    cap->point2->setCoords(2, capacity.bytes / 1048576.0);
    cap->setPen(QPen(QColor(120, 120, 120), 1, Qt::DashDotLine));
    auto* label = new QCPItemText(plot_);
    label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(0.99, capacity.bytes / 1048576.0);
    label->setPositionAlignment(Qt::AlignTop | Qt::AlignRight);
    label->setText(tr("device memory %1: %2").arg(format_bytes(int64_t(capacity.bytes)), capacity.fills));
    label->setFont(QFont(font().family(), 8));
    label->setBrush(QBrush(QColor(255, 255, 255, 200)));
}

void SweepChart::showReadout(QMouseEvent* e) {
    QString text;
    if (metric_ == Metric::Roofline) {
        text = rooflinePointText(nearest_roofline_point(plot_, roofline_points_, e->position()));
    } else {
        // The measured point nearest to the mouse, in pixels.
        double best = 20;
        int graph = -1;
        double n = 0;
        for (int i = 0; i < plot_->graphCount(); ++i) {
            const QCPGraph* g = plot_->graph(i);
            for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
                const double dx = plot_->xAxis->coordToPixel(it->key) - e->pos().x();
                const double dy = plot_->yAxis->coordToPixel(it->value) - e->pos().y();
                const double d = std::hypot(dx, dy);
                if (d < best) {
                    best = d;
                    graph = i;
                    n = it->key;
                }
            }
        }
        text = graph >= 0 ? pointText(graph, n) : QString();
    }
    readout_->setText(QString(text).replace(QLatin1Char('\n'), QStringLiteral("  |  ")));
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(e->globalPosition().toPoint(), text, plot_);
}

QString SweepChart::pointText(int graph, double n) const {
    if (graph < 0 || graph >= plot_->graphCount() || size_t(graph) >= graph_sources_.size()) return {};
    const GraphSource& source = graph_sources_[size_t(graph)];
    if (!source.sweep) return {};
    const SweepPoint* point = nullptr;
    for (const auto& p : source.sweep->points)
        if (p.status == PointStatus::Ok && double(p.spec.seq_k) == n && series_name(p.spec) == source.series)
            point = &p;
    if (!point) return {};
    const BenchResult& b = point->bench;
    const QString value = metric_ == Metric::MedianTime
                              ? tr("%1 (p10-p90 %2 to %3)")
                                    .arg(format_duration_ns(b.timing.median_ns), format_duration_ns(b.timing.p10_ns),
                                         format_duration_ns(b.timing.p90_ns))
                              : format_bytes(b.peak_bytes);
    return tr("%1: N = %2, %3").arg(plot_->graph(graph)->name()).arg(n, 0, 'f', 0).arg(value) + QLatin1Char('\n') +
           ran_on_text(where_ran(*source.sweep, *point));
}

QString SweepChart::rooflinePointText(int i) const {
    if (i < 0 || size_t(i) >= roofline_points_.size()) return {};
    QString text = describe_roofline_point(roofline_points_[size_t(i)], roofs_);
    const auto& sweep = roofline_sweeps_[size_t(i)];
    const int at = roofline_points_[size_t(i)].index;  // position in the sweep's points
    if (sweep && at >= 0 && size_t(at) < sweep->points.size())
        text += QLatin1Char('\n') + ran_on_text(where_ran(*sweep, sweep->points[size_t(at)]));
    return text;
}

bool SweepChart::exportTo(const QString& path, QString* error, const PlotExportSize& size) {
    return export_plot(plot_, path, error, size);
}

}  // namespace awb::ui
