#include "snapshot_ops_panel.h"

#include <QItemSelectionModel>
#include <QStringList>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "analysis/snapshot_ops_text.h"
#include "background.h"
#include "format_qt.h"
#include "lines_label.h"
#include "table_columns.h"

namespace awb::ui {

OpMemoryModel::OpMemoryModel(QObject* parent)
    : RowTableModel(
          {{"At peak", "Bytes of the blocks it allocated that were alive at their device's peak: what it holds there"},
           {"Blocks at peak", "How many of its blocks were alive at the peak"},
           {"Allocated", "Bytes of every block it allocated while the snapshot recorded"},
           {"Allocations", "Blocks it allocated (not those of an operator under it)"},
           {"Operator",
            "The operator running when the blocks were allocated: the shortest one running during the allocation's "
            "microsecond, on any thread; click for its blocks (its children's included)",
            true}},
          Operator, parent) {}

QString OpMemoryModel::text(int r, int c) const {
    const OpMemoryRow& o = row(r);
    switch (c) {
        case AtPeak: return format_bytes(o.bytes_at_peak);
        case BlocksAtPeak: return QString::number(o.at_peak);
        case Allocated: return format_bytes(o.bytes);
        case Allocations: return QString::number(o.allocations);
        default: return QString::fromStdString(o.name);
    }
}

double OpMemoryModel::value(int r, int c) const {
    const OpMemoryRow& o = row(r);
    switch (c) {
        case AtPeak: return double(o.bytes_at_peak);
        case BlocksAtPeak: return double(o.at_peak);
        case Allocated: return double(o.bytes);
        default: return double(o.allocations);
    }
}

OpBlockModel::OpBlockModel(QObject* parent)
    : RowTableModel({{"Allocated", "The trace event that allocated the block (device: event)", false, true},
                     {"Time", "When, after the trace's first event (the snapshot's microseconds)"},
                     {"Size", "The block's bytes"},
                     {"At peak", "Alive at its device's peak"},
                     {"Made by", "The operator running then: the chosen one or one under it", true},
                     {"Allocated by",
                      "The innermost frame of its stack in the model's Python code; its colour in the chart", true},
                     {"Stack", "Its stack, innermost first (hover for the whole)", true}},
                    MadeBy, parent) {}

void OpBlockModel::setAllocations(std::shared_ptr<const SnapshotOpsShown> shown, std::vector<OpAllocation> rows) {
    shown_ = std::move(shown);
    setRows(std::move(rows));
}

const SnapshotEvent& OpBlockModel::event(int r) const {
    const OpAllocation& a = row(r);
    return shown_->shown->snapshot->device_traces[size_t(a.device)][size_t(a.event)];
}

QString OpBlockModel::text(int r, int c) const {
    const OpAllocation& a = row(r);
    const SnapshotEvent& e = event(r);
    switch (c) {
        case Allocated:
            return tr("%1: event %2")
                .arg(QString::fromStdString(shown_->shown->snapshot->device_name(a.device)))
                .arg(a.event);
        case Time: return QString::fromStdString(time_in_trace(e, *shown_->trace));
        case Size: return format_bytes(e.size);
        case AtPeak: return alive_at_peak(shown_->at_peak, a) ? tr("yes") : tr("no");
        case MadeBy: return QString::fromUtf8(operator_name(*shown_->trace, a.op));
        case AllocatedBy: return shown_->shown->frameText(shown_->shown->allocatingFrame(e.stack));
        default: return shown_->shown->stackText(e.stack, 4).replace(QLatin1Char('\n'), QStringLiteral(" <- "));
    }
}

double OpBlockModel::value(int r, int c) const {
    const OpAllocation& a = row(r);
    switch (c) {
        case Allocated: return double(a.device) * 1e15 + double(a.event);
        case Time: return double(event(r).time_us);
        case AtPeak: return alive_at_peak(shown_->at_peak, a) ? 1 : 0;
        default: return double(event(r).size);
    }
}

QVariant OpBlockModel::roleData(int r, int c, int role) const {
    if (role == Qt::ToolTipRole && c == Stack) return shown_->shown->stackText(event(r).stack, 64);
    if (role == Qt::DecorationRole && c == AllocatedBy) {
        QPixmap swatch(10, 10);
        swatch.fill(shown_->shown->colourOf(event(r).stack));
        return swatch;
    }
    return {};
}

SnapshotOpsPanel::SnapshotOpsPanel(QWidget* parent)
    : QWidget(parent),
      status_(new LinesLabel),
      op_status_(new LinesLabel),
      ops_model_(new OpMemoryModel(this)),
      blocks_model_(new OpBlockModel(this)),
      op_view_(sorted_table(ops_model_, OpMemoryModel::AtPeak, Qt::DescendingOrder, this)),
      block_view_(sorted_table(blocks_model_, OpBlockModel::Allocated, Qt::AscendingOrder, this)) {
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    op_status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    op_view_->setSelectionMode(QAbstractItemView::SingleSelection);
    connect(op_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid()) return;
                const QModelIndex name = current.siblingAtColumn(OpMemoryModel::Operator);
                showOperator(name.data().toString());
            });
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(op_view_);
    auto* blocks = new QWidget;
    auto* blocks_layout = new QVBoxLayout(blocks);
    blocks_layout->setContentsMargins(0, 0, 0, 0);
    blocks_layout->addWidget(op_status_);
    blocks_layout->addWidget(block_view_, 1);
    split->addWidget(blocks);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(status_);
    layout->addWidget(split, 1);
    display();
}

QLabel* SnapshotOpsPanel::status() const { return status_; }
int SnapshotOpsPanel::operatorCount() const { return ops_model_->rowCount(); }

