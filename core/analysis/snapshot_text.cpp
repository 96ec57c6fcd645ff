#include "analysis/snapshot_text.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "analysis/snapshot_frames.h"
#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

const char* const kReservedNotRecordedWhy =
    "not recorded: the snapshot has no allocator segments (a CPU profile's conversion by _profile_to_snapshot: its one "
    "segment spans "
    "the addresses its tensors had)";

std::string reserved_text(bool recorded, int64_t bytes) { return recorded ? format_bytes(bytes) : "not recorded"; }

namespace {

template <typename... Args>
std::string line(const char* format, Args... args) {
    return printf_string(format, args...) + "\n";
}

std::string hex(int64_t addr) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%" PRIx64, uint64_t(addr));
    return buf;
}

std::string blocks_table(const MemorySnapshot& s, const std::vector<LiveBlock>& blocks, int rows) {
    std::string out = line("    %-11s %-16s %-9s %s", "Size", "Address", "Alloc #", "Stack (innermost first)");
    const size_t n = rows > 0 ? std::min(blocks.size(), size_t(rows)) : blocks.size();
    for (size_t i = 0; i < n; ++i) {
        const LiveBlock& b = blocks[i];
        out +=
            line("    %-11s %-16s %-9s %s", format_bytes(b.size).c_str(), hex(b.addr).c_str(),
                 b.alloc_event < 0 ? "before" : std::to_string(b.alloc_event).c_str(), stack_text(s, b.stack).c_str());
    }
    if (n < blocks.size()) out += line("    (%zu more; --rows 0 shows all)", blocks.size() - n);
    return out;
}

std::string device_text(const MemorySnapshot& s, const DeviceMemoryTimeline& t, int rows) {
    std::string out = line("%s: %s trace events; at the snapshot %s allocated%s", s.device_name(t.device).c_str(),
                           format_count(t.events).c_str(), format_bytes(t.final_allocated).c_str(),
                           t.reserved_recorded ? (" of " + format_bytes(t.final_reserved) + " reserved").c_str() : "");
    if (!t.reserved_recorded) out += line("  reserved %s", kReservedNotRecordedWhy);
    out +=
        line("  peak allocated %s, %s (of %s events)", format_bytes(t.peak_allocated).c_str(),
             t.peak_index == 0 ? "before the first event" : ("after event " + std::to_string(t.peak_index - 1)).c_str(),
             format_count(t.events).c_str());
    if (t.reserved_recorded) out += line("  peak reserved %s", format_bytes(t.peak_reserved).c_str());
    if (t.ooms) out += line("  out of memory %" PRId64 " time(s)", t.ooms);
    if (t.unmatched_frees)
        out += line("  %" PRId64 " free(s) of addresses not alive: the trace lost their allocs (its history wrapped?)",
                    t.unmatched_frees);
    out += line("  blocks alive at the peak: %zu, largest first", t.at_peak.size()) + blocks_table(s, t.at_peak, rows);
    out += "  bytes at the peak under each frame (a block counts for every frame of its stack), most first\n";
    out += line("    %-11s %-7s %s", "Bytes", "Blocks", "Frame");
    const size_t n = rows > 0 ? std::min(t.frames_at_peak.size(), size_t(rows)) : t.frames_at_peak.size();
    for (size_t i = 0; i < n; ++i) {
        const FrameBytes& f = t.frames_at_peak[i];
        out += line("    %-11s %-7" PRId64 " %s", format_bytes(f.bytes).c_str(), f.blocks,
                    frame_text(s.frames[size_t(f.frame)]).c_str());
    }
    if (n < t.frames_at_peak.size()) out += line("    (%zu more; --rows 0 shows all)", t.frames_at_peak.size() - n);
    out += line("  alive before recording began: %zu block(s), %s (reconstructed from the final state and the frees)",
                t.before_recording.size(), format_bytes(bytes_of(t.before_recording)).c_str());
    if (!t.before_recording.empty()) out += blocks_table(s, t.before_recording, rows);
    return out;
}

