#include "ranks_view.h"

#include <QComboBox>
#include <QFont>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

#include "background.h"
#include "format_qt.h"
#include "model/units.h"
#include "table_columns.h"

namespace awb::ui {

namespace {

QString signed_duration(int64_t ns) { return QString::fromStdString(format_signed_duration_ns(double(ns))); }

}  // namespace

RankStepModel::RankStepModel(QObject* parent)
    : RowTableModel(
          {
              {"Rank", "The rank; the slowest (its step less its waits) in bold", true, true},
              {"Step", "Its ProfilerStep's span on the CPU"},
              {"Computation",
               "Its GPUs' computation kernels in the step (intervals merged across streams); 0 on a CPU run"},
              {"Communication", "Its GPUs' communication kernels in the step"},
              {"Exposed", "Communication with no computation beside it"},
              {"Idle", "Its GPUs' idle time in the step"},
              {"Waited", "Its waits at the step's collectives: from its arrival to the last rank's"},
              {"Made wait", "The others' waits at the collectives it arrived last at"},
          },
          Rank, parent) {}

QString RankStepModel::text(int r, int c) const {
    const RankStep& x = row(r);
    switch (Column(c)) {
        case Rank: return x.rank == slowest ? QStringLiteral("%1 (slowest)").arg(x.rank) : QString::number(x.rank);
        case Step: return format_duration_ns(double(x.step_ns));
        case Computation: return format_duration_ns(double(x.computation_ns));
        case Communication: return format_duration_ns(double(x.communication_ns));
        case Exposed: return format_duration_ns(double(x.exposed_ns));
        case Idle: return format_duration_ns(double(x.idle_ns));
        case Waited: return format_duration_ns(double(x.wait_ns));
        case MadeWait: return format_duration_ns(double(x.caused_wait_ns));
        case ColumnCount: break;
    }
    return {};
}

double RankStepModel::value(int r, int c) const {
    const RankStep& x = row(r);
    const int64_t values[] = {x.rank,       x.step_ns, x.computation_ns, x.communication_ns,
                              x.exposed_ns, x.idle_ns, x.wait_ns,        x.caused_wait_ns};
    return c >= 0 && c < ColumnCount ? double(values[c]) : 0;
}

QVariant RankStepModel::roleData(int r, int, int role) const {
    if (role != Qt::FontRole || row(r).rank != slowest) return {};
    QFont f;
    f.setBold(true);
    return f;
}

RankOperatorModel::RankOperatorModel(QObject* parent)
    : RowTableModel(
          {
              {"Operator",
               "Operators of the slowest rank (B) and the fastest (A) over the step, largest difference first", true},
              {"Self CPU fastest", "Self CPU time on the fastest rank in the step"},
              {"Self CPU slowest", "Self CPU time on the slowest rank in the step"},
              {"CPU delta", "Slowest minus fastest: self CPU time"},
              {"Device delta", "Slowest minus fastest: self device time"},
          },
          Name, parent) {}

QString RankOperatorModel::text(int r, int c) const {
    const OperatorDiffRow& x = row(r);
    switch (Column(c)) {
        case Name: return QString::fromStdString(x.name);
        case CpuA: return format_duration_ns(double(x.a.self_cpu_ns));
        case CpuB: return format_duration_ns(double(x.b.self_cpu_ns));
        case CpuDelta: return signed_duration(x.self_cpu_delta_ns());
        case DeviceDelta: return signed_duration(x.self_device_delta_ns());
        case ColumnCount: break;
    }
    return {};
}

double RankOperatorModel::value(int r, int c) const {
    const OperatorDiffRow& x = row(r);
    switch (Column(c)) {
        case CpuA: return double(x.a.self_cpu_ns);
        case CpuB: return double(x.b.self_cpu_ns);
        case CpuDelta: return double(x.self_cpu_delta_ns());
        case DeviceDelta: return double(x.self_device_delta_ns());
        default: return 0;
    }
}

RanksView::RanksView(QWidget* parent)
    : QWidget(parent),
      ranks_(new RankStepModel(this)),
      operators_(new RankOperatorModel(this)),
      step_box_(new QComboBox),
      rank_box_(new QComboBox),
      open_rank_(new QPushButton(tr("Open rank as a run"))),
      summary_(new QLabel) {
    summary_->setWordWrap(true);
    step_box_->setToolTip(tr("The ProfilerStep the ranks are compared in (every rank recorded it)"));
    rank_box_->setToolTip(
        tr("A rank to open as a run of its own: its operators, kernels and GPU time alone; Compare runs then "
           "compares two ranks"));
    open_rank_->setToolTip(rank_box_->toolTip());
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Step")));
    top->addWidget(step_box_);
    top->addStretch(1);
    top->addWidget(rank_box_);
    top->addWidget(open_rank_);
    step_box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto* split = new QSplitter(Qt::Horizontal);
    ranks_view_ = sorted_table(ranks_, RankStepModel::Rank, Qt::AscendingOrder, this);
    operators_view_ = sorted_table(operators_, RankOperatorModel::CpuDelta, Qt::DescendingOrder, this);
    split->addWidget(ranks_view_);
    split->addWidget(operators_view_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(summary_);
    layout->addWidget(split, 1);
    connect(step_box_, &QComboBox::activated, this,
            [this](int index) { compareStep(step_box_->itemData(index).toInt()); });
    connect(open_rank_, &QPushButton::clicked, this, [this] {
        if (!run_.result || rank_box_->currentIndex() < 0) return;
        const int32_t rank = rank_box_->currentData().toInt();
        const QString label = QStringLiteral("%1 (rank %2)").arg(run_.label).arg(rank);
        compute_then(
            this, is_large(run_.result->trace),
            [result = run_.result, rank] { return std::make_shared<const ProfileResult>(run_of_rank(*result, rank)); },
            [this, label](std::shared_ptr<const ProfileResult> run) { emit rankRunRequested(std::move(run), label); });
    });
    showRun({}, false);
}

void RanksView::showRun(const NamedRun& run, bool) {
    run_ = run;
    const std::vector<int32_t> ranks = run.result ? run.result->trace.meta().ranks : std::vector<int32_t>{};
    rank_box_->clear();
    for (int32_t r : ranks) rank_box_->addItem(tr("Rank %1").arg(r), r);
    const bool several = ranks.size() > 1 && run.analysis;
    rank_box_->setEnabled(several);
    open_rank_->setEnabled(several);
    step_box_->clear();
    comparison_ = {};
    ranks_->setRows({});
    operators_->setRows({});
    if (!several) {
        summary_->setText(
            tr("One process: the ranks are compared in runs of several ranks (a folder of rank traces, or rank files "
               "opened together)"));
        return;
    }
    compareStep(-1);
}

void RanksView::compareStep(int step) {
    const uint64_t generation = ++generation_;
    summary_->setText(tr("Comparing the ranks..."));
    const bool large = is_large(run_.result->trace);
    compute_then(
        this, large,
        [result = run_.result, analysis = run_.analysis, step] {
            return compare_ranks(result->trace, *analysis, step);
        },
        [this, generation](const RankComparison& c) {
            if (generation != generation_) return;
            comparison_ = c;
            showComparison();
        });
}

void RanksView::showComparison() {
    const RankComparison& c = comparison_;
    if (step_box_->count() != int(c.steps.size())) {
        step_box_->clear();
        for (int k : c.steps) step_box_->addItem(QStringLiteral("ProfilerStep#%1").arg(k), k);
    }
    step_box_->setCurrentIndex(step_box_->findData(c.step));
    ranks_->slowest = c.slowest;
    ranks_->setRows(c.ranks);
    operators_->setRows(c.operators);
    // A CPU run (gloo) has no GPU time: its columns are hidden rather than shown as zeros.
    const bool device = std::any_of(c.ranks.begin(), c.ranks.end(),
                                    [](const RankStep& r) { return r.computation_ns + r.communication_ns > 0; });
    for (int col = RankStepModel::Computation; col <= RankStepModel::Idle; ++col)
        ranks_view_->setColumnHidden(col, !device);
    fit_columns(ranks_view_, RankStepModel::Rank);
    fit_columns(operators_view_, RankOperatorModel::Name);
    if (c.step < 0) {
        summary_->setText(tr("No ProfilerStep that two ranks or more recorded: nothing to compare"));
        return;
    }
    summary_->setText(
        c.slowest >= 0 && c.slowest != c.fastest
            ? tr("ProfilerStep#%1: rank %2 is the slowest (its step less its waits at collectives), rank %3 the "
                 "fastest; "
                 "right: where rank %2 spends more, operator by operator over the step")
                  .arg(c.step)
                  .arg(c.slowest)
                  .arg(c.fastest)
            : tr("ProfilerStep#%1").arg(c.step));
}

}  // namespace awb::ui
