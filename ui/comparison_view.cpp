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
#include "analysis/run_verdict.h"
#include "background.h"
#include "comparison_model.h"
#include "format_qt.h"
#include "model/units.h"
#include "run_modules.h"
#include "scroll_area.h"
#include "table_columns.h"
#include "timeline_view.h"

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

QString signed_duration(double ns) { return QString::fromStdString(format_signed_duration_ns(ns)); }

// The advisor's findings of A and B side by side: what B no longer has, what is new in B, what both have.
QString findings_html(const std::vector<Finding>& a, const std::vector<Finding>& b) {
    auto has = [](const std::vector<Finding>& in, const std::string& rule) {
        return std::any_of(in.begin(), in.end(), [&](const Finding& f) { return f.rule == rule; });
    };
    auto list = [](const QString& heading, const std::vector<const Finding*>& found) -> QString {
        if (found.empty()) return QString();
        QString html = QStringLiteral("<p><b>%1</b><ul>").arg(heading);
        for (const Finding* f : found)
            html += QStringLiteral("<li><b>[%1]</b> %2</li>")
                        .arg(QString::fromStdString(f->rule).toHtmlEscaped(),
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
    : QWidget(parent),
      pick_a_(new QComboBox),
      pick_b_(new QComboBox),
      summary_(new QLabel),
      verdict_(new QLabel),
      label_a_(new QLabel),
      label_b_(new QLabel),
      model_(new ComparisonModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      table_(new QTableView),
      tabs_(new QTabWidget),
      kernel_model_(new QStandardItemModel(this)),
      kernel_proxy_(new QSortFilterProxyModel(this)),
      kernel_table_(new QTableView),
      findings_diff_(new QTextBrowser),
      timeline_a_(new TimelineView),
      timeline_b_(new TimelineView) {
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(ComparisonModel::SortRole);
    proxy_->setSortLocaleAware(false);
    kernel_proxy_->setSourceModel(kernel_model_);
    kernel_proxy_->setSortRole(kSortRole);
    for (QTableView* t : {table_, kernel_table_}) {
        t->setSortingEnabled(true);
        t->setSelectionBehavior(QAbstractItemView::SelectRows);
        t->verticalHeader()->hide();
        t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);  // compact rows: more of them
        t->setAlternatingRowColors(true);
        t->setWordWrap(false);  // a kernel's signature on one line, elided in the middle, not "void ..."
    }
    table_->setModel(proxy_);
    kernel_table_->setModel(kernel_proxy_);
    table_->setColumnHidden(ComparisonModel::column(DiffColumn::Shapes), true);
    tabs_->addTab(table_, tr("Operators"));
    tabs_->addTab(kernel_table_, tr("Kernels"));
    tabs_->addTab(findings_diff_, tr("Findings"));
    build_layout();
    connect(pick_a_, &QComboBox::activated, this, [this] { user_picked_ = true; });
    connect(pick_b_, &QComboBox::activated, this, [this] { user_picked_ = true; });
    connect(pick_a_, &QComboBox::currentIndexChanged, this, &ComparisonView::update_comparison);
    connect(pick_b_, &QComboBox::currentIndexChanged, this, &ComparisonView::update_comparison);
    connect(timeline_a_, &TimelineView::viewChanged, this, [this] { sync(timeline_a_, timeline_b_); });
    connect(timeline_b_, &TimelineView::viewChanged, this, [this] { sync(timeline_b_, timeline_a_); });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                const QString name =
                    proxy_->index(current.row(), ComparisonModel::column(DiffColumn::Name)).data().toString();
                timeline_a_->setHighlightedName(name);
                timeline_b_->setHighlightedName(name);
            });
    verdict_->setText(tr("Run two specs (or the same spec at two shapes), or open two traces, to compare them here."));
}

QWidget* ComparisonView::labelled_timeline(QLabel* label, TimelineView* timeline) {
    label->setTextFormat(Qt::RichText);
    label->setAutoFillBackground(true);
    label->setContentsMargins(4, 1, 4, 1);
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(label);
    layout->addWidget(in_scroll_area(timeline, false), 1);
    box->setMinimumHeight(90);
    return box;
}

// Picks and verdict on top; below, the tables (left) beside the two timelines, A over B (right): in a
// short bottom dock the table keeps its rows and each timeline several lanes.
void ComparisonView::build_layout() {
    pick_a_->setToolTip(tr("Run A (the baseline)"));
    pick_b_->setToolTip(tr("Run B (compared against A); by default the newest run, A the one before it"));
    auto* picks = new QHBoxLayout;
    picks->addWidget(new QLabel(tr("<b>A</b> (baseline):")));
    picks->addWidget(pick_a_, 1);
    picks->addWidget(new QLabel(tr("<b>B</b>:")));
    picks->addWidget(pick_b_, 1);
    verdict_->setWordWrap(true);
    verdict_->setTextFormat(Qt::RichText);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    verdict_->setToolTip(
        tr("Per recorded step (a trace's ProfilerStep#k spans), B against A: the ratio of the medians with its 95% "
           "percentile bootstrap interval over the steps (1000 resamples, as benchmarks are compared). Beyond "
           "noise: the interval excludes 1. Device time: the kernels, copies and sets launched inside each "
           "step (union over streams). Peak memory: the highest replayed level inside each step."));
    summary_->setWordWrap(true);
    auto* timelines = new QSplitter(Qt::Vertical);
    timelines->addWidget(labelled_timeline(label_a_, timeline_a_));
    timelines->addWidget(labelled_timeline(label_b_, timeline_b_));
    timelines->setChildrenCollapsible(false);
    tabs_->setMinimumWidth(320);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(tabs_);
    split->addWidget(timelines);
    split->setChildrenCollapsible(false);
    split->setSizes({1000, 1000});
    timelines->setSizes({1000, 1000});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(picks);
    layout->addWidget(verdict_);
    layout->addWidget(summary_);
    layout->addWidget(split, 1);
}

void ComparisonView::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    fit_columns(table_, ComparisonModel::column(DiffColumn::Name));
    fit_columns(kernel_table_, 0);
}

