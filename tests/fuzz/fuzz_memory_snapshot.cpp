// libFuzzer target for the memory-snapshot reader: each input is a file (fuzz_input.h), plain or gzip,
// read as attnwb inspect reads it (io/memory_snapshot_read.h), replayed (analysis/snapshot_timeline.h)
// and printed (analysis/snapshot_text.h). A bad file must end in a pickle::PickleError or a
// SnapshotFormatError naming it; any other exception, a crash, a sanitizer report, a hang, or a replay
// whose curve does not match its own counts is a finding. So is a streamed reading that differs from
// the whole one (SnapshotReading::Whole): the same message, or the same snapshot up to how its stacks
// and frames are numbered. And a replay made beside the reading (StreamedReplay, as attnwb inspect and
// the GUI read) that differs from the one made after it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "analysis/snapshot_diff.h"
#include "analysis/snapshot_frames.h"
#include "analysis/snapshot_text.h"
#include "analysis/snapshot_timeline.h"
#include "fuzz_input.h"
#include "io/memory_snapshot_read.h"
#include "report/report_snapshot.h"

namespace {

[[noreturn]] void finding(const std::string& what) {
    std::fprintf(stderr, "fuzz_memory_snapshot: %s\n", what.c_str());
    std::abort();
}

// The views' replay (a frame filter, bands) and what they write: the bands tile from 0 under the
// curve, a filter never counts more than the whole, a snapshot's diff with itself changes nothing.
void check_views(const awb::MemorySnapshot& snapshot, const awb::SnapshotTimeline& whole) {
    awb::SnapshotOptions options;
    options.max_bands = 40;
    options.keep =
        awb::stacks_matching(snapshot, snapshot.frames.empty() ? "a" : snapshot.frames.front().name.substr(0, 3));
    const awb::SnapshotTimeline t = awb::analyze_snapshot(snapshot, options);
    if (t.devices.size() != whole.devices.size()) finding("a filter changed the devices");
    for (size_t d = 0; d < t.devices.size(); ++d) {
        const awb::DeviceMemoryTimeline& dt = t.devices[d];
        if (dt.allocated_all != whole.devices[d].allocated)
            finding("the filtered replay's whole curve is not the whole replay's");
        for (size_t x = 0; x < dt.allocated.size(); ++x)
            if (dt.allocated[x] > dt.allocated_all[x]) finding("a filter counted more than every block");
        for (const awb::BlockBand& b : dt.bands) {
            if (b.bottom.empty() || b.begin >= b.end || b.bottom.front().first != b.begin)
                finding("a band without its start");
            if (b.bottom_at(b.begin) + b.block.size > dt.allocated[size_t(b.begin)])
                finding("a band above the allocated curve");
        }
    }
    const awb::SnapshotDiff self = awb::diff_snapshots(snapshot, whole, snapshot, whole);
    for (const awb::SnapshotDeviceDiff& d : self.devices)
        for (const awb::SnapshotDiffRow& r : d.rows)
            if (r.peak_delta() != 0 || r.a.allocs != r.b.allocs) finding("a snapshot differs from itself");
    volatile size_t n = awb::snapshot_section(snapshot, t, "fuzz", 5).size() +
                        awb::format_snapshot_diff(self, "a", "b", 5).size() +
                        awb::snapshot_diff_json(self).dump().size();
    (void)n;
}

bool same_blocks(const std::vector<awb::LiveBlock>& a, const std::vector<awb::LiveBlock>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].addr != b[i].addr || a[i].size != b[i].size || a[i].stack != b[i].stack ||
            a[i].alloc_event != b[i].alloc_event)
            return false;
    return true;
}

void check_beside(const awb::SnapshotTimeline& beside, const awb::SnapshotTimeline& after) {
    if (beside.devices.size() != after.devices.size()) finding("the replay beside the reading has other devices");
    for (size_t d = 0; d < after.devices.size(); ++d) {
        const awb::DeviceMemoryTimeline &b = beside.devices[d], &a = after.devices[d];
        if (b.allocated != a.allocated || b.reserved != a.reserved || b.peak_index != a.peak_index ||
            b.unmatched_frees != a.unmatched_frees || b.reserved_recorded != a.reserved_recorded ||
            b.blocks != a.blocks || b.ooms != a.ooms || !same_blocks(b.at_peak, a.at_peak) ||
            !same_blocks(b.before_recording, a.before_recording))
            finding("the replay beside the reading differs from the one after it");
    }
}

