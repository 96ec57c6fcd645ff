#include "collectives_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>
#include <set>

#include "format_qt.h"
#include "table_columns.h"

namespace awb::ui {

CollectivesView::CollectivesView(QWidget* parent)
    : QWidget(parent),
      collectives_(new CollectiveTableModel(this)),
      ranks_(new RankCollectivesModel(this)),
      overlap_(new OverlapTableModel(this)),
      summary_(new QLabel),
      notes_(new QLabel),
      filter_(new QLineEdit) {
    table_ = sorted_table(collectives_, CollectiveTableModel::Skew, Qt::DescendingOrder, this);
    proxy_ = qobject_cast<QSortFilterProxyModel*>(table_->model());
    proxy_->setFilterKeyColumn(-1);  // any column: a name, a group, a step
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    QTableView* ranks = sorted_table(ranks_, RankCollectivesModel::Rank, Qt::AscendingOrder, this);
    QTableView* overlap = sorted_table(overlap_, OverlapTableModel::Rank, Qt::AscendingOrder, this);
    filter_->setPlaceholderText(tr("Filter collectives (e.g. all_reduce, #3, 0->1)"));
    filter_->setClearButtonEnabled(true);
    connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    notes_->setWordWrap(true);
    notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    notes_->setStyleSheet(QStringLiteral("color: #8a5a00"));

    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(ranks);
    right->addWidget(overlap);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(table_);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* top = new QHBoxLayout;
    top->addWidget(filter_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(summary_);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    layout->addWidget(notes_);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid()) select(proxy_->mapToSource(current).row());
            });
    showRun({}, false);
}

QString CollectivesView::summary() const { return summary_->text(); }
QString CollectivesView::notes() const { return notes_->text(); }

void CollectivesView::showRun(const NamedRun& run, bool) {
    report_ = run.analysis ? run.analysis->collectives : CollectiveReport{};
    const OverlapReport overlap = run.analysis ? run.analysis->overlap : OverlapReport{};
    collectives_->setRows(report_.matched);
    ranks_->setRows(rank_collectives(report_, overlap));
    overlap_->setRows(overlap.rows);
    fit_columns(table_, CollectiveTableModel::Waits);
    // What the run's files say of each other (ranks missing, clocks aligned, rank summaries), then the collectives' own
    // notes.
    QStringList notes;
    if (run.result)
        for (const std::string& n : run.result->import.run) notes << QString::fromStdString(n);
    for (const std::string& n : report_.notes) notes << QString::fromStdString(n);
    notes_->setText(notes.join(QLatin1Char('\n')));
    if (report_.calls.empty()) {
        summary_->setText(
            tr("No collectives in this run: they come from c10d::* ops, record_param_comms, nccl:* / gloo:* "
               "annotations and communication kernels (NCCL, RCCL, custom all-reduce) of distributed runs"));
        return;
    }
    std::set<int32_t> ranks;
    for (const CollectiveCall& c : report_.calls) ranks.insert(c.rank);
    QString text = tr("%1 calls on %2 rank(s), %3 collectives matched by process group and order, %4 step(s). ")
                       .arg(report_.calls.size())
                       .arg(ranks.size())
                       .arg(report_.matched.size())
                       .arg(report_.steps);
    if (report_.straggler >= 0) {
        const auto s = std::find_if(report_.ranks.begin(), report_.ranks.end(),
                                    [&](const RankStraggle& x) { return x.rank == report_.straggler; });
        text +=
            tr("Straggler: rank %1, the others waited %2 for it (%3 per step) at %4 collective(s) it arrived last at.")
                .arg(report_.straggler)
                .arg(format_duration_ns(double(s->caused_wait_ns)))
                .arg(format_duration_ns(double(s->caused_wait_ns) / std::max(report_.steps, 1)))
                .arg(s->last_arrivals);
    }
    for (const HtaOverlap& h : overlap.hta)
        text += tr(" Rank %1 as HolisticTraceAnalysis counts it: %2% of its communication hidden (kernels %3).")
                    .arg(h.rank)
                    .arg(h.pct, 0, 'f', 2)
                    .arg(QString::fromStdString(h.steps));
    if (!overlap.attention.empty()) {
        int64_t comm = 0, hidden = 0;
        for (const AttentionComm& a : overlap.attention) {
            comm += a.comm_ns;
            hidden += a.hidden_ns;
        }
        text += tr(" %1 attention call(s) communicate (ring / context-parallel attention): %2 of their %3 of "
                   "communication hidden.")
                    .arg(overlap.attention.size())
                    .arg(format_duration_ns(double(hidden)), format_duration_ns(double(comm)));
    }
    summary_->setText(text);
}

void CollectivesView::select(int source_row) {
    if (source_row < 0 || size_t(source_row) >= collectives_->rows().size()) return;
    const MatchedCollective& m = collectives_->rows()[size_t(source_row)];
    std::vector<int> events;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (const RankArrival& a : m.ranks) {
        const CollectiveCall& c = report_.calls[size_t(a.call)];
        if (c.op >= 0) events.push_back(c.op);
        events.insert(events.end(), c.work.begin(), c.work.end());
        first = std::min(first, a.start_ns);
        last = std::max(last, a.start_ns);
    }
    const QString label = m.last_rank >= 0
                              ? tr("%1: skew %2, rank %3 last")
                                    .arg(QString::fromStdString(m.name), format_duration_ns(double(m.skew_ns)))
                                    .arg(m.last_rank)
                              : QString::fromStdString(m.name);
    emit collectiveSelected(events, first, last, label);
}

}  // namespace awb::ui
