#include "comparison_view.h"

#include <QComboBox>
#include <algorithm>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QScrollArea>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "analysis/advisor.h"
#include "analysis/op_diff.h"
#include "comparison_model.h"
#include "format_qt.h"
#include "scroll_area.h"
#include "table_columns.h"
#include "timeline_widget.h"

namespace awb::ui {

namespace {

int64_t total_self_cpu(const std::vector<OperatorRow>& rows) { return totals(rows).self_cpu_ns; }

constexpr int kSortRole = Qt::UserRole + 1;

QStandardItem* cell(const QString& text, double sort, bool number, double sign = 0) {
    auto* item = new QStandardItem(text);
    item->setData(sort, kSortRole);
    item->setEditable(false);
    if (number) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (sign > 0) item->setForeground(QColor(180, 30, 30));
    if (sign < 0) item->setForeground(QColor(20, 130, 50));
    return item;
}

QStandardItem* name_cell(const QString& text) {
    auto* item = new QStandardItem(text);
    item->setData(text, kSortRole);
    item->setEditable(false);
    item->setToolTip(text);
    return item;
}

QString signed_duration(double ns) { return (ns > 0 ? QStringLiteral("+") : QString()) + format_duration_ns(ns); }

// The advisor's findings of A and B side by side: what B no longer has, what is new in B, what both have.
QString findings_html(const std::vector<Finding>& a, const std::vector<Finding>& b) {
    auto has = [](const std::vector<Finding>& in, const std::string& rule) {
        return std::any_of(in.begin(), in.end(), [&](const Finding& f) { return f.rule == rule; });
    };
    auto list = [](const QString& heading, const std::vector<const Finding*>& found) -> QString {
        if (found.empty()) return QString();
        QString html = QStringLiteral("<p><b>%1</b><ul>").arg(heading);
        for (const Finding* f : found)
            html += QStringLiteral("<li><b>[%1]</b> %2</li>").arg(QString::fromStdString(f->rule).toHtmlEscaped(),
                                                                 QString::fromStdString(f->title).toHtmlEscaped());
        return html + QStringLiteral("</ul></p>");
    };
    std::vector<const Finding*> fixed, added, both_a, both_b;
    for (const auto& f : a) (has(b, f.rule) ? both_a : fixed).push_back(&f);
    for (const auto& f : b) (has(a, f.rule) ? both_b : added).push_back(&f);
    const QString html = list(QObject::tr("In A, gone in B"), fixed) + list(QObject::tr("New in B"), added) +
                   list(QObject::tr("In both: A says"), both_a) + list(QObject::tr("In both: B says"), both_b);
    return html.isEmpty() ? QObject::tr("<p>None of the advisor's rules fired for either run.</p>") : html;
}

}  // namespace

ComparisonView::ComparisonView(QWidget* parent)
    : QWidget(parent), pick_a_(new QComboBox), pick_b_(new QComboBox), summary_(new QLabel), model_(new ComparisonModel(this)),
      proxy_(new QSortFilterProxyModel(this)), table_(new QTableView), tabs_(new QTabWidget),
      kernel_model_(new QStandardItemModel(this)), kernel_proxy_(new QSortFilterProxyModel(this)), kernel_table_(new QTableView),
      findings_diff_(new QTextBrowser), timeline_a_(new TimelineWidget),
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
    kernel_proxy_->setSourceModel(kernel_model_);
    kernel_proxy_->setSortRole(kSortRole);
    kernel_table_->setModel(kernel_proxy_);
    kernel_table_->setSortingEnabled(true);
    kernel_table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    kernel_table_->verticalHeader()->hide();
    kernel_table_->setAlternatingRowColors(true);
    tabs_->addTab(table_, tr("Operators"));
    tabs_->addTab(kernel_table_, tr("Kernels"));
    tabs_->addTab(findings_diff_, tr("Findings"));
    pick_a_->setToolTip(tr("Run A (the baseline)"));
    pick_b_->setToolTip(tr("Run B (compared against A)"));
    auto* picks = new QHBoxLayout;
    picks->addWidget(new QLabel(tr("A:")));
    picks->addWidget(pick_a_, 1);
    picks->addWidget(new QLabel(tr("B:")));
    picks->addWidget(pick_b_, 1);
    auto* timelines = new QSplitter(Qt::Vertical);
    timelines->addWidget(in_scroll_area(timeline_a_, false));
    timelines->addWidget(in_scroll_area(timeline_b_, false));
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(tabs_);
    split->addWidget(timelines);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    // The timelines scroll inside their areas, which ask for little: the tables 3 : 2 whatever they ask.
    split->setSizes({3000, 2000});
    timelines->setSizes({1000, 1000});
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
    for (auto& r : runs_)
        if (!r.analysis) r.analysis = analyze(r.result).analysis;
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
    // Each run's tables and findings come from its analysis, computed once when it arrived.
    const auto& ra = *runs_[size_t(a)].result;
    const auto& rb = *runs_[size_t(b)].result;
    const RunAnalysis& aa = *runs_[size_t(a)].analysis;
    const RunAnalysis& ab = *runs_[size_t(b)].analysis;
    const auto& rows_a = aa.operators;
    const auto& rows_b = ab.operators;
    model_->setRows(join_operators(rows_a, rows_b));
    table_->sortByColumn(-1, Qt::AscendingOrder);  // the model's order: largest impact first
    const bool device = std::any_of(model_->rows().begin(), model_->rows().end(),
                                    [](const OperatorDiffRow& r) { return r.a.self_device_ns > 0 || r.b.self_device_ns > 0; });
    for (int c : {ComparisonModel::SelfDeviceA, ComparisonModel::SelfDeviceB, ComparisonModel::SelfDeviceDelta})
        table_->setColumnHidden(c, !device);
    fit_columns(table_, 0);