void SnapshotOpsPanel::setShown(std::shared_ptr<const SnapshotShown> shown) {
    shown_ = std::move(shown);
    attribute();
}

void SnapshotOpsPanel::setTrace(std::shared_ptr<const Trace> trace, const QString& name) {
    trace_ = std::move(trace);
    trace_name_ = name;
    attribute();
}

namespace {

// What the background work gives the page: the allocations' operators and the peaks inside the trace.
struct Placed {
    std::shared_ptr<const SnapshotOps> ops;
    std::vector<TracePeak> peaks;
};

}  // namespace

// The allocations given to the trace's operators, again only when the snapshot or the trace changed
// (a new frame filter changes the peak, not who allocated what); the peaks inside the trace each time
// (a replay up to one where the device's own peak is outside it), off the GUI thread when large.
void SnapshotOpsPanel::attribute() {
    const int generation = ++generation_;
    if (!shown_ || !trace_) {
        ops_.reset();
        peaks_.clear();
        display();
        return;
    }
    const bool placed = ops_ && ops_snapshot_ == shown_->snapshot.get() && ops_trace_ == trace_.get();
    const bool large = shown_->snapshot->event_count() + int64_t(trace_->events().size()) >= int64_t(kBackgroundEvents);
    if (large && !placed)
        status_->setLines(tr("Placing the snapshot's allocations in %1's operators...").arg(trace_name_));
    compute_then(
        this, large,
        [shown = shown_, trace = trace_, ops = placed ? ops_ : nullptr] {
            auto out = std::make_shared<Placed>();
            out->ops = ops ? ops : std::make_shared<const SnapshotOps>(attribute_allocations(*shown->snapshot, *trace));
            out->peaks = trace_peaks(*shown->snapshot, shown->timeline(), shown->options, *trace);
            return std::shared_ptr<const Placed>(std::move(out));
        },
        [this, generation, snapshot = shown_->snapshot.get(), trace = trace_.get()](std::shared_ptr<const Placed> out) {
            if (generation != generation_) return;  // newer inputs are coming
            ops_ = out->ops;
            peaks_ = out->peaks;
            ops_snapshot_ = snapshot;
            ops_trace_ = trace;
            display();
        });
}

void SnapshotOpsPanel::display() {
    if (!shown_ || !trace_ || !ops_) {
        page_.reset();
        ops_model_->setRows({});
        blocks_model_->setAllocations(nullptr, {});
        op_status_->setLines(QString());
        marks_.clear();
        status_->setLines(
            !trace_
                ? tr("Open the chrome trace of the same run too (File > Open; profiled while the snapshot recorded) "
                     "to see "
                     "which operator allocated each block, and select an operator to see its blocks")
                : tr("Open the memory snapshot of the run of %1 (File > Open its pickle) to see which of its operators "
                     "allocated what")
                      .arg(trace_name_));
        emit updated();
        return;
    }
    auto page = std::make_shared<SnapshotOpsShown>();
    page->shown = shown_;
    page->trace = trace_;
    page->ops = ops_;
    page->at_peak = allocs_at_peak(peaks_);
    page_ = std::move(page);
    const std::string why = attribution_problem(*ops_, *trace_);
    QStringList lines{
        why.empty()
            ? tr("%1 of %2 allocations made inside operators of %3; select one (here or in the Operators panel) for "
                 "its blocks, marked in the chart")
                  .arg(ops_->in_ops)
                  .arg(ops_->allocations)
                  .arg(trace_name_)
            : tr("%1: %2").arg(trace_name_, QString::fromStdString(why))};
    for (const TracePeak& p : peaks_)
        if (const std::string text = trace_peak_text(p, shown_->timeline(), *shown_->snapshot); !text.empty())
            lines << QString::fromStdString(text);
    status_->setLines(lines.join(QLatin1Char('\n')));
    ops_model_->setRows(why.empty() ? op_memory_rows(*ops_, *shown_->snapshot, *trace_, page_->at_peak)
                                    : std::vector<OpMemoryRow>{});
    fit_columns(op_view_, OpMemoryModel::Operator);
    showBlocks();
}

void SnapshotOpsPanel::showOperator(const QString& name) {
    if (name == op_) return;
    op_ = name;
    showBlocks();
}

void SnapshotOpsPanel::showBlocks() {
    if (!page_) {
        emit updated();
        return;
    }
    std::vector<OpAllocation> under =
        op_.isEmpty() ? std::vector<OpAllocation>{} : allocations_under(*page_->ops, *page_->trace, op_.toStdString());
    const AllocationBytes bytes = allocation_bytes(*page_->shown->snapshot, page_->at_peak, under);
    marks_.clear();
    for (const OpAllocation& a : under) marks_[a.device].push_back(a.event);
    op_status_->setLines(
        op_.isEmpty()
            ? tr("Select an operator for the blocks allocated while it ran")
            : tr("Allocated while %1 ran (by it or an operator under it): %2 block(s), %3; alive at the peak %4")
                  .arg(op_)
                  .arg(under.size())
                  .arg(format_bytes(bytes.bytes), format_bytes(bytes.at_peak)));
    blocks_model_->setAllocations(page_, std::move(under));
    fit_columns(block_view_, OpBlockModel::MadeBy);
    emit updated();
}

std::pair<int64_t, int64_t> SnapshotOpsPanel::traceSpan(int device) const {
    if (!page_) return {-1, -1};
    for (const TracePeak& p : peaks_)
        if (p.device == device) return {p.first_x, p.last_x};
    return {-1, -1};
}

std::vector<int64_t> SnapshotOpsPanel::marks(int device) const {
    const auto it = marks_.find(device);
    return it == marks_.end() ? std::vector<int64_t>{} : it->second;
}

}  // namespace awb::ui