nlohmann::json blocks_json(const MemorySnapshot& s, const std::vector<LiveBlock>& blocks) {
    nlohmann::json a = nlohmann::json::array();
    for (const LiveBlock& b : blocks)
        a.push_back({{"address", b.addr},
                     {"bytes", b.size},
                     {"alloc_event", b.alloc_event},
                     {"stack", stack_text(s, b.stack, 64)}});
    return a;
}

}  // namespace

std::string stack_text(const MemorySnapshot& snapshot, StackId stack, size_t max_frames) {
    if (stack == kNoStack || snapshot.stacks[size_t(stack)].empty()) return "(no stack recorded)";
    const ShownFrames shown = shown_frames(snapshot, stack, max_frames);
    if (shown.frames.empty()) return "(only the allocator's own frames)";
    std::string out;
    for (const int32_t i : shown.frames) out += (out.empty() ? "" : " <- ") + frame_text(snapshot.frames[size_t(i)]);
    if (shown.more) out += " <- (" + std::to_string(shown.more) + " more)";
    return out;
}

std::string format_snapshot(const MemorySnapshot& s, const SnapshotTimeline& timeline, int rows,
                            const std::string& frame_filter) {
    size_t blocks = 0;
    for (const SnapshotSegment& seg : s.segments) blocks += seg.blocks.size();
    std::string out = line(
        "pickle protocol %d; %zu segment(s) with %zu block(s); %zu device trace(s); %zu distinct stacks of %zu frames",
        s.pickle_protocol, s.segments.size(), blocks, s.device_traces.size(), s.stacks.size(), s.frames.size());
    for (const auto& [action, count] : s.unknown_actions)
        out +=
            line("note: %" PRId64 " trace event(s) with action '%s', which this reader does not know, were passed over",
                 count, action.c_str());
    if (!frame_filter.empty())
        out += line(
            "frame filter '%s': only the blocks with a frame containing it are counted (the final state and reserved "
            "bytes are all blocks')",
            frame_filter.c_str());
    if (timeline.devices.empty()) out += "no device has a trace or segments\n";
    for (const DeviceMemoryTimeline& t : timeline.devices) out += device_text(s, t, rows);
    return out;
}

nlohmann::json snapshot_json(const MemorySnapshot& s, const SnapshotTimeline& timeline,
                             const std::string& frame_filter) {
    nlohmann::json devices = nlohmann::json::array();
    for (const DeviceMemoryTimeline& t : timeline.devices) {
        nlohmann::json frames = nlohmann::json::array();
        for (const FrameBytes& f : t.frames_at_peak)
            frames.push_back(
                {{"frame", frame_text(s.frames[size_t(f.frame)])}, {"bytes", f.bytes}, {"blocks", f.blocks}});
        devices.push_back({{"device", t.device},
                           {"events", t.events},
                           {"peak_allocated_bytes", t.peak_allocated},
                           {"peak_after_events", t.peak_index},
                           {"peak_reserved_bytes", t.peak_reserved},
                           {"reserved_recorded", t.reserved_recorded},
                           {"final_allocated_bytes", t.final_allocated},
                           {"final_reserved_bytes", t.final_reserved},
                           {"blocks", t.blocks},
                           {"ooms", t.ooms},
                           {"unmatched_frees", t.unmatched_frees},
                           {"blocks_at_peak", blocks_json(s, t.at_peak)},
                           {"frames_at_peak", frames},
                           {"alive_before_recording", blocks_json(s, t.before_recording)}});
    }
    nlohmann::json unknown = nlohmann::json::object();
    for (const auto& [action, count] : s.unknown_actions) unknown[action] = count;
    return {{"pickle_protocol", s.pickle_protocol},
            {"segments", s.segments.size()},
            {"stacks", s.stacks.size()},
            {"frame_filter", frame_filter.empty() ? nlohmann::json() : nlohmann::json(frame_filter)},
            {"unknown_actions", unknown},
            {"devices", devices}};
}

}  // namespace awb
