#include "snapshot_models.h"

#include <QPainter>

#include <algorithm>

#include "format_qt.h"

namespace awb::ui {

namespace {

// A swatch of a frame's colour, for the cells that name one.
QVariant swatch(const QColor& colour) {
    QPixmap pixmap(10, 10);
    pixmap.fill(colour);
    return pixmap;
}

}  // namespace

SnapshotBlockModel::SnapshotBlockModel(QObject* parent)
    : SnapshotShareModel(
          {{"Size", "The block's bytes (the caching allocator's rounded size)"},
           {"% of peak", "Its share of the allocated bytes at the peak"},
           {"Address", "Where the block starts", true},
           {"Allocated",
            "The trace event that allocated it; 'before recording' for a block alive when recording began "
            "(reconstructed from the final state and the frees)",
            false, true},
           {"Allocated by",
            "The innermost frame of its stack in the model's Python code (outside torch); its colour in the chart",
            true},
           {"Stack", "Its stack, innermost first (hover for the whole)", true}},
          AllocatedBy, parent) {}

QString SnapshotBlockModel::text(int r, int c) const {
    const LiveBlock& b = row(r);
    switch (c) {
        case Size: return format_bytes(b.size);
        case Share: return shareText(b.size);
        case Address: return format_address(b.addr);
        case Allocated: return b.alloc_event < 0 ? tr("before recording") : tr("event %1").arg(b.alloc_event);
        case AllocatedBy: return shown_->frameText(shown_->allocatingFrame(b.stack));
        default: return shown_->stackText(b.stack, 4).replace(QLatin1Char('\n'), QStringLiteral(" <- "));
    }
}

double SnapshotBlockModel::value(int r, int c) const {
    const LiveBlock& b = row(r);
    return c == Allocated ? double(b.alloc_event) : double(b.size);
}

QVariant SnapshotBlockModel::roleData(int r, int c, int role) const {
    const LiveBlock& b = row(r);
    if (role == Qt::DecorationRole && c == AllocatedBy) return swatch(shown_->colourOf(b.stack));
    if (role == Qt::ToolTipRole && c == Stack) return shown_->stackText(b.stack, 64);
    if (role == ShareRole && c == Share) return share(b.size);
    return {};
}

SnapshotFrameModel::SnapshotFrameModel(QObject* parent)
    : SnapshotShareModel(
          {{"Bytes",
            "Bytes at the peak of the blocks with this frame anywhere in their stack (a block counts for every "
            "frame of its stack, so the rows add up to more than the peak)"},
           {"% of peak", "Those bytes over the allocated bytes at the peak"},
           {"Blocks", "Blocks at the peak under this frame"},
           {"Frame",
            "The frame (function, file and line); a swatch where it is the frame that allocated blocks drawn in the "
            "chart",
            true}},
          Frame, parent) {}

QString SnapshotFrameModel::text(int r, int c) const {
    const FrameBytes& f = row(r);
    switch (c) {
        case Bytes: return format_bytes(f.bytes);
        case Share: return shareText(f.bytes);
        case Blocks: return QString::number(f.blocks);
        default: return shown_->frameText(f.frame);
    }
}

double SnapshotFrameModel::value(int r, int c) const {
    const FrameBytes& f = row(r);
    return c == Blocks ? double(f.blocks) : double(f.bytes);
}

QVariant SnapshotFrameModel::roleData(int r, int c, int role) const {
    const FrameBytes& f = row(r);
    if (role == Qt::DecorationRole && c == Frame) {
        const auto it = shown_->colours.find(f.frame);
        if (it != shown_->colours.end()) return swatch(it->second);
    }
    if (role == ShareRole && c == Share) return share(f.bytes);
    return {};
}

SegmentModel::SegmentModel(QObject* parent)
    : RowTableModel(
          {{"Address", "Where the segment (one cudaMalloc, or an expandable segment's mapping) starts", true},
           {"Size", "The segment's bytes: reserved from the device"},
           {"Allocated", "Bytes of its active blocks"},
           {"Free", "Reserved but not allocated: its inactive blocks (fragmentation when no request fits them)"},
           {"Largest free", "Its largest inactive block: the largest request it can serve without a new segment"},
           {"Blocks", "Active blocks / all blocks"},
           {"Stream", "The CUDA stream the segment serves"},
           {"Type", "The pool: large (blocks > 1 MiB) or small", true},
           {"Map",
            "The segment from its start: active blocks in the colour of the frame that allocated them, free space "
            "empty",
            true}},
          Address, parent) {}

void SegmentModel::setSegments(std::shared_ptr<const SnapshotShown> shown, int device) {
    shown_ = std::move(shown);
    std::vector<SegmentRow> rows;
    for (const SnapshotSegment& seg : shown_->snapshot->segments) {
        if (seg.device != device) continue;
        SegmentRow r{&seg};
        for (const SnapshotBlock& b : seg.blocks) {
            if (b.active()) {
                r.allocated += b.size;
                ++r.active_blocks;
            } else {
                r.largest_free = std::max(r.largest_free, b.size);
            }
        }
        rows.push_back(r);
    }
    setRows(std::move(rows));
}

QString SegmentModel::text(int r, int c) const {
    const SegmentRow& s = row(r);
    switch (c) {
        case Address: return format_address(s.segment->address);
        case Size: return format_bytes(s.segment->total_size);
        case Allocated: return format_bytes(s.allocated);
        case Free: return format_bytes(s.segment->total_size - s.allocated);
        case LargestFree: return format_bytes(s.largest_free);
        case Blocks: return QStringLiteral("%1 / %2").arg(s.active_blocks).arg(s.segment->blocks.size());
        case Stream: return QString::number(s.segment->stream);
        case Type:
            return s.segment->segment_type.empty() ? QStringLiteral("-")
                                                   : QString::fromStdString(s.segment->segment_type);
        default: return {};
    }
}

double SegmentModel::value(int r, int c) const {
    const SegmentRow& s = row(r);
    switch (c) {
        case Size: return double(s.segment->total_size);
        case Allocated: return double(s.allocated);
        case Free:
        case Map: return double(s.segment->total_size - s.allocated);
        case LargestFree: return double(s.largest_free);
        case Blocks: return double(s.active_blocks);
        default: return double(s.segment->stream);
    }
}

QVariant SegmentModel::roleData(int r, int, int role) const { return role == SegmentRole ? QVariant(r) : QVariant(); }

void SegmentMapDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    QStyledItemDelegate::paint(painter, option, index);  // the selection's background
    const QVariant source = index.data(SegmentModel::SegmentRole);
    if (!source.isValid() || !model_->shown()) return;
    const SnapshotSegment& seg = *model_->rows()[size_t(source.toInt())].segment;
    const QRectF bar = QRectF(option.rect).adjusted(3, 4, -3, -4);
    painter->save();
    painter->setPen(QColor(0x80, 0x80, 0x80));
    painter->setBrush(option.palette.base());
    painter->drawRect(bar);
    painter->setPen(Qt::NoPen);
    const double scale = seg.total_size > 0 ? bar.width() / double(seg.total_size) : 0;
    for (const SnapshotBlock& b : seg.blocks) {
        if (!b.active()) continue;
        const double x = bar.left() + double(b.address - seg.address) * scale;
        painter->setBrush(model_->shown()->colourOf(b.stack));
        painter->drawRect(QRectF(x, bar.top(), std::max(1.0, double(b.size) * scale), bar.height()));
    }
    painter->restore();
}

}  // namespace awb::ui
