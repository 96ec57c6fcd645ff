#include "roofline_chart.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "model/units.h"
#include "plot_export.h"

namespace awb::ui {

QColor series_color(int i) {
    static const QColor colors[] = {QColor(31, 119, 180),  QColor(255, 127, 14),  QColor(44, 160, 44),
                                    QColor(214, 39, 40),   QColor(148, 103, 189), QColor(140, 86, 75),
                                    QColor(227, 119, 194), QColor(127, 127, 127)};
    return colors[i % 8];
}

void plot_roofline(QCustomPlot* plot, const std::vector<Roof>& roofs, const std::vector<RooflinePoint>& points) {
    plot->clearPlottables();
    plot->clearItems();
    plot->xAxis->setLabel(QObject::tr("arithmetic intensity (FLOP per ideal byte)"));
    plot->yAxis->setLabel(QObject::tr("achieved TFLOP/s"));
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    }
    const auto [lo, hi] = roofline_x_range(points, roofs);
    double ylo = INFINITY, yhi = 0;
    for (const Roof& r : roofs) {
        QCPGraph* g = plot->addGraph();
        g->setName(QString::fromStdString(roof_legend(r, false)));  // the ridge is labelled on the chart
        g->setPen(QPen(QColor(60, 60, 60), 2, r.measured ? Qt::DashLine : Qt::SolidLine));
        QVector<double> xs, ys;
        for (const auto& [x, y] : roof_polyline(r, lo, hi)) {
            xs << x;
            ys << y;
            ylo = std::min(ylo, y), yhi = std::max(yhi, y);
        }
        g->setData(xs, ys, true);
        auto* ridge = new QCPItemText(plot);
        ridge->position->setCoords(r.ridge(), r.peak_tflops);
        ridge->setPositionAlignment(Qt::AlignBottom | Qt::AlignLeft);
        ridge->setText(QObject::tr(" ridge %1 FLOP/B").arg(r.ridge(), 0, 'g', 3));
        ridge->setFont(QFont(plot->font().family(), 8));
        ridge->setColor(QColor(60, 60, 60));
    }
    std::vector<std::string> names;
    std::vector<QCPGraph*> graphs;
    for (const RooflinePoint& p : points) {
        auto it = std::find(names.begin(), names.end(), p.series);
        QCPGraph* g;
        if (it == names.end()) {
            g = plot->addGraph();
            const QColor c = series_color(int(names.size()));
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, c, c, 6));
            g->setName(QString::fromStdString(p.series));
            names.push_back(p.series);
            graphs.push_back(g);
        } else {
            g = graphs[size_t(it - names.begin())];
        }
        g->addData(p.intensity, p.tflops);
        ylo = std::min(ylo, p.tflops), yhi = std::max(yhi, p.tflops);
    }
    if (yhi > 0) {
        plot->xAxis->setRange(lo, hi);
        plot->yAxis->setRange(ylo / 2, yhi * 3);
    }
    plot->legend->setVisible(plot->graphCount() > 0);
    plot->replot();  // lays the axes out: the labels are placed in pixels
    if (label_roofline_points(plot, points)) plot->replot();
}

int label_roofline_points(QCustomPlot* plot, const std::vector<RooflinePoint>& points, size_t max_points) {
    // A call repeated every step sits on itself: one label for points of the same tag a few pixels apart.
    std::vector<QPointF> placed;
    std::vector<const RooflinePoint*> labelled;
    for (const RooflinePoint& p : points) {
        const QPointF px(plot->xAxis->coordToPixel(p.intensity), plot->yAxis->coordToPixel(p.tflops));
        const auto near = [&](size_t j) {
            return labelled[j]->tag == p.tag && std::abs(placed[j].x() - px.x()) < 40 &&
                   std::abs(placed[j].y() - px.y()) < 12;
        };
        bool seen = false;
        for (size_t j = 0; j < labelled.size() && !seen; ++j) seen = near(j);
        if (!seen) placed.push_back(px), labelled.push_back(&p);
    }
    if (labelled.empty() || labelled.size() > max_points)
        return 0;  // many: the tooltip and the read-out say which is which
    for (const RooflinePoint* p : labelled) {
        auto* text = new QCPItemText(plot);
        text->position->setCoords(p->intensity, p->tflops);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        text->setPadding(QMargins(5, 0, 0, 2));
        text->setText(QString::fromStdString(p->tag.empty() ? p->label : p->tag));  // "2x8x1024x1024x64" or "N = 2048"
        text->setFont(QFont(plot->font().family(), 8));
        text->setColor(QColor(50, 50, 50));
        text->setClipToAxisRect(true);
    }
    return int(labelled.size());
}

// The legend in its own cell of the plot's layout, beside or under the axis rect, never inside it.
void place_legend_outside(QCustomPlot* plot, bool right) {
    QCPLegend* legend = plot->legend;
    QCPLayoutGrid* grid = plot->plotLayout();
    // (hasElement first: element() of a cell that is not there prints a warning)
    const bool there = right ? grid->hasElement(0, 1) && grid->element(0, 1) == legend
                             : grid->hasElement(1, 0) && grid->element(1, 0) == legend;
    if (!there) {
        if (legend->layout()) legend->layout()->take(legend);
        plot->axisRect()->insetLayout()->simplify();
        grid->simplify();
        grid->addElement(right ? 0 : 1, right ? 1 : 0, legend);
        grid->setRowStretchFactors(grid->rowCount() == 2 ? QList<double>{1, 0.001} : QList<double>{1});
        grid->setColumnStretchFactors(grid->columnCount() == 2 ? QList<double>{1, 0.001} : QList<double>{1});
        legend->setMargins(QMargins(4, 2, 4, 2));
        legend->setBorderPen(Qt::NoPen);
        legend->setBrush(Qt::NoBrush);
    }
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, false);
    legend->setWrap(right ? 1 : 2);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
}

