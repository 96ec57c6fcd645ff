// The Memory snapshot tab: a CUDA caching allocator's snapshot (File > Open of a
// torch.cuda.memory._dump_snapshot pickle) as memory over its trace's events (MemoryBandsChart), the
// blocks alive at the peak with their stacks, the bytes under each frame there, the blocks alive
// before recording began, and the segments with their blocks (fragmentation). A frame filter counts
// only what was allocated under matching frames; a device selector picks the GPU. The replay runs on
// the background pool for a large trace. With the profile of the same run open too, the Operators page
// says which operator allocated what (SnapshotOpsPanel), and an operator selected there or in the
// Operators panel has its blocks marked in the chart. The Compare page sets it against the snapshot
// opened before it (SnapshotDiffPanel).
#pragma once

#include <QWidget>

#include <memory>

#include "model/memory_snapshot.h"
#include "model/trace.h"
#include "snapshot_shown.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QTabWidget;
class QTableView;
class QTimer;

namespace awb::ui {

class LinesLabel;
class MemoryBandsChart;
class SnapshotBlockModel;
class SnapshotFrameModel;
class SegmentModel;
class SnapshotDiffPanel;
class SnapshotOpsPanel;

class MemorySnapshotView : public QWidget {
    Q_OBJECT
public:
    explicit MemorySnapshotView(QWidget* parent = nullptr);
    // REPLAYED (may be null): its replay without a filter, made beside its reading (ResultsFile::snapshot_timeline):
    // shown at once, and again when the filter is cleared.
    void setSnapshot(std::shared_ptr<const MemorySnapshot> snapshot, const QString& name,
                     std::shared_ptr<const SnapshotTimeline> replayed = nullptr);
    void setFilter(const QString& text);  // as if typed (the replay follows at once)
    // The trace of the run on screen (null: none), for the Operators page.
    void setTrace(std::shared_ptr<const Trace> trace, const QString& name);
    void showOperator(const QString& name);  // its blocks listed and marked
    SnapshotOpsPanel* operatorsPage() const { return ops_; }
    SnapshotDiffPanel* comparePage() const { return diff_; }
    const SnapshotShown* shown() const { return shown_.get(); }
    MemoryBandsChart* chart() const { return chart_; }
    QLabel* summary() const;
    QTableView* peakTable() const { return peak_view_; }
    QTableView* frameTable() const { return frame_view_; }
    QTableView* segmentTable() const { return segment_view_; }
    QTabWidget* tabs() const { return tabs_; }

signals:
    void replayed();  // a replay (a snapshot opened, another filter) is on screen

private:
    void buildTabs();
    void layOut();
    void replay();
    void display(std::shared_ptr<const SnapshotShown> shown);
    void showDevice(int row);
    void showPinned(int band);
    QString summaryText(const DeviceMemoryTimeline& t) const;

    std::shared_ptr<const MemorySnapshot> snapshot_;
    std::shared_ptr<const SnapshotTimeline> replayed_;  // snapshot_'s without a filter, when given
    std::shared_ptr<const SnapshotShown> shown_;
    QString name_;
    int generation_ = 0;
    LinesLabel* summary_;
    QComboBox* device_;
    QLineEdit* filter_;
    QTimer* filter_timer_;
    MemoryBandsChart* chart_;
    LinesLabel* details_;
    QTabWidget* tabs_;
    SnapshotBlockModel* peak_;
    SnapshotFrameModel* frames_;
    SnapshotBlockModel* before_;
    SegmentModel* segments_;
    QTableView* peak_view_;
    QTableView* frame_view_;
    QTableView* before_view_;
    QTableView* segment_view_;
    LinesLabel* segment_summary_;
    SnapshotOpsPanel* ops_;
    SnapshotDiffPanel* diff_;
    std::shared_ptr<const MemorySnapshot> previous_;  // the snapshot open before this one: the Compare page's A
    std::shared_ptr<const SnapshotTimeline> previous_replayed_;  // its replay without a filter, when given
    QString previous_name_;
};

}  // namespace awb::ui
