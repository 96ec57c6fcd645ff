#include "comparison_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "comparison_model.h"
#include "format_qt.h"
#include "op_diff.h"
#include "timeline_widget.h"

namespace awb::ui {

namespace {

int64_t total_self_cpu(const std::vector<OperatorRow>& rows) { return totals(rows).self_cpu_ns; }

}  // namespace

ComparisonView::ComparisonView(QWidget* parent)
    : QWidget(parent), pick_a_(new QComboBox), pick_b_(new QComboBox), summary_(new QLabel), model_(new ComparisonModel(this)),
      proxy_(new QSortFilterProxyModel(this)), table_(new QTableView), timeline_a_(new TimelineWidget),
      timeline_b_(new TimelineWidget) {
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(ComparisonModel::SortRole);
    proxy_->setSortLocaleAware(false);
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->verticalHeader()->hide();
    table_->setAlternatingRowColors(true);
    table_->setColumnHidden(ComparisonModel::Shapes, true);
    pick_a_->setToolTip(tr("Run A (the baseline)"));
    pick_b_->setToolTip(tr("Run B (compared against A)"));
    auto* picks = new QHBoxLayout;
    picks->addWidget(new QLabel(tr("A:")));
    picks->addWidget(pick_a_, 1);
    picks->addWidget(new QLabel(tr("B:")));
    picks->addWidget(pick_b_, 1);
    auto* timelines = new QSplitter(Qt::Vertical);
    timelines->addWidget(timeline_a_);
    timelines->addWidget(timeline_b_);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(table_);
    split->addWidget(timelines);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(picks);
    layout->addWidget(summary_);
    layout->addWidget(split, 1);
    connect(pick_a_, &QComboBox::currentIndexChanged, this, &ComparisonView::update_comparison);
    connect(pick_b_, &QComboBox::currentIndexChanged, this, &ComparisonView::update_comparison);
    connect(timeline_a_, &TimelineWidget::viewChanged, this, [this] { sync(timeline_a_, timeline_b_); });
    connect(timeline_b_, &TimelineWidget::viewChanged, this, [this] { sync(timeline_b_, timeline_a_); });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        const QString name = proxy_->index(current.row(), ComparisonModel::Name).data().toString();
        timeline_a_->setHighlightedName(name);
        timeline_b_->setHighlightedName(name);
    });
    summary_->setText(tr("Run two specs (or the same spec at two shapes) to compare them here."));
}

void ComparisonView::setRuns(std::vector<NamedRun> runs) {
    const int a = pick_a_->currentIndex(), b = pick_b_->currentIndex();
    runs_ = std::move(runs);
    for (QComboBox* box : {pick_a_, pick_b_}) {
        const QSignalBlocker block(box);
        box->clear();
        for (const auto& r : runs_) box->addItem(r.label);
    }
    const int n = int(runs_.size());
    // Default: the two most recent runs, A the older one.
    compare(a >= 0 && a < n ? a : std::max(0, n - 2), b >= 0 && b < n && b != a ? b : n - 1);
}

void ComparisonView::compare(int a, int b) {
    {
        const QSignalBlocker ba(pick_a_), bb(pick_b_);
        pick_a_->setCurrentIndex(a);
        pick_b_->setCurrentIndex(b);
    }
    update_comparison();
}

void ComparisonView::update_comparison() {
    const int a = pick_a_->currentIndex(), b = pick_b_->currentIndex();
    if (a < 0 || b < 0 || a >= int(runs_.size()) || b >= int(runs_.size())) {
        model_->setRows({});
        return;
    }
    const auto& ra = *runs_[size_t(a)].result;
    const auto& rb = *runs_[size_t(b)].result;
    const auto rows_a = key_averages(ra.trace), rows_b = key_averages(rb.trace);
    model_->setRows(join_operators(rows_a, rows_b));
    table_->sortByColumn(-1, Qt::AscendingOrder);  // the model's order: largest |self CPU delta| first
    table_->resizeColumnsToContents();
    const double sa = double(total_self_cpu(rows_a)), sb = double(total_self_cpu(rows_b));
    const double step_a = median_recorded_step_ns(ra), step_b = median_recorded_step_ns(rb);
    summary_->setText(tr("Self CPU total: A %1, B %2 (B/A %3x); median recorded step: A %4, B %5 (profiler on)")
                          .arg(format_duration_ns(sa), format_duration_ns(sb))
                          .arg(sa > 0 ? sb / sa : 0.0, 0, 'f', 2)
                          .arg(format_duration_ns(step_a), format_duration_ns(step_b)));
    timeline_a_->setRun(runs_[size_t(a)].result);
    timeline_b_->setRun(runs_[size_t(b)].result);
    // One time scale: both views span the longer of the two traces.
    const TimeMapping va = timeline_a_->view(), vb = timeline_b_->view();
    const int64_t span = std::max(va.end_ns - va.start_ns, vb.end_ns - vb.start_ns);
    timeline_a_->setView({va.start_ns, va.start_ns + span, 1});
}

void ComparisonView::sync(TimelineWidget* from, TimelineWidget* to) {
    if (syncing_ || runs_.empty()) return;
    const int a = pick_a_->currentIndex(), b = pick_b_->currentIndex();
    if (a < 0 || b < 0) return;
    // Offsets from each trace's own start, so that step k of A sits over step k of B.
    const auto start_of = [&](TimelineWidget* w) {
        const auto& run = runs_[size_t(w == timeline_a_ ? a : b)].result;
        return run->trace.begin_ns();
    };
    const TimeMapping v = from->view();
    const int64_t shift = start_of(to) - start_of(from);
    syncing_ = true;
    to->setView({v.start_ns + shift, v.end_ns + shift, 1});
    syncing_ = false;
}

}  // namespace awb::ui
