#include "memory_snapshot_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

#include "analysis/snapshot_text.h"
#include "background.h"
#include "format_qt.h"
#include "lines_label.h"
#include "memory_bands_chart.h"
#include "operator_table_model.h"
#include "snapshot_models.h"
#include "snapshot_diff_panel.h"
#include "snapshot_ops_panel.h"
#include "table_columns.h"

namespace awb::ui {

MemorySnapshotView::MemorySnapshotView(QWidget* parent)
    : QWidget(parent),
      summary_(new LinesLabel),
      device_(new QComboBox),
      filter_(new QLineEdit),
      filter_timer_(new QTimer(this)),
      chart_(new MemoryBandsChart),
      details_(new LinesLabel),
      tabs_(new QTabWidget),
      peak_(new SnapshotBlockModel(this)),
      frames_(new SnapshotFrameModel(this)),
      before_(new SnapshotBlockModel(this)),
      segments_(new SegmentModel(this)),
      peak_view_(sorted_table(peak_, SnapshotBlockModel::Size, Qt::DescendingOrder, this)),
      frame_view_(sorted_table(frames_, SnapshotFrameModel::Bytes, Qt::DescendingOrder, this)),
      before_view_(sorted_table(before_, SnapshotBlockModel::Size, Qt::DescendingOrder, this)),
      segment_view_(sorted_table(segments_, SegmentModel::Address, Qt::AscendingOrder, this)),
      segment_summary_(new LinesLabel),
      ops_(new SnapshotOpsPanel),
      diff_(new SnapshotDiffPanel) {
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    filter_->setPlaceholderText(
        tr("Frame filter (e.g. attention, softmax, model.py:42): only blocks allocated under it"));
    filter_->setClearButtonEnabled(true);
    filter_->setToolTip(
        tr("Count only the blocks with a stack frame whose text (function, file:line) contains this, "
           "case-insensitive: the chart, the peak and its tables follow"));
    device_->setToolTip(tr("The GPU whose memory is shown"));
    device_->setVisible(false);
    filter_timer_->setSingleShot(true);
    filter_timer_->setInterval(250);  // replay once typing pauses
    connect(filter_, &QLineEdit::textChanged, filter_timer_, qOverload<>(&QTimer::start));
    connect(filter_timer_, &QTimer::timeout, this, &MemorySnapshotView::replay);
    connect(device_, qOverload<int>(&QComboBox::currentIndexChanged), this, &MemorySnapshotView::showDevice);
    connect(chart_, &MemoryBandsChart::bandClicked, this, &MemorySnapshotView::showPinned);
    for (QTableView* view : {peak_view_, before_view_})
        view->setItemDelegateForColumn(SnapshotBlockModel::Share, new ShareBarDelegate(view));
    frame_view_->setItemDelegateForColumn(SnapshotFrameModel::Share, new ShareBarDelegate(frame_view_));
    segment_view_->setItemDelegateForColumn(SegmentModel::Map, new SegmentMapDelegate(segments_, segment_view_));

    buildTabs();
    layOut();
    summary_->setLines(
        tr("No memory snapshot open: File > Open a torch.cuda.memory._dump_snapshot pickle (plain or .gz), or "
           "record one with attnwb profile --memory-snapshot on a GPU"));
}

// The pages under the chart: the peak's blocks and frames, the blocks from before recording, the
// segments, the operators of the same run's profile and the comparison with the previous snapshot.
void MemorySnapshotView::buildTabs() {
    auto* segments_page = new QWidget;
    auto* segments_layout = new QVBoxLayout(segments_page);
    segments_layout->setContentsMargins(0, 0, 0, 0);
    segments_layout->addWidget(segment_summary_);
    segments_layout->addWidget(segment_view_, 1);
    tabs_->addTab(peak_view_, tr("Blocks at the peak"));
    tabs_->addTab(frame_view_, tr("Frames at the peak"));
    tabs_->addTab(before_view_, tr("Alive before recording"));
    tabs_->addTab(segments_page, tr("Segments"));
    tabs_->addTab(ops_, tr("Operators"));
    tabs_->setTabToolTip(
        4, tr("Which operator of the same run's profile allocated each block (open its chrome trace too)"));
    tabs_->addTab(diff_, tr("Compare"));
    tabs_->setTabToolTip(
        5, tr("This snapshot (B) against the one opened before it (A), by the frames that allocated their blocks "
              "(every block: the frame filter does not apply)"));
    connect(diff_, &SnapshotDiffPanel::updated, this,
            [this] { tabs_->setTabText(5, previous_ ? tr("Compare with %1").arg(previous_name_) : tr("Compare")); });
    connect(ops_, &SnapshotOpsPanel::updated, this, [this] {
        const int row = device_->currentIndex();
        const bool shown = shown_ && row >= 0 && size_t(row) < shown_->timeline().devices.size();
        chart_->setMarks(shown ? ops_->marks(shown_->timeline().devices[size_t(row)].device) : std::vector<int64_t>{});
        chart_->setTraceSpan(shown ? ops_->traceSpan(shown_->timeline().devices[size_t(row)].device)
                                   : std::pair<int64_t, int64_t>{-1, -1});
        if (!chart_->marks().empty())
            details_->setLines(
                tr("Outlined in red, with a tick under each: the %1 block(s) allocated while %2 ran (the Operators "
                   "page lists them)")
                    .arg(chart_->marks().size())
                    .arg(ops_->currentOperator()));
        tabs_->setTabText(4, ops_->operatorCount() ? tr("Operators (%1)").arg(ops_->operatorCount()) : tr("Operators"));
    });
}

// The summary and the filter above, the chart over the pages (three fifths to the chart).
void MemorySnapshotView::layOut() {
    auto* top = new QHBoxLayout;
    top->addWidget(filter_, 1);
    top->addWidget(device_);
    auto* chart_box = new QWidget;
    auto* chart_layout = new QVBoxLayout(chart_box);
    chart_layout->setContentsMargins(0, 0, 0, 0);
    chart_layout->addWidget(chart_, 1);
    chart_layout->addWidget(details_);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(chart_box);
    split->addWidget(tabs_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({600, 400});  // scaled to the dock at its first layout: the chart three fifths
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(summary_);
    layout->addLayout(top);
    layout->addWidget(split, 1);
}

QLabel* MemorySnapshotView::summary() const { return summary_; }

void MemorySnapshotView::setSnapshot(std::shared_ptr<const MemorySnapshot> snapshot, const QString& name,
                                     std::shared_ptr<const SnapshotTimeline> replayed) {
    if (snapshot_ && snapshot_ != snapshot) {
        previous_ = std::move(snapshot_);
        previous_replayed_ = std::move(replayed_);
        previous_name_ = name_;
    }
    snapshot_ = std::move(snapshot);
    replayed_ = std::move(replayed);
    name_ = name;
    diff_->setSnapshots(previous_, previous_name_, snapshot_, name_, previous_replayed_, replayed_);
    replay();
}

void MemorySnapshotView::setTrace(std::shared_ptr<const Trace> trace, const QString& name) {
    ops_->setTrace(std::move(trace), name);
}

void MemorySnapshotView::showOperator(const QString& name) { ops_->showOperator(name); }

void MemorySnapshotView::setFilter(const QString& text) {
    filter_->setText(text);
    filter_timer_->stop();
    replay();
}

void MemorySnapshotView::replay() {
    if (!snapshot_) return;
    const int generation = ++generation_;
    const bool large = snapshot_->event_count() >= int64_t(kBackgroundEvents);
    if (large) summary_->setLines(tr("Replaying %1 (%2 events)...").arg(name_).arg(snapshot_->event_count()));
    compute_then(
        this, large,
        [snapshot = snapshot_, filter = filter_->text(), replayed = replayed_] {
            return std::make_shared<const SnapshotShown>(snapshot_shown(snapshot, filter, replayed));
        },
        [this, generation](std::shared_ptr<const SnapshotShown> shown) {
            if (generation == generation_) display(std::move(shown));  // else a newer filter's replay is coming
        });
}

void MemorySnapshotView::display(std::shared_ptr<const SnapshotShown> shown) {
    const int keep = device_->currentIndex();
    shown_ = std::move(shown);
    const QSignalBlocker quiet(device_);
    device_->clear();
    for (const DeviceMemoryTimeline& t : shown_->timeline().devices)
        device_->addItem(QString::fromStdString(shown_->snapshot->device_name(t.device)));
    device_->setVisible(device_->count() > 1);
    device_->setCurrentIndex(keep >= 0 && keep < device_->count() ? keep : 0);
    showDevice(device_->currentIndex());
    ops_->setShown(shown_);  // the Operators page's peak follows the filter
    emit replayed();
}

void MemorySnapshotView::showDevice(int row) {
    if (!shown_) return;
    chart_->setData(shown_, row);
    details_->setLines(
        tr("Hover a block for its size and stack; click to pin it here. Wheel: zoom, drag: pan, double-click: all "
           "events."));
    if (row < 0 || size_t(row) >= shown_->timeline().devices.size()) {
        summary_->setLines(tr("%1: no device has a trace or segments (an empty snapshot)").arg(name_));
        peak_->setShown(shown_, {}, 0);
        frames_->setShown(shown_, {}, 0);
        before_->setShown(shown_, {}, 0);
        segments_->setSegments(shown_, -1);
        return;
    }
    const DeviceMemoryTimeline& t = shown_->timeline().devices[size_t(row)];
    chart_->setMarks(ops_->marks(t.device));
    chart_->setTraceSpan(ops_->traceSpan(t.device));
    diff_->showDevice(t.device);
    summary_->setLines(summaryText(t));
    peak_->setShown(shown_, t.at_peak, t.peak_allocated);
    frames_->setShown(shown_, t.frames_at_peak, t.peak_allocated);
    before_->setShown(shown_, t.before_recording, bytes_of(t.before_recording));
    segments_->setSegments(shown_, t.device);
    tabs_->setTabText(0, tr("Blocks at the peak (%1)").arg(t.at_peak.size()));
    tabs_->setTabText(2, tr("Alive before recording (%1)").arg(t.before_recording.size()));
    tabs_->setTabText(3, tr("Segments (%1)").arg(segments_->rowCount()));
    segment_summary_->setLines(
        segments_->rowCount() == 0
            ? tr("The snapshot holds no segments for this device (a snapshot made from a profile has none)")
        : !t.reserved_recorded
            ? tr("Its segment is no allocator's: it spans the addresses the tensors had (a CPU profile's conversion by "
                 "_profile_to_snapshot), so the snapshot does not say what was reserved; %1 allocated at the snapshot")
                  .arg(format_bytes(t.final_allocated))
            : tr("At the snapshot: %1 reserved in %2 segments, %3 allocated, %4 free inside segments (%5 of "
                 "reserved: what "
                 "the allocator holds but no block uses)\ntorch.cuda.empty_cache() returns only whole free segments to "
                 "the device")
                  .arg(format_bytes(t.final_reserved))
                  .arg(segments_->rowCount())
                  .arg(format_bytes(t.final_allocated), format_bytes(t.final_reserved - t.final_allocated),
                       format_share(double(t.final_reserved - t.final_allocated), double(t.final_reserved))));
    for (QTableView* view : {peak_view_, before_view_}) {
        fit_columns(view, SnapshotBlockModel::AllocatedBy);
        view->setColumnWidth(SnapshotBlockModel::AllocatedBy,
                             std::max(view->columnWidth(SnapshotBlockModel::AllocatedBy), 300));
    }
    fit_columns(frame_view_, SnapshotFrameModel::Frame);
    fit_columns(segment_view_, SegmentModel::Type);
    segment_view_->setColumnWidth(SegmentModel::Map, 320);
}

QString MemorySnapshotView::summaryText(const DeviceMemoryTimeline& t) const {
    QString text =
        tr("%1, %2: %3 trace events; peak allocated %4 %5, peak reserved %6\nAt the snapshot %7 allocated%8")
            .arg(name_)
            .arg(QString::fromStdString(shown_->snapshot->device_name(t.device)))
            .arg(t.events)
            .arg(format_bytes(t.peak_allocated),
                 t.peak_index == 0 ? tr("before the first event") : tr("after event %1").arg(t.peak_index - 1),
                 QString::fromStdString(reserved_text(t.reserved_recorded, t.peak_reserved)),
                 format_bytes(t.final_allocated),
                 t.reserved_recorded ? tr(" of %1 reserved").arg(format_bytes(t.final_reserved)) : QString());
    if (!t.before_recording.empty())
        text += tr("; %1 block(s) of %2 alive before recording began (hatched)")
                    .arg(t.before_recording.size())
                    .arg(format_bytes(bytes_of(t.before_recording)));
    if (!shown_->filter.isEmpty())
        text += tr("; filter '%1': %2 of the blocks counted").arg(shown_->filter).arg(t.blocks);
    if (t.ooms) text += tr("; out of memory %1 time(s)").arg(t.ooms);
    if (t.unmatched_frees)
        text += tr("; %1 free(s) of blocks the trace never allocated (its history wrapped?)").arg(t.unmatched_frees);
    for (const auto& [action, count] : shown_->snapshot->unknown_actions)
        text += tr("; %1 event(s) '%2' not read").arg(count).arg(QString::fromStdString(action));
    return text;
}

void MemorySnapshotView::showPinned(int band) {
    const DeviceMemoryTimeline* t =
        shown_ && device_->currentIndex() >= 0 ? &shown_->timeline().devices[size_t(device_->currentIndex())] : nullptr;
    if (!t || band < 0) {
        details_->setLines(
            tr("Hover a block for its size and stack; click to pin it here. Wheel: zoom, drag: pan, double-click: all "
               "events."));
        return;
    }
    const BlockBand& b = t->bands[size_t(band)];
    details_->setLines(
        tr("Pinned: %1 block, %2, allocated by %3; stack: %4")
            .arg(format_bytes(b.block.size),
                 b.block.alloc_event < 0 ? tr("alive before recording began")
                                         : tr("allocated at event %1").arg(b.block.alloc_event),
                 shown_->frameText(shown_->allocatingFrame(b.block.stack)),
                 shown_->stackText(b.block.stack, 8).replace(QLatin1Char('\n'), QStringLiteral(" <- "))));
}

}  // namespace awb::ui
