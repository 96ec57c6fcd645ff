#include "sweep_chart.h"

#include <QCheckBox>
#include <QComboBox>
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

#include "analysis/sweep_analysis.h"
#include "model/sweep_merge.h"
#include "format_qt.h"
#include "roofline_chart.h"

namespace awb::ui {

namespace {

const char* metric_key(SweepChart::Metric m) { return m == SweepChart::Metric::MedianTime ? "median_time" : "peak_memory"; }

// "ran on gpu-node-3: NVIDIA H200 (cuda:0), torch 2.11.0, CUDA 13.0, driver 580.65"
QString ran_on_text(const Environment& e) {
    QString text = QObject::tr("ran on %1: %2").arg(QString::fromStdString(e.host.empty() ? "?" : e.host),
                                                  QString::fromStdString(e.device_name.empty() ? e.device : e.device_name));
    if (!e.device.empty() && !e.device_name.empty()) text += QStringLiteral(" (%1)").arg(QString::fromStdString(e.device));
    if (!e.torch_version.empty()) text += QObject::tr(", torch %1").arg(QString::fromStdString(e.torch_version));
    if (!e.cuda_version.empty()) text += QObject::tr(", CUDA %1").arg(QString::fromStdString(e.cuda_version));
    if (!e.driver_version.empty()) text += QObject::tr(", driver %1").arg(QString::fromStdString(e.driver_version));
    return text;
}

}  // namespace

SweepChart::SweepChart(QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot), metric_box_(new QComboBox), log_box_(new QCheckBox(tr("Log-log"))),
      readout_(new QLabel) {
    metric_box_->addItem(tr("Median time vs N"));
    metric_box_->addItem(tr("Peak memory vs N"));
    metric_box_->addItem(tr("Roofline (TFLOP/s vs FLOP/byte)"));
    metric_box_->setItemData(2, tr("Each point's achieved rate at its arithmetic intensity (FLOPs over ideal bytes), under the roof "
                                   "measured in the sweep (CPU) or the GPU's datasheet roof"), Qt::ToolTipRole);
    log_box_->setChecked(log_log_);
    log_box_->setToolTip(tr("Both axes logarithmic: a power law N^k is a straight line of slope k"));
    auto* save = new QPushButton(tr("Export PNG/PDF..."));
    auto* top = new QHBoxLayout;
    top->addWidget(metric_box_);
    top->addWidget(log_box_);
    top->addWidget(readout_, 1);
    top->addWidget(save);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(plot_, 1);
    plot_->legend->setVisible(true);
    plot_->legend->setFont(QFont(font().family(), 8));
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->setMinimumHeight(250);
    connect(metric_box_, &QComboBox::currentIndexChanged, this,
            [this](int i) { setMetric(i == 0 ? Metric::MedianTime : i == 1 ? Metric::PeakMemory : Metric::Roofline); });
    connect(log_box_, &QCheckBox::toggled, this, &SweepChart::setLogLog);
    connect(plot_, &QCustomPlot::mouseMove, this, &SweepChart::showReadout);
    connect(save, &QPushButton::clicked, this, [this] {
        export_plot_interactively(this, plot_, tr("Export chart"), QStringLiteral("sweep.png"));
    });
    rebuild();
}

void SweepChart::setSweeps(std::vector<LabelledSweep> sweeps) {
    sweeps_ = std::move(sweeps);
    rebuild();
}

void SweepChart::addSweep(const SweepResult& sweep, const QString& label) {
    sweeps_.push_back({label, std::make_shared<const SweepResult>(sweep)});
    rebuild();
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
QString SweepChart::legendText(int curve) const { return curve < plot_->graphCount() ? plot_->graph(curve)->name() : QString(); }

void SweepChart::rebuild() {
    log_box_->setEnabled(metric_ != Metric::Roofline);  // a roofline is log-log
    // Curves rise to the right on these charts: the top-left corner is the free one; on the roofline
    // the roofs fill the top, the bottom-right is free.
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, metric_ == Metric::Roofline ? Qt::AlignBottom | Qt::AlignRight
                                                                                      : Qt::AlignTop | Qt::AlignLeft);
    if (metric_ == Metric::Roofline) {
        roofs_.clear();
        roofline_points_.clear();
        roofline_sweeps_.clear();
        for (const auto& shown : sweeps_) {
            const QString prefix = sweeps_.size() > 1 && !shown.label.isEmpty() ? shown.label + QStringLiteral(": ") : QString();
            for (RooflinePoint p : roofline_points(*shown.sweep)) {
                p.series = prefix.toStdString() + p.series;
                roofline_points_.push_back(std::move(p));
                roofline_sweeps_.push_back(shown.sweep);
            }
            for (const Roof& r : sweep_roofs(*shown.sweep))
                if (std::find(roofs_.begin(), roofs_.end(), r) == roofs_.end()) roofs_.push_back(r);
        }
        plot_roofline(plot_, roofs_, roofline_points_);
        return;
    }
    plot_->clearPlottables();
    plot_->clearItems();
    graph_sources_.clear();
    const bool time = metric_ == Metric::MedianTime;
    const double scale = time ? 1e6 : 1048576.0;  // ms, MiB
    plot_->xAxis->setLabel(tr("sequence length N (tokens)"));
    plot_->yAxis->setLabel(time ? tr("median time per iteration (ms), bars p10-p90") : tr("peak memory (MiB)"));
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
        axis->setScaleType(log_log_ ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
        if (log_log_)
            axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        else
            axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    }
    int color = 0;
    double capacity = 0;  // the device's memory, drawn once under the extrapolated memory curves
    QString fills;        // which curve reaches it where
    for (const auto& shown : sweeps_) {
        const SweepAnalysis analysis = analyze(*shown.sweep);
        const QString prefix = sweeps_.size() > 1 && !shown.label.isEmpty() ? shown.label + QStringLiteral(": ") : QString();
        for (const auto& series : sweep_series(*shown.sweep)) {
            const auto points = metric_points(series, metric_key(metric_));
            if (points.empty()) continue;
            QCPGraph* g = plot_->addGraph();
            graph_sources_.resize(size_t(plot_->graphCount()));
            graph_sources_.back() = {shown.sweep, series.name};
            const QColor c = series_color(color++);
            // Peak memory: the fitted curve extended (dashed) to the length at which it reaches the device's
            // memory, marked, when that is within 64x the longest measured length.
            for (const auto& f : analysis.fits)
                if (!time && f.series == series.name && f.metric == "peak_memory" && f.fills_memory_at_n > 0 &&
                    f.fills_memory_at_n <= 64 * points.back().n) {
                    QCPGraph* ext = plot_->addGraph();
                    graph_sources_.resize(size_t(plot_->graphCount()));  // drawn only: no points of its own
                    ext->removeFromLegend();
                    ext->setPen(QPen(c, 1, Qt::DashLine));
                    QVector<double> xs, ys;
                    for (double n = points.back().n; n < f.fills_memory_at_n; n *= 1.25) {
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
                    fills += (fills.isEmpty() ? QString() : QStringLiteral(", ")) +
                             tr("%1 at N~%2").arg(QString::fromStdString(series.variant)).arg(f.fills_memory_at_n, 0, 'f', 0);
                    capacity = double(analysis.memory_bytes);
                }
            g->setPen(QPen(c, 2));
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, c, Qt::white, 6));
            QString name = prefix + QString::fromStdString(series.name);
            for (const auto& f : analysis.fits)
                if (f.series == series.name && f.metric == metric_key(metric_)) {
                    name += QStringLiteral("  (N^%1)").arg(f.fit.exponent, 0, 'f', 2);
                    if (f.exponent_interval.valid)
                        name += tr(" 95%: %1 to %2").arg(f.exponent_interval.low, 0, 'f', 2).arg(f.exponent_interval.high, 0, 'f', 2);
                }
            g->setName(name);
            QVector<double> xs, ys, lo, hi;
            for (const auto& p : points) {
                xs << p.n;
                ys << p.value / scale;
            }
            g->setData(xs, ys, true);
            if (time) {
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
        }
        int labelled = 0;
        for (const auto& x : analysis.crossovers) {
            if (x.metric != metric_key(metric_)) continue;
            auto* line = new QCPItemStraightLine(plot_);
            line->point1->setCoords(x.at.n, 1);
            line->point2->setCoords(x.at.n, 2);
            // Crossovers inside the p10-p90 noise get a faint dotted line and no label.
            line->setPen(x.within_noise ? QPen(QColor(190, 190, 190), 1, Qt::DotLine) : QPen(QColor(90, 90, 90), 1, Qt::DashLine));
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
            const QString range = x.n_interval.valid ? tr(" (95%: %1-%2)").arg(x.n_interval.low, 0, 'f', 0).arg(x.n_interval.high, 0, 'f', 0)
                                                     : QString();
            text->setText(tr(" N~%1%2: %3 below %4")
                              .arg(x.at.n, 0, 'f', 0)
                              .arg(range, QString::fromStdString(lower.substr(0, lower.find(' '))),
                                   QString::fromStdString(other.substr(0, other.find(' ')))));
            text->setFont(QFont(font().family(), 8));
            text->setBrush(QBrush(QColor(255, 255, 255, 200)));
        }
    }
    if (capacity > 0) {
        auto* cap = new QCPItemStraightLine(plot_);
        cap->point1->setCoords(1, capacity / 1048576.0);
        cap->point2->setCoords(2, capacity / 1048576.0);
        cap->setPen(QPen(QColor(120, 120, 120), 1, Qt::DashDotLine));
        auto* label = new QCPItemText(plot_);
        label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(0.99, capacity / 1048576.0);
        label->setPositionAlignment(Qt::AlignTop | Qt::AlignRight);
        label->setText(tr("device memory %1: %2").arg(format_bytes(int64_t(capacity)), fills));
        label->setFont(QFont(font().family(), 8));
        label->setBrush(QBrush(QColor(255, 255, 255, 200)));
    }
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
    plot_->replot();
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
        if (p.status == PointStatus::Ok && double(p.spec.seq_k) == n && series_name(p.spec) == source.series) point = &p;
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
