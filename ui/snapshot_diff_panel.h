// The Memory snapshot tab's Compare page: the snapshot on screen (B) against the one open before it (A),
// as attnwb diff A.pickle B.pickle compares them (analysis/snapshot_diff): per device their peaks, and
// their blocks grouped by the frame that allocated them (its text stays the same across runs, where
// addresses do not): bytes and blocks at each peak, allocations over each trace, which groups are new
// in B or gone, the largest change at the peak first. Open manual attention's snapshot, then SDPA's:
// the frame that held the [B, H, N, N] scores is the row that shrinks.
#pragma once

#include <QWidget>

#include <memory>

#include "analysis/snapshot_diff.h"
#include "row_table_model.h"

class QLabel;
class QPushButton;
class QTableView;

namespace awb::ui {

class LinesLabel;

class SnapshotDiffModel : public RowTableModel<SnapshotDiffRow> {
    Q_OBJECT
public:
    enum Column {
        Status,
        PeakA,
        PeakB,
        PeakDelta,
        BlocksA,
        BlocksB,
        AllocsA,
        AllocsB,
        AllocBytesA,
        AllocBytesB,
        Frame,
        ColumnCount
    };
    explicit SnapshotDiffModel(QObject* parent = nullptr);

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
    QVariant roleData(int row, int column, int role) const override;
};

class SnapshotDiffPanel : public QWidget {
    Q_OBJECT
public:
    explicit SnapshotDiffPanel(QWidget* parent = nullptr);
    // A: the snapshot opened before (null: none yet), B: the one on screen. Compared off the GUI thread
    // when large; each replayed there unless its replay without a filter is given (A_REPLAYED, B_REPLAYED:
    // made beside its reading).
    void setSnapshots(std::shared_ptr<const MemorySnapshot> a, const QString& a_name,
                      std::shared_ptr<const MemorySnapshot> b, const QString& b_name,
                      std::shared_ptr<const SnapshotTimeline> a_replayed = nullptr,
                      std::shared_ptr<const SnapshotTimeline> b_replayed = nullptr);
    void showDevice(int device);  // the device whose rows are listed
    QTableView* table() const { return view_; }
    QLabel* status() const;
    const SnapshotDiff* diff() const { return diff_.get(); }

signals:
    void updated();

private:
    void compare();
    void display();

    std::shared_ptr<const MemorySnapshot> a_, b_;
    std::shared_ptr<const SnapshotTimeline> a_replayed_, b_replayed_;  // null: replayed by compare()
    QString a_name_, b_name_;
    std::shared_ptr<const SnapshotDiff> diff_;
    int device_ = 0;
    int generation_ = 0;
    LinesLabel* status_;
    QPushButton* swap_;
    SnapshotDiffModel* model_;
    QTableView* view_;
};

}  // namespace awb::ui
