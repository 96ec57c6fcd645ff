#include "gpu_time_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <cmath>
#include <set>

#include "format_qt.h"
#include "operator_table_model.h"
#include "plot_export.h"
#include "table_columns.h"

namespace awb::ui {

namespace {

int64_t figure(const GpuBreakdown& b, int column) {
    switch (column) {
        case GpuTimeModel::Span: return b.span_ns();
        case GpuTimeModel::Events: return b.kernels;
        case GpuTimeModel::Busy: return b.busy_ns;
        case GpuTimeModel::Computation: return b.computation_ns;
        case GpuTimeModel::Communication: return b.communication_ns;
        case GpuTimeModel::Memcpy: return b.memcpy_ns;
        case GpuTimeModel::Memset: return b.memset_ns;
        case GpuTimeModel::Idle: return b.idle_ns;
        case GpuTimeModel::ExposedComm: return b.exposed_communication_ns;
        case GpuTimeModel::ExposedMemcpy: return b.exposed_memcpy_ns;
        default: return 0;
    }
}

QString where(const GpuBreakdown& b) {
    return b.rank < 0 ? QStringLiteral("GPU %1").arg(b.device_index)
                      : QStringLiteral("rank %1, GPU %2").arg(b.rank).arg(b.device_index);
}

QString step_text(const GpuBreakdown& b) {
    return b.step < 0 ? QObject::tr("whole trace") : QStringLiteral("#%1").arg(b.step);
}

}  // namespace

GpuBarParts bar_parts(const GpuBreakdown& b) {
    const double comp = double(b.computation_ns), comm = double(b.exposed_communication_ns);
    return {comp, comm, double(b.busy_ns) - comp - comm, double(b.idle_ns)};
}

GpuTimeModel::GpuTimeModel(QObject* parent)
    : RowTableModel(
          {
              {"Where", "Rank and GPU (device index)", true},
              {"Step", "ProfilerStep#k, or the whole trace (from the device's first event to its last)", false, true},
              {"Span (time)",
               "Step k: from its first device event to the first of step k+1 (the last step: to its last event's end)"},
              {"Events", "Kernels, copies and sets launched in the step (in the span for the whole trace)"},
              {"Busy", "Time at least one kernel, copy or set runs, on any stream (intervals merged across streams)"},
              {"Computation", "Time a computation kernel runs on any stream (every kernel that is not NCCL/RCCL)"},
              {"Communication", "Time an NCCL/RCCL kernel runs on any stream"},
              {"Memcpy", "Time a copy runs on any stream"},
              {"Memset", "Time a set runs on any stream"},
              {"Idle", "Span minus busy: no kernel, copy or set on any stream"},
              {"Exposed comm", "Communication not overlapped by computation on any stream"},
              {"Exposed memcpy", "Copies not overlapped by computation on any stream"},
          },
          Where, parent) {}

double GpuTimeModel::value(int r, int column) const {
    const GpuBreakdown& b = row(r);
    if (column == Where) return double(b.rank) * 1e6 + b.device_index;
    if (column == Step) return b.step;
    return double(figure(b, column));
}

QString GpuTimeModel::text(int r, int column) const {
    const GpuBreakdown& b = row(r);
    switch (column) {
        case Where: return where(b);
        case Step: return step_text(b);
        case Span: return format_duration_ns(double(b.span_ns()));
        case Events: return QString::number(b.kernels);
        default: {
            const int64_t ns = figure(b, column);
            return QStringLiteral("%1 (%2)").arg(format_duration_ns(double(ns)),
                                                 format_share(double(ns), double(b.span_ns())));
        }
    }
}

QVariant GpuTimeModel::roleData(int r, int column, int role) const {
    if (role == ShareRole && column >= Busy) return row(r).share(figure(row(r), column));
    return {};
}

GpuTimeView::GpuTimeView(QWidget* parent)
    : QWidget(parent),
      model_(new GpuTimeModel(this)),
      table_(new QTableView),
      plot_(new QCustomPlot),
      summary_(new QLabel) {
    auto* proxy = new OperatorFilterProxy(this);
    proxy->setSourceModel(model_);
    table_->setModel(proxy);
    table_->setSortingEnabled(true);
    table_->sortByColumn(-1, Qt::AscendingOrder);  // the model's order: rank, device, whole trace, steps
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    for (int c = GpuTimeModel::Busy; c < GpuTimeModel::ColumnCount; ++c)
        table_->setItemDelegateForColumn(c, new ShareBarDelegate(table_));
    plot_->setMinimumHeight(160);
    // The legend in one row under the bars, never over them.
    plot_->plotLayout()->addElement(1, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(1, 0.001);
    plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot_->legend->setVisible(true);
    plot_->setMouseTracking(true);
    summary_->setWordWrap(true);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(plot_);
    split->addWidget(table_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(summary_);
    layout->addWidget(split, 1);
    connect(plot_, &QCustomPlot::mouseMove, this, &GpuTimeView::showReadout);
    setRows({});
}

void GpuTimeView::showRun(const NamedRun& run, bool) {
    setRows(run.result && run.analysis ? run.analysis->gpu : std::vector<GpuBreakdown>{});
}

void GpuTimeView::setRows(std::vector<GpuBreakdown> rows) {
    // Bars: each device's steps, or its whole trace when it has none.
    bars_.clear();
    std::set<std::pair<int32_t, int>> stepped;
    for (const GpuBreakdown& b : rows)
        if (b.step >= 0) stepped.insert({b.rank, b.device_index});
    for (const GpuBreakdown& b : rows)
        if ((b.step >= 0) == (stepped.count({b.rank, b.device_index}) > 0)) bars_.push_back(b);
    model_->setRows(std::move(rows));
    fit_columns(table_, GpuTimeModel::Where);
    if (bars_.empty()) {
        summary_->setText(
            tr("No kernels, copies or sets in this run: the GPU time breakdown is for traces with device events "
               "(a CUDA run, or an imported GPU trace)"));
    } else {
        int64_t span = 0, busy = 0, exposed = 0;
        for (const GpuBreakdown& b : model_->rows())
            if (b.step < 0) {
                span += b.span_ns();
                busy += b.busy_ns;
                exposed += b.exposed_communication_ns;
            }
        summary_->setText(
            tr("Whole trace, all GPUs: busy %1 of %2 (%3), idle %4, exposed communication %5. Bars: one per "
               "ProfilerStep (intervals merged across streams; hover for every figure)")
                .arg(format_duration_ns(double(busy)), format_duration_ns(double(span)),
                     format_share(double(busy), double(span)), format_duration_ns(double(span - busy)),
                     format_duration_ns(double(exposed))));
    }
    rebuildChart();
}

void GpuTimeView::rebuildChart() {
    plot_->clearPlottables();
    int64_t longest = 0;
    for (const GpuBreakdown& b : bars_) longest = std::max(longest, b.span_ns());
    const bool in_us = longest < 10'000'000;
    const double scale = in_us ? 1e3 : 1e6;
    plot_->yAxis->setLabel(in_us ? tr("GPU time (us)") : tr("GPU time (ms)"));
    const bool several = std::any_of(bars_.begin(), bars_.end(), [&](const GpuBreakdown& b) {
        return b.rank != bars_.front().rank || b.device_index != bars_.front().device_index;
    });
    struct Part {
        QString name;
        QColor color;
        double GpuBarParts::*field;
    };
    const Part parts[] = {{tr("computation"), QColor(70, 130, 180), &GpuBarParts::computation_ns},
                          {tr("exposed communication"), QColor(214, 96, 77), &GpuBarParts::exposed_communication_ns},
                          {tr("copies and sets, not hidden"), QColor(240, 180, 60), &GpuBarParts::other_busy_ns},
                          {tr("idle"), QColor(200, 200, 200), &GpuBarParts::idle_ns}};
    QCPBars* below = nullptr;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (const Part& part : parts) {
        auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
        bars->setName(part.name);
        bars->setPen(Qt::NoPen);  // a zero-height part draws nothing (an outline would show as a sliver)
        bars->setBrush(part.color);
        bars->setWidth(0.5);
        if (below) bars->moveAbove(below);
        below = bars;
        QVector<double> keys, values;
        for (size_t i = 0; i < bars_.size(); ++i) {
            keys << double(i + 1);
            values << bar_parts(bars_[i]).*part.field / scale;
        }
        bars->setData(keys, values, true);
    }
    // A label per bar up to 60 bars; a long trace (thousands of steps) labels every k-th so the axis
    // stays readable and the chart quick to draw (every bar keeps its hover readout).
    const size_t every = std::max<size_t>(1, (bars_.size() + 59) / 60);
    for (size_t i = 0; i < bars_.size(); i += every)
        ticker->addTick(double(i + 1),
                        several ? where(bars_[i]) + QLatin1Char('\n') + step_text(bars_[i]) : step_text(bars_[i]));
    plot_->xAxis->setTicker(ticker);
    plot_->xAxis->setRange(0.3, double(bars_.size()) + 0.7);
    plot_->yAxis->setRange(0, bars_.empty() ? 1.0 : double(longest) / scale * 1.08);
    plot_->legend->setVisible(!bars_.empty());
    plot_->replot();
}

bool GpuTimeView::exportTo(const QString& path, QString* error, const PlotExportSize& size) {
    return export_plot(plot_, path, error, size);
}

void GpuTimeView::showReadout(QMouseEvent* e) {
    const int i = int(std::lround(plot_->xAxis->pixelToCoord(e->pos().x()))) - 1;
    if (i < 0 || i >= int(bars_.size()) || std::abs(plot_->xAxis->pixelToCoord(e->pos().x()) - double(i + 1)) > 0.4) {
        QToolTip::hideText();
        return;
    }
    const GpuBreakdown& b = bars_[size_t(i)];
    QString text = QStringLiteral("<b>%1, %2</b><br>span %3, %4 kernels, copies and sets")
                       .arg(where(b), step_text(b), format_duration_ns(double(b.span_ns())))
                       .arg(b.kernels);
    for (int c = GpuTimeModel::Busy; c < GpuTimeModel::ColumnCount; ++c)
        text += QStringLiteral("<br>%1: %2")
                    .arg(model_->headerData(c, Qt::Horizontal).toString().toLower(),
                         QStringLiteral("%1 (%2)").arg(format_duration_ns(double(figure(b, c))),
                                                       format_share(double(figure(b, c)), double(b.span_ns()))));
    text += tr("<br><i>computation by kernel class:</i>");
    for (int c = 0; c < kKernelClassCount; ++c)
        if (const int64_t ns = b.class_ns[size_t(c)]; ns > 0 && is_computation(KernelClass(c)))
            text += QStringLiteral("<br>&nbsp;&nbsp;%1: %2 (%3)")
                        .arg(QString::fromStdString(to_string(KernelClass(c))), format_duration_ns(double(ns)),
                             format_share(double(ns), double(b.span_ns())));
    QToolTip::showText(e->globalPosition().toPoint(), text, plot_);
}

}  // namespace awb::ui