    kernel_model_->clear();
    kernel_model_->setHorizontalHeaderLabels({tr("Kernel"), tr("In"), tr("Calls A"), tr("Calls B"), tr("Total A (time)"),
                                              tr("Total B (time)"), tr("Total B-A (time)"), tr("B/A")});
    for (const KernelDiffRow& k : join_kernels(aa.kernels, ab.kernels)) {
        const double ratio = k.total_a_ns > 0 ? double(k.total_b_ns) / double(k.total_a_ns) : -1;
        kernel_model_->appendRow({name_cell(QString::fromStdString(k.name)),
                                  cell(k.in_a && k.in_b ? tr("both") : k.in_a ? tr("only A (vanished)") : tr("only B (new)"),
                                       k.in_a && k.in_b ? 0 : k.in_a ? -1 : 1, false),
                                  cell(QString::number(k.calls_a), double(k.calls_a), true),
                                  cell(QString::number(k.calls_b), double(k.calls_b), true),
                                  cell(format_duration_ns(double(k.total_a_ns)), double(k.total_a_ns), true),
                                  cell(format_duration_ns(double(k.total_b_ns)), double(k.total_b_ns), true),
                                  cell(signed_duration(double(k.delta_ns())), double(k.delta_ns()), true, double(k.delta_ns())),
                                  cell(ratio >= 0 ? QStringLiteral("%1x").arg(ratio, 0, 'f', 2) : QStringLiteral("-"), ratio, true)});
    }
    kernel_table_->sortByColumn(-1, Qt::AscendingOrder);
    fit_columns(kernel_table_, 0);
    tabs_->setTabEnabled(1, kernel_model_->rowCount() > 0);
    tabs_->setTabToolTip(1, kernel_model_->rowCount() > 0 ? tr("Kernels joined by name, largest |B-A| first")
                                                          : tr("Neither run has device kernels (a CPU run)"));
    findings_diff_->setHtml(findings_html(advise({&ra, nullptr, nullptr, nullptr, &aa}), advise({&rb, nullptr, nullptr, nullptr, &ab})));
    const double sa = double(total_self_cpu(rows_a)), sb = double(total_self_cpu(rows_b));
    const double step_a = median_recorded_step_ns(ra), step_b = median_recorded_step_ns(rb);
    summary_->setText(tr("Self CPU total: A %1, B %2 (B/A %3x); median recorded step: A %4, B %5 (profiler on)")
                          .arg(format_duration_ns(sa), format_duration_ns(sb))
                          .arg(sa > 0 ? sb / sa : 0.0, 0, 'f', 2)
                          .arg(format_duration_ns(step_a), format_duration_ns(step_b)));
    timeline_a_->setRun(runs_[size_t(a)].result, runs_[size_t(a)].analysis);
    timeline_b_->setRun(runs_[size_t(b)].result, runs_[size_t(b)].analysis);
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
