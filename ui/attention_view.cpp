#include "attention_view.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

#include "background.h"
#include "format_qt.h"
#include "model/printf_string.h"
#include "model/units.h"
#include "table_columns.h"

namespace awb::ui {

AttentionTableModel::AttentionTableModel(QObject* parent)
    : RowTableModel(described_columns(columns()), column(AttentionColumn::Backend), parent) {}

const std::vector<AttentionColumnInfo>& AttentionTableModel::columns() {
    static const std::vector<AttentionColumnInfo> shown = columns_in(attention_column_list(), kInGui);
    return shown;
}

int AttentionTableModel::column(AttentionColumn id) { return described_column(columns(), id); }

void AttentionTableModel::rowsChanged() {
    groups_.clear();
    fits_.clear();
    for (const AttentionInstance& a : rows_) {
        groups_.push_back(AttentionGroup::of(a));
        const Roof* roof = find_roof(roofs_, a.dtype);
        fits_.push_back(roof ? roof_fit(groups_.back(), *roof) : RoofFit{});
    }
}

AttentionCellContext AttentionTableModel::context(int r) const {
    AttentionCellContext context;
    context.fit = fits_[size_t(r)];
    context.begin_ns = begin_ns_;
    return context;
}

double AttentionTableModel::value(int r, int c) const {
    return attention_value(groups_[size_t(r)], columns()[size_t(c)].id, context(r));
}

QString AttentionTableModel::text(int r, int c) const {
    return QString::fromStdString(attention_cell(groups_[size_t(r)], columns()[size_t(c)].id, context(r)));
}

QVariant AttentionTableModel::roleData(int r, int c, int role) const {
    if (role != Qt::ToolTipRole) return {};
    const AttentionInstance& a = row(r);
    const AttentionColumn id = columns()[size_t(c)].id;
    if (id == AttentionColumn::Notes || (id == AttentionColumn::Flops && !a.costed()) ||
        (id == AttentionColumn::SeqK && a.shape.seq_k <= 0)) {
        const QString notes = QString::fromStdString(join(attention_notes(a)));
        return notes.isEmpty() ? QVariant() : QVariant(notes);
    }
    if (id == AttentionColumn::Library || id == AttentionColumn::Pass) return QString::fromStdString(a.op);
    return {};
}

AttentionView::AttentionView(QWidget* parent)
    : QWidget(parent),
      model_(new AttentionTableModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      view_(new QTableView),
      summary_(new QLabel),
      roofline_(new RooflineChart) {
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(RowTableModelBase::SortRole);
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(AttentionTableModel::column(AttentionColumn::Start), Qt::AscendingOrder);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setAlternatingRowColors(true);
    view_->verticalHeader()->hide();
    summary_->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(summary_);
    auto* split = new QSplitter(Qt::Horizontal);  // side by side: the bottom docks stay as short as the user drags them
    split->addWidget(view_);
    split->addWidget(roofline_);
    // The table has two dozen columns: it gets three fifths and never less than a few of them; the
    // chart, two fifths (drag the handle for more).
    view_->setMinimumWidth(420);
    roofline_->setMinimumWidth(260);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setCollapsible(0, false);
    layout->addWidget(split, 1);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        if (!current.isValid()) return;
        const int row = proxy_->mapToSource(current).row();
        const AttentionInstance& a = model_->rows()[size_t(row)];
        roofline_->setHighlighted(row);
        emit callSelected(a.event, a.start_ns, a.end_ns);
    });
    // A point of the chart selects its call in the table (and so in the timeline).
    connect(roofline_, &RooflineChart::pointClicked, this, [this](int row) {
        const QModelIndex at = proxy_->mapFromSource(model_->index(row, 0));
        if (at.isValid()) view_->setCurrentIndex(at);
    });
    setCalls({}, {}, 0);
}

void AttentionView::showRun(const NamedRun& run, bool large) {
    if (!run.result || !run.analysis) {
        setCalls({}, {}, 0);
        return;
    }
    const RunAnalysis& a = *run.analysis;
    setCalls(a.attention, a.roofs, run.result->trace.begin_ns(), a.gpu, large);
}

void AttentionView::setCalls(std::vector<AttentionInstance> calls, std::vector<Roof> roofs, int64_t begin_ns,
                             const std::vector<GpuBreakdown>& gpu, bool chart_later) {
    model_->setBegin(begin_ns);
    // The chart (two replots, tens of ms) in an event-loop turn of its own for a large trace.
    run_steps(this, chart_later, {[this, roofs, points = roofline_points(calls), generation = ++generation_] {
                  if (generation == generation_)
                      roofline_->setData(roofs, points);  // a point's index is its call's row
              }});
    model_->setRoofs(std::move(roofs));
    summary_->setText(
        calls.empty()
            ? tr("No attention calls in this run: none of scaled_dot_product_attention's ops, no library's or engine's "
                 "attention op or kernel (vLLM, SGLang, FlashInfer, flash-attn, xformers, aiter, TensorRT-LLM, Triton: "
                 "attnwb inspect --attention-rules lists them), and no matmul -> softmax -> matmul with recorded "
                 "shapes "
                 "(record_shapes=True)")
            : tr("Attention: %1. FLOP: 2 x visible pairs x (D + Dv) forward, backward 2.5x (FlashAttention's "
                 "convention); causal top-left as PyTorch's is_causal; ? where the trace does not hold the sequences' "
                 "lengths (hover the Notes). Select a call to see it in the timeline.")
                  .arg(QString::fromStdString(format_attention_totals(attention_totals(calls, gpu)))));
    model_->setRows(std::move(calls));
    fit_columns(view_, AttentionTableModel::column(AttentionColumn::Backend));
    view_->setColumnWidth(AttentionTableModel::column(AttentionColumn::Notes),
                          std::min(view_->columnWidth(AttentionTableModel::column(AttentionColumn::Notes)),
                                   420));  // the tooltip has it all
}

}  // namespace awb::ui
