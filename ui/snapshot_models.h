// The Memory snapshot tab's tables as Qt models: the blocks alive at the peak (or before recording
// began), the bytes under each frame at the peak, and the device's segments with a map of the blocks
// inside each (SegmentMapDelegate paints it).
#pragma once

#include <QStyledItemDelegate>

#include <memory>

#include "format_qt.h"
#include "row_table_model.h"
#include "snapshot_shown.h"

namespace awb::ui {

// The base of the tables whose rows are bytes out of a whole (the peak's, or those alive before
// recording): the snapshot they name frames and colours from, and each row's share of the whole.
template <typename Row>
class SnapshotShareModel : public RowTableModel<Row> {
public:
    void setShown(std::shared_ptr<const SnapshotShown> shown, std::vector<Row> rows, int64_t whole) {
        shown_ = std::move(shown);
        whole_ = whole;
        this->setRows(std::move(rows));
    }

protected:
    using RowTableModel<Row>::RowTableModel;
    double share(int64_t bytes) const { return whole_ > 0 ? double(bytes) / double(whole_) : 0.0; }  // ShareRole's bar
    QString shareText(int64_t bytes) const { return format_share(double(bytes), double(whole_)); }
    std::shared_ptr<const SnapshotShown> shown_;
    int64_t whole_ = 0;
};

class SnapshotBlockModel : public SnapshotShareModel<LiveBlock> {
    Q_OBJECT
public:
    enum Column { Size, Share, Address, Allocated, AllocatedBy, Stack, ColumnCount };
    explicit SnapshotBlockModel(QObject* parent = nullptr);

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
    QVariant roleData(int row, int column, int role) const override;
};

class SnapshotFrameModel : public SnapshotShareModel<FrameBytes> {
    Q_OBJECT
public:
    enum Column { Bytes, Share, Blocks, Frame, ColumnCount };
    explicit SnapshotFrameModel(QObject* parent = nullptr);

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
    QVariant roleData(int row, int column, int role) const override;
};

// A segment's figures, summed once when the device is shown.
struct SegmentRow {
    const SnapshotSegment* segment = nullptr;
    int64_t allocated = 0;     // its active blocks' bytes
    int64_t largest_free = 0;  // its largest inactive block: the biggest request it can still serve
    int64_t active_blocks = 0;
};

class SegmentModel : public RowTableModel<SegmentRow> {
    Q_OBJECT
public:
    enum Column { Address, Size, Allocated, Free, LargestFree, Blocks, Stream, Type, Map, ColumnCount };
    enum { SegmentRole = ShareRole + 10 };  // the source row, for the map's delegate
    explicit SegmentModel(QObject* parent = nullptr);
    void setSegments(std::shared_ptr<const SnapshotShown> shown, int device);
    const SnapshotShown* shown() const { return shown_.get(); }

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
    QVariant roleData(int row, int column, int role) const override;

private:
    std::shared_ptr<const SnapshotShown> shown_;
};

// The Map column: the segment as a bar, each active block in its allocating frame's colour at its
// offset and size, the free space empty.
class SegmentMapDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    SegmentMapDelegate(const SegmentModel* model, QObject* parent) : QStyledItemDelegate(parent), model_(model) {}
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;

private:
    const SegmentModel* model_;
};

}  // namespace awb::ui
