// A memory snapshot as the Memory snapshot tab shows it: the file as read, its replay under the tab's
// frame filter with the largest blocks as bands, the frame that allocated each stack's blocks and the
// colour each such frame is drawn in. Made off the GUI thread (snapshot_shown()), shared read-only by
// the chart and the tables.
#pragma once

#include <QColor>
#include <QString>

#include <memory>
#include <unordered_map>
#include <vector>

#include "analysis/snapshot_timeline.h"
#include "model/memory_snapshot.h"

namespace awb::ui {

struct SnapshotShown {
    std::shared_ptr<const MemorySnapshot> snapshot;
    SnapshotOptions options;  // the filter's and the bands'
    std::shared_ptr<const SnapshotTimeline>
        replayed;                     // analyze_snapshot with them (or the same, made beside the reading)
    QString filter;                   // the frame filter it was made with ("": none)
    std::vector<int32_t> allocating;  // by StackId: allocating_frame
    std::unordered_map<int32_t, QColor>
        colours;  // by allocating frame: the most drawn bytes get the most distinct colours

    const SnapshotTimeline& timeline() const { return *replayed; }
    int32_t allocatingFrame(StackId stack) const { return stack == kNoStack ? -1 : allocating[size_t(stack)]; }
    QColor colourOf(StackId stack) const;    // its allocating frame's colour; slate without a stack
    QString frameText(int32_t frame) const;  // "(no stack recorded)" for -1
    QString stackText(StackId stack, size_t max_frames = 12) const;  // one frame a line, innermost first
};

// The blocks drawn as bands: memory_viz draws 15,000; a few thousand keep a repaint under ~20 ms here
// and are already more than a screen's pixels can tell apart.
inline constexpr size_t kMaxBands = 3000;

// The replay of snapshot under filter (case-insensitive text of a frame; "" for every block). REPLAYED,
// when set, is its replay without a filter with kMaxBands bands, made beside its reading: taken for "".
SnapshotShown snapshot_shown(std::shared_ptr<const MemorySnapshot> snapshot, const QString& filter,
                             std::shared_ptr<const SnapshotTimeline> replayed = nullptr);

}  // namespace awb::ui