int ComparisonView::pickedA() const { return pick_a_->currentIndex(); }
int ComparisonView::pickedB() const { return pick_b_->currentIndex(); }

void ComparisonView::setRuns(std::vector<NamedRun> runs) {
    const int a = pick_a_->currentIndex(), b = pick_b_->currentIndex();
    runs_ = std::move(runs);
    for (auto& r : runs_)
        if (!r.analysis) r.analysis = analyzed(r.result).analysis;
    for (QComboBox* box : {pick_a_, pick_b_}) {
        const QSignalBlocker block(box);
        box->clear();
        for (const auto& r : runs_) box->addItem(r.label);
    }
    const int n = int(runs_.size());
    const bool keep = user_picked_ && a >= 0 && a < n && b >= 0 && b < n && a != b;
    if (!keep) user_picked_ = false;
    // Default: B the newest run, A the one before it.
    compare(keep ? a : std::max(0, n - 2), keep ? b : n - 1);
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
    label_a_->setText(tr("<b>A</b>: %1").arg(runs_[size_t(a)].label.toHtmlEscaped()));
    label_b_->setText(tr("<b>B</b>: %1").arg(runs_[size_t(b)].label.toHtmlEscaped()));
    label_a_->setToolTip(environment_modules_text(runs_[size_t(a)].result->environment));  // a module run: which file
    label_b_->setToolTip(environment_modules_text(runs_[size_t(b)].result->environment));
    // Each run's tables and findings come from its analysis, computed once when it arrived.
    const RunAnalysis& aa = *runs_[size_t(a)].analysis;
    const RunAnalysis& ab = *runs_[size_t(b)].analysis;
    const auto& rows_a = aa.operators;
    const auto& rows_b = ab.operators;
    model_->setRows(join_operators(rows_a, rows_b));
    table_->sortByColumn(-1, Qt::AscendingOrder);  // the model's order: largest impact first
    const bool device = std::any_of(model_->rows().begin(), model_->rows().end(), [](const OperatorDiffRow& r) {
        return r.a.self_device_ns > 0 || r.b.self_device_ns > 0;
    });
    for (int c : {ComparisonModel::column(DiffColumn::SelfDeviceA), ComparisonModel::column(DiffColumn::SelfDeviceB),
                  ComparisonModel::column(DiffColumn::SelfDeviceDelta)})
        table_->setColumnHidden(c, !device);
    fit_columns(table_, 0);

    kernel_model_->clear();
    kernel_model_->setHorizontalHeaderLabels({tr("Kernel"), tr("In"), tr("Calls A"), tr("Calls B"),
                                              tr("Total A (time)"), tr("Total B (time)"), tr("Total B-A (time)"),
                                              tr("B/A")});
    for (const KernelDiffRow& k : join_kernels(aa.kernels, ab.kernels)) {
        const double ratio = k.total_a_ns > 0 ? double(k.total_b_ns) / double(k.total_a_ns) : -1;
        kernel_model_->appendRow(
            {name_cell(QString::fromStdString(k.name)),
             cell(k.in_a && k.in_b ? tr("both")
                  : k.in_a         ? tr("only A (vanished)")
                                   : tr("only B (new)"),
                  k.in_a && k.in_b ? 0
                  : k.in_a         ? -1
                                   : 1,
                  false),
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
    show_findings_and_verdict(a, b);
    const double sa = double(total_self_cpu(rows_a)), sb = double(total_self_cpu(rows_b));
    summary_->setText(tr("Self CPU total of all operators: A %1, B %2 (B/A %3x)")
                          .arg(format_duration_ns(sa), format_duration_ns(sb))
                          .arg(sa > 0 ? sb / sa : 0.0, 0, 'f', 2));
    timeline_a_->setRun(runs_[size_t(a)].result, runs_[size_t(a)].analysis);
    timeline_b_->setRun(runs_[size_t(b)].result, runs_[size_t(b)].analysis);
    // One time scale: both views span the longer of the two traces.
    const TimeMapping va = timeline_a_->view(), vb = timeline_b_->view();
    const int64_t span = std::max(va.end_ns - va.start_ns, vb.end_ns - vb.start_ns);
    timeline_a_->setView({va.start_ns, va.start_ns + span, 1});
}

// One line per measure, coloured where the difference is beyond the noise: green where B does better.
static QString verdict_html(const RunVerdict& v, bool same_run) {
    QString html = same_run ? ComparisonView::tr("<i>A and B are the same run.</i><br>") : QString();
    for (const MeasureVerdict& m : v.measures) {
        const QString text = QString::fromStdString(m.text).toHtmlEscaped();
        const char* colour = !m.beyond_noise ? "#606060" : m.ratio.ratio < 1 ? "#147a32" : "#b41e1e";
        html += QStringLiteral("<span style=\"color:%1\">%2</span><br>")
                    .arg(QLatin1String(colour),
                         m.measure == VerdictMeasure::StepTime ? QStringLiteral("<b>%1</b>").arg(text) : text);
    }
    html.chop(4);
    return html;
}

// The advisor's findings of both runs and the verdict: on the background pool for a large trace (the
// advisor walks every step's events: a tenth of a second on a million), the rest of the view first.
void ComparisonView::show_findings_and_verdict(int a, int b) {
    const NamedRun& run_a = runs_[size_t(a)];
    const NamedRun& run_b = runs_[size_t(b)];
    const bool large = is_large(run_a.result->trace) || is_large(run_b.result->trace);
    if (large) {
        verdict_->setText(tr("<i>Comparing A and B...</i>"));
        findings_diff_->setHtml(tr("<p><i>The advisor is reading both runs...</i></p>"));
    }
    struct Shown {
        QString findings, verdict;
    };
    compute_then(
        this, large,
        [run_a, run_b, same = a == b] {
            const RunAnalysis &aa = *run_a.analysis, &ab = *run_b.analysis;
            return Shown{findings_html(advise({run_a.result.get(), nullptr, nullptr, nullptr, &aa}),
                                       advise({run_b.result.get(), nullptr, nullptr, nullptr, &ab})),
                         verdict_html(compare_runs(*run_a.result, aa, *run_b.result, ab), same)};
        },
        [this, generation = ++generation_](const Shown& shown) {
            if (generation != generation_) return;  // the picks or the runs changed meanwhile
            findings_diff_->setHtml(shown.findings);
            verdict_->setText(shown.verdict);
        });
}

void ComparisonView::sync(TimelineView* from, TimelineView* to) {
    if (syncing_ || runs_.empty()) return;
    const int a = pick_a_->currentIndex(), b = pick_b_->currentIndex();
    if (a < 0 || b < 0) return;
    // Offsets from each trace's own start, so that step k of A sits over step k of B.
    const auto start_of = [&](TimelineView* w) {
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
