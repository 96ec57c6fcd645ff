#include "snapshot_diff_panel.h"

#include <QHBoxLayout>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include <cstdlib>

#include "background.h"
#include "analysis/snapshot_text.h"
#include "format_qt.h"
#include "lines_label.h"
#include "model/units.h"
#include "table_columns.h"

namespace awb::ui {

SnapshotDiffModel::SnapshotDiffModel(QObject* parent)
    : RowTableModel(
          {{"In", "both: blocks allocated under this frame in A and B; new in B; gone in B (only in A)", true},
           {"A at peak", "Bytes of A's blocks alive at its peak allocated under this frame"},
           {"B at peak", "The same in B"},
           {"Change at peak", "B minus A at the peak: what B holds more (+) or less (-) there"},
           {"A blocks", "A's blocks at its peak under this frame"},
           {"B blocks", "B's blocks at its peak under this frame"},
           {"A allocs", "Allocations in A's trace under this frame"},
           {"B allocs", "Allocations in B's trace under this frame"},
           {"A allocated", "Bytes of those allocations in A"},
           {"B allocated", "Bytes of those allocations in B"},
           {"Allocated by",
            "The frame that allocated the blocks (the model's line), by its text: the same in both runs", true}},
          Frame, parent) {}

QString SnapshotDiffModel::text(int r, int c) const {
    const SnapshotDiffRow& d = row(r);
    switch (c) {
        case Status: return QString::fromLatin1(diff_status(d));
        case PeakA: return format_bytes(d.a.peak_bytes);
        case PeakB: return format_bytes(d.b.peak_bytes);
        case PeakDelta: return QString::fromStdString(awb::format_signed_bytes(d.peak_delta()));
        case BlocksA: return QString::number(d.a.peak_blocks);
        case BlocksB: return QString::number(d.b.peak_blocks);
        case AllocsA: return QString::number(d.a.allocs);
        case AllocsB: return QString::number(d.b.allocs);
        case AllocBytesA: return format_bytes(d.a.alloc_bytes);
        case AllocBytesB: return format_bytes(d.b.alloc_bytes);
        default: return QString::fromStdString(d.frame);
    }
}

double SnapshotDiffModel::value(int r, int c) const {
    const SnapshotDiffRow& d = row(r);
    switch (c) {
        case PeakA: return double(d.a.peak_bytes);
        case PeakB: return double(d.b.peak_bytes);
        case PeakDelta: return double(std::llabs(d.peak_delta()));  // the largest change first, either way
        case BlocksA: return double(d.a.peak_blocks);
        case BlocksB: return double(d.b.peak_blocks);
        case AllocsA: return double(d.a.allocs);
        case AllocsB: return double(d.b.allocs);
        case AllocBytesA: return double(d.a.alloc_bytes);
        default: return double(d.b.alloc_bytes);
    }
}

QVariant SnapshotDiffModel::roleData(int r, int c, int role) const {
    if (role != Qt::ForegroundRole || (c != PeakDelta && c != Status)) return {};
    const SnapshotDiffRow& d = row(r);
    const bool less = c == PeakDelta ? d.peak_delta() < 0 : !d.in_b();
    const bool more = c == PeakDelta ? d.peak_delta() > 0 : !d.in_a();
    if (less) return QColor(0x1a, 0x7f, 0x37);
    if (more) return QColor(0xb0, 0x00, 0x20);
    return {};
}

SnapshotDiffPanel::SnapshotDiffPanel(QWidget* parent)
    : QWidget(parent),
      status_(new LinesLabel),
      swap_(new QPushButton(tr("Swap A and B"))),
      model_(new SnapshotDiffModel(this)),
      view_(sorted_table(model_, SnapshotDiffModel::PeakDelta, Qt::DescendingOrder, this)) {
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    swap_->setToolTip(tr("Compare the other way round: B becomes the baseline"));
    swap_->setEnabled(false);
    connect(swap_, &QPushButton::clicked, this,
            [this] { setSnapshots(b_, b_name_, a_, a_name_, b_replayed_, a_replayed_); });
    auto* top = new QHBoxLayout;
    top->addWidget(status_, 1);
    top->addWidget(swap_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(view_, 1);
    display();
}

QLabel* SnapshotDiffPanel::status() const { return status_; }

void SnapshotDiffPanel::setSnapshots(std::shared_ptr<const MemorySnapshot> a, const QString& a_name,
                                     std::shared_ptr<const MemorySnapshot> b, const QString& b_name,
                                     std::shared_ptr<const SnapshotTimeline> a_replayed,
                                     std::shared_ptr<const SnapshotTimeline> b_replayed) {
    a_ = std::move(a);
    b_ = std::move(b);
    a_replayed_ = std::move(a_replayed);
    b_replayed_ = std::move(b_replayed);
    a_name_ = a_name;
    b_name_ = b_name;
    compare();
}

void SnapshotDiffPanel::showDevice(int device) {
    device_ = device;
    display();
}

void SnapshotDiffPanel::compare() {
    const int generation = ++generation_;
    diff_.reset();
    if (!a_ || !b_) {
        display();
        return;
    }
    const bool large = a_->event_count() + b_->event_count() >= int64_t(kBackgroundEvents);
    if (large) status_->setLines(tr("Comparing %1 with %2...").arg(b_name_, a_name_));
    compute_then(
        this, large,
        [a = a_, b = b_, a_replayed = a_replayed_, b_replayed = b_replayed_] {
            const auto replayed = [](const MemorySnapshot& s, const std::shared_ptr<const SnapshotTimeline>& given) {
                return given ? given : std::make_shared<const SnapshotTimeline>(analyze_snapshot(s));
            };
            return std::make_shared<const SnapshotDiff>(
                diff_snapshots(*a, *replayed(*a, a_replayed), *b, *replayed(*b, b_replayed)));
        },
        [this, generation](std::shared_ptr<const SnapshotDiff> diff) {
            if (generation != generation_) return;
            diff_ = std::move(diff);
            display();
        });
}

void SnapshotDiffPanel::display() {
    swap_->setEnabled(a_ && b_);
    const SnapshotDeviceDiff* d = nullptr;
    if (diff_)
        for (const SnapshotDeviceDiff& dev : diff_->devices)
            if (!d || dev.device == device_) d = &dev;
    if (!d) {
        model_->setRows({});
        status_->setLines(
            !a_ || !b_
                ? tr("Open a second snapshot (File > Open) to compare it with this one: the one open before is A, "
                     "the new one B (manual attention, then SDPA: which allocations appear and disappear)")
                : tr("A %1 and B %2: neither has a device with a trace or segments").arg(a_name_, b_name_));
        emit updated();
        return;
    }
    status_->setLines(
        tr("A: %1, B: %2 (%3): peak allocated A %4, B %5 (%6); peak reserved A %7, B %8; trace events A %9, B %10")
            .arg(a_name_, b_name_)
            .arg(QString::fromStdString(a_->device_name(d->device)))
            .arg(format_bytes(d->peak_a), format_bytes(d->peak_b),
                 QString::fromStdString(awb::format_signed_bytes(d->peak_b - d->peak_a)),
                 QString::fromStdString(reserved_text(d->reserved_recorded_a, d->peak_reserved_a)),
                 QString::fromStdString(reserved_text(d->reserved_recorded_b, d->peak_reserved_b)))
            .arg(d->events_a)
            .arg(d->events_b));
    model_->setRows(d->rows);
    fit_columns(view_, SnapshotDiffModel::Frame);
    emit updated();
}

}  // namespace awb::ui