void check(const awb::MemorySnapshot& snapshot, awb::StreamedReplay& replay) {
    const awb::SnapshotTimeline timeline = awb::analyze_snapshot(snapshot);
    check_beside(replay.finish(snapshot), timeline);
    for (const awb::DeviceMemoryTimeline& t : timeline.devices) {
        if (t.allocated.size() != size_t(t.events) + 1 || t.reserved.size() != t.allocated.size())
            finding("curve length != events + 1");
        if (t.peak_index < 0 || t.peak_index >= int64_t(t.allocated.size()) ||
            t.allocated[size_t(t.peak_index)] != t.peak_allocated)
            finding("the peak is not on the curve");
        for (const awb::FrameBytes& f : t.frames_at_peak)
            if (f.frame < 0 || size_t(f.frame) >= snapshot.frames.size()) finding("a frame index out of range");
    }
    volatile size_t n =
        awb::format_snapshot(snapshot, timeline, 5).size() + awb::snapshot_json(snapshot, timeline).dump().size();
    (void)n;
    check_views(snapshot, timeline);
}

// What a reading says, independent of the order stacks, frames and streams were numbered in.
std::string outcome(const std::string& path, awb::SnapshotReading how, awb::MemorySnapshot* out) {
    awb::MemorySnapshot s;
    try {
        s = awb::read_memory_snapshot(path, how);
    } catch (const std::exception& e) {
        return std::string("error: ") + e.what();
    }
    auto stack = [&](awb::StackId id) {
        std::string t = "[";
        if (id != awb::kNoStack)
            for (int32_t f : s.stacks.at(size_t(id)))
                t += s.frames.at(size_t(f)).filename + ":" + std::to_string(s.frames[size_t(f)].line) + ":" +
                     s.frames[size_t(f)].name + ";";
        return t + "]";
    };
    std::string t = "protocol " + std::to_string(s.pickle_protocol) + "\n";
    for (const awb::SnapshotSegment& seg : s.segments) {
        t += "segment " + std::to_string(seg.device) + " " + std::to_string(seg.address) + " " +
             std::to_string(seg.total_size) + " " + std::to_string(seg.stream) + " " + seg.segment_type + "\n";
        for (const awb::SnapshotBlock& b : seg.blocks)
            t += " block " + std::to_string(b.address) + " " + std::to_string(b.size) + " " +
                 std::to_string(b.requested_size) + " " + awb::block_state_name(b.state) + " " + stack(b.stack) + "\n";
    }
    for (const auto& trace : s.device_traces) {
        t += "trace\n";
        for (const awb::SnapshotEvent& e : trace)
            t += std::string(" ") + awb::snapshot_action_name(e.action) + " " + std::to_string(e.addr) + " " +
                 std::to_string(e.size) + " " + std::to_string(s.stream_of(e)) + " " + std::to_string(e.time_us) + " " +
                 stack(e.stack) + "\n";
    }
    for (const auto& [k, v] : s.allocator_settings) t += "setting " + k + "=" + v + "\n";
    for (const auto& [k, v] : s.unknown_actions) t += "unknown " + k + " " + std::to_string(v) + "\n";
    if (out) *out = std::move(s);
    return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const awb::fuzz::MemFile file("snapshot");
    file.write(data, size);
    awb::MemorySnapshot snapshot;
    awb::StreamedReplay replay;
    if (outcome(file.path(), awb::SnapshotReading::Streamed, nullptr) !=
        outcome(file.path(), awb::SnapshotReading::Whole, nullptr))
        finding("the streamed reading differs from the whole one:\n" +
                outcome(file.path(), awb::SnapshotReading::Streamed, nullptr) + "\n---\n" +
                outcome(file.path(), awb::SnapshotReading::Whole, nullptr));
    try {
        snapshot = awb::read_memory_snapshot(file.path(), awb::SnapshotReading::Streamed, nullptr, &replay);
    } catch (const awb::pickle::PickleError& e) {
        if (std::string(e.what()).find(file.path()) == std::string::npos)
            finding(std::string("a message without the file: ") + e.what());
        return 0;
    } catch (const awb::SnapshotFormatError& e) {
        if (std::string(e.what()).find(file.path()) == std::string::npos)
            finding(std::string("a message without the file: ") + e.what());
        return 0;
    } catch (const std::exception& e) {
        finding(std::string("an unexpected exception: ") + e.what());
    }
    try {
        check(snapshot, replay);
    } catch (const std::exception& e) {
        finding(std::string("a snapshot that was read could not be replayed: ") + e.what());
    }
    return 0;
}
