#include "snapshot_shown.h"

#include <QObject>
#include <QStringList>

#include "analysis/snapshot_frames.h"

namespace awb::ui {

namespace {

// Colours by allocating frame, the frames with the most bytes drawn (then at the peak) first.
std::unordered_map<int32_t, QColor> colours_of(const SnapshotShown& s) {
    std::unordered_map<int32_t, QColor> out;
    for (const auto& [frame, colour] : allocating_frame_colours(s.timeline(), s.allocating))
        out[frame] = QColor(QLatin1String(colour.c_str()));
    return out;
}

}  // namespace

QColor SnapshotShown::colourOf(StackId stack) const {
    const auto it = colours.find(allocatingFrame(stack));
    return it == colours.end() ? QColor(QLatin1String(kNoStackColour))
                               : it->second;  // slate: apart from the smaller blocks' grey
}

QString SnapshotShown::frameText(int32_t frame) const {
    return frame < 0 ? QObject::tr("(no stack recorded)")
                     : QString::fromStdString(frame_text(snapshot->frames[size_t(frame)]));
}

QString SnapshotShown::stackText(StackId stack, size_t max_frames) const {
    if (stack == kNoStack || snapshot->stacks[size_t(stack)].empty()) return QObject::tr("(no stack recorded)");
    const ShownFrames shown = shown_frames(*snapshot, stack, max_frames);
    if (shown.frames.empty()) return QObject::tr("(only the allocator's own frames)");
    QStringList lines;
    for (const int32_t frame : shown.frames) lines << frameText(frame);
    if (shown.more) lines << QObject::tr("(%1 more frames)").arg(shown.more);
    return lines.join(QLatin1Char('\n'));
}

SnapshotShown snapshot_shown(std::shared_ptr<const MemorySnapshot> snapshot, const QString& filter,
                             std::shared_ptr<const SnapshotTimeline> replayed) {
    SnapshotShown s;
    s.snapshot = std::move(snapshot);
    s.filter = filter.trimmed();
    s.options.max_bands = kMaxBands;
    if (!s.filter.isEmpty()) s.options.keep = stacks_matching(*s.snapshot, s.filter.toStdString());
    s.replayed = replayed && s.filter.isEmpty()
                     ? std::move(replayed)
                     : std::make_shared<const SnapshotTimeline>(analyze_snapshot(*s.snapshot, s.options));
    s.allocating = allocating_frames(*s.snapshot);
    s.colours = colours_of(s);
    return s;
}

}  // namespace awb::ui
