#include "snapshot_shown.h"

#include <QObject>
#include <QStringList>


#include "analysis/snapshot_frames.h"

namespace awb::ui {

namespace {

// Colours by allocating frame, the frames with the most bytes drawn (then at the peak) first.
std::unordered_map<int32_t, QColor> colours_of(const SnapshotShown& s) {
    std::unordered_map<int32_t, QColor> out;
    for (const auto& [frame, colour] : allocating_frame_colours(s.timeline, s.allocating)) out[frame] = QColor(QLatin1String(colour.c_str()));
    return out;
}

}  // namespace

QColor SnapshotShown::colourOf(StackId stack) const {
    const auto it = colours.find(allocatingFrame(stack));
    return it == colours.end() ? QColor(QLatin1String(kNoStackColour)) : it->second;  // slate: apart from the smaller blocks' grey
}

QString SnapshotShown::frameText(int32_t frame) const {
    return frame < 0 ? QObject::tr("(no stack recorded)") : QString::fromStdString(frame_text(snapshot->frames[size_t(frame)]));
}

QString SnapshotShown::stackText(StackId stack, size_t max_frames) const {
    if (stack == kNoStack || snapshot->stacks[size_t(stack)].empty()) return QObject::tr("(no stack recorded)");
    const std::vector<int32_t>& frames = snapshot->stacks[size_t(stack)];
    QStringList lines;
    for (size_t i = 0; i < frames.size() && i < max_frames; ++i) lines << frameText(frames[i]);
    if (frames.size() > max_frames) lines << QObject::tr("(%1 more frames)").arg(frames.size() - max_frames);
    return lines.join(QLatin1Char('\n'));
}

SnapshotShown snapshot_shown(std::shared_ptr<const MemorySnapshot> snapshot, const QString& filter) {
    SnapshotShown s;
    s.snapshot = std::move(snapshot);
    s.filter = filter.trimmed();
    SnapshotOptions options;
    options.max_bands = kMaxBands;
    if (!s.filter.isEmpty()) options.keep = stacks_matching(*s.snapshot, s.filter.toStdString());
    s.timeline = analyze_snapshot(*s.snapshot, options);
    s.allocating = allocating_frames(*s.snapshot);
    s.colours = colours_of(s);
    return s;
}

}  // namespace awb::ui