int nearest_roofline_point(const QCustomPlot* plot, const std::vector<RooflinePoint>& points, const QPointF& pos,
                           double max_px) {
    int best = -1;
    double best_d = max_px;
    for (size_t i = 0; i < points.size(); ++i) {
        const double d = std::hypot(plot->xAxis->coordToPixel(points[i].intensity) - pos.x(),
                                    plot->yAxis->coordToPixel(points[i].tflops) - pos.y());
        if (d < best_d) best_d = d, best = int(i);
    }
    return best;
}

QString describe_roofline_point(const RooflinePoint& p, const std::vector<Roof>& roofs) {
    QString text = QObject::tr("%1: %2; %3 FLOP/byte, %4")
                       .arg(QString::fromStdString(p.series), QString::fromStdString(p.label))
                       .arg(p.intensity, 0, 'g', 3)
                       .arg(QString::fromStdString(format_flop_rate(p.tflops)));
    if (const Roof* r = find_roof(roofs, p.dtype)) {
        const double attainable = std::min(r->peak_tflops, p.intensity * r->memory_tb_s);
        text += QObject::tr(" (%1 of the %2 attainable)")
                    .arg(QString::fromStdString(awb::format_share(p.tflops / attainable)),
                         QString::fromStdString(format_flop_rate(attainable)));
    }
    return text;
}

RooflineChart::RooflineChart(QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot), readout_(new QLabel), note_(new QLabel) {
    auto* save = new QPushButton(tr("Export PNG/PDF..."));
    auto* top = new QHBoxLayout;
    top->addWidget(readout_, 1);
    top->addWidget(save);
    note_->setWordWrap(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(plot_, 1);
    layout->addWidget(note_);
    plot_->legend->setFont(QFont(font().family(), 8));
    // Outside the axis rect: without a roof (or above it, a measured one) points can sit anywhere.
    place_legend_outside(plot_, false);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->setMinimumSize(240, 100);
    connect(plot_, &QCustomPlot::mouseMove, this, &RooflineChart::showReadout);
    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        const int i = nearest_roofline_point(plot_, points_, e->position());
        if (i >= 0) emit pointClicked(points_[size_t(i)].index);
    });
    connect(save, &QPushButton::clicked, this,
            [this] { export_plot_interactively(this, plot_, tr("Export roofline"), QStringLiteral("roofline.png")); });
    setData({}, {});
}

void RooflineChart::setData(std::vector<Roof> roofs, std::vector<RooflinePoint> points) {
    roofs_ = std::move(roofs);
    points_ = std::move(points);
    highlighted_ = -1;
    plot_roofline(plot_, roofs_, points_);
    const QString note =
        points_.empty() ? tr("No points: the roofline needs calls with known shapes and times.")
        : roofs_.empty()
            ? tr("No roof: the trace names no GPU the device table lists, and the run measured none (our own runs "
                 "measure "
                 "the CPU's with a matmul and a copy). The points still show where each call sits.")
            : tr("Roofs: %1. Dashed: measured in the run; solid: the datasheet. A point's height over its roof at its "
                 "intensity is its share of what the device can do.")
                  .arg(QString::fromStdString([&] {
                      std::string s;
                      for (const Roof& r : roofs_) s += (s.empty() ? "" : "; ") + r.source;
                      return s;
                  }()));
    note_text_ = note;
    note_->setToolTip(note);
    show_note();
}

// One line under the chart, elided (a short dock keeps its height for the axes); all of it on hover.
void RooflineChart::show_note() {
    note_->setText(note_->fontMetrics().elidedText(note_text_, Qt::ElideRight, std::max(40, width() - 8)));
}

void RooflineChart::setHighlighted(int index) {
    highlighted_ = index;
    plot_roofline(plot_, roofs_, points_);  // items (ridge labels) are redrawn with the plot
    for (const RooflinePoint& p : points_)
        if (p.index == index) {
            auto* ring = new QCPItemTracer(plot_);
            ring->setStyle(QCPItemTracer::tsCircle);
            ring->setSize(16);
            ring->setPen(QPen(Qt::black, 2));
            ring->position->setCoords(p.intensity, p.tflops);
            readout_->setText(describe_roofline_point(p, roofs_));
            break;
        }
    plot_->replot();
}

QString RooflineChart::readout() const { return readout_->text(); }

void RooflineChart::showReadout(QMouseEvent* e) {
    const int i = nearest_roofline_point(plot_, points_, e->position());
    if (i < 0) {
        QToolTip::hideText();
        return;
    }
    const QString text = describe_roofline_point(points_[size_t(i)], roofs_);
    readout_->setText(text);
    QToolTip::showText(e->globalPosition().toPoint(), text, plot_);  // on hover always, labelled or not
}

void RooflineChart::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    // A short, wide chart (the attention tab in a bottom dock) keeps its height for the axes: the legend at the right.
    place_legend_outside(plot_, plot_->width() >= 2 * plot_->height());
    plot_->replot();
    show_note();
}

bool RooflineChart::exportTo(const QString& path, QString* error, const PlotExportSize& size) {
    return export_plot(plot_, path, error, size);
}

}  // namespace awb::ui
