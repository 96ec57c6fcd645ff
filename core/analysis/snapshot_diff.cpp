#include "analysis/snapshot_diff.h"

#include <algorithm>
#include <cinttypes>
#include <cstdlib>
#include <map>
#include <tuple>

#include "analysis/snapshot_frames.h"
#include "analysis/snapshot_text.h"
#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

std::string allocated_by(const MemorySnapshot& s, StackId stack) {
    const int32_t frame = allocating_frame(s, stack);
    return frame < 0 ? "(no stack recorded)" : frame_text(s.frames[size_t(frame)]);
}

const DeviceMemoryTimeline* device_of(const SnapshotTimeline& t, int device) {
    for (const DeviceMemoryTimeline& d : t.devices)
        if (d.device == device) return &d;
    return nullptr;
}

// One side's figures into the rows, by allocating frame.
void add_side(const MemorySnapshot& s, const DeviceMemoryTimeline* t, int device, bool side_b,
              std::map<std::string, SnapshotDiffRow>& rows) {
    auto figures = [&](StackId stack) -> SnapshotSideFigures& {
        SnapshotDiffRow& row = rows[allocated_by(s, stack)];
        return side_b ? row.b : row.a;
    };
    if (t)
        for (const LiveBlock& block : t->at_peak) {
            SnapshotSideFigures& f = figures(block.stack);
            f.peak_bytes += block.size;
            ++f.peak_blocks;
        }
    if (size_t(device) < s.device_traces.size())
        for (const SnapshotEvent& e : s.device_traces[size_t(device)])
            if (e.action == SnapshotAction::Alloc) {
                SnapshotSideFigures& f = figures(e.stack);
                ++f.allocs;
                f.alloc_bytes += e.size;
            }
}

}  // namespace

const char* diff_status(const SnapshotDiffRow& r) {
    return r.in_a() && r.in_b() ? "both" : r.in_a() ? "gone in B" : "new in B";
}

SnapshotDiff diff_snapshots(const MemorySnapshot& a, const SnapshotTimeline& ta, const MemorySnapshot& b,
                            const SnapshotTimeline& tb) {
    std::vector<int> devices;
    for (const auto* t : {&ta, &tb})
        for (const DeviceMemoryTimeline& d : t->devices) devices.push_back(d.device);
    std::sort(devices.begin(), devices.end());
    devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
    SnapshotDiff out;
    for (const int device : devices) {
        const DeviceMemoryTimeline* da = device_of(ta, device);
        const DeviceMemoryTimeline* db = device_of(tb, device);
        SnapshotDeviceDiff d;
        d.device = device;
        if (da)
            std::tie(d.peak_a, d.peak_reserved_a, d.reserved_recorded_a, d.events_a) =
                std::tuple(da->peak_allocated, da->peak_reserved, da->reserved_recorded, da->events);
        if (db)
            std::tie(d.peak_b, d.peak_reserved_b, d.reserved_recorded_b, d.events_b) =
                std::tuple(db->peak_allocated, db->peak_reserved, db->reserved_recorded, db->events);
        std::map<std::string, SnapshotDiffRow> rows;
        add_side(a, da, device, false, rows);
        add_side(b, db, device, true, rows);
        for (auto& [frame, row] : rows) {
            row.frame = frame;
            d.rows.push_back(std::move(row));
        }
        std::stable_sort(d.rows.begin(), d.rows.end(), [](const SnapshotDiffRow& x, const SnapshotDiffRow& y) {
            const int64_t px = std::llabs(x.peak_delta()), py = std::llabs(y.peak_delta());
            if (px != py) return px > py;
            return std::llabs(x.b.alloc_bytes - x.a.alloc_bytes) > std::llabs(y.b.alloc_bytes - y.a.alloc_bytes);
        });
        out.devices.push_back(std::move(d));
    }
    return out;
}

std::string format_snapshot_diff(const SnapshotDiff& diff, const std::string& a_name, const std::string& b_name,
                                 size_t limit) {
    std::string out = "A: " + a_name + " (memory snapshot)\nB: " + b_name + " (memory snapshot)\n";
    for (const SnapshotDeviceDiff& d : diff.devices) {
        out += printf_string(
            "device %d: peak allocated A %s, B %s (%s); peak reserved A %s, B %s (%s); trace events A %" PRId64
            ", B %" PRId64 "\n",
            d.device, format_bytes(d.peak_a).c_str(), format_bytes(d.peak_b).c_str(),
            format_signed_bytes(d.peak_b - d.peak_a).c_str(),
            reserved_text(d.reserved_recorded_a, d.peak_reserved_a).c_str(),
            reserved_text(d.reserved_recorded_b, d.peak_reserved_b).c_str(),
            d.reserved_recorded_a && d.reserved_recorded_b
                ? format_signed_bytes(d.peak_reserved_b - d.peak_reserved_a).c_str()
                : "-",
            d.events_a, d.events_b);
        out +=
            "  By the frame that allocated them (the innermost frame of the model's code), largest change at the peak "
            "first:\n";
        out +=
            printf_string("  %-10s %11s %11s %12s %8s %8s %9s %9s %12s %12s  %s\n", "In", "Peak A", "Peak B", "Delta",
                          "Blocks A", "Blocks B", "Allocs A", "Allocs B", "Alloc'd A", "Alloc'd B", "Allocated by");
        for (size_t i = 0; i < d.rows.size() && (limit == 0 || i < limit); ++i) {
            const SnapshotDiffRow& r = d.rows[i];
            out += printf_string(
                "  %-10s %11s %11s %12s %8" PRId64 " %8" PRId64 " %9" PRId64 " %9" PRId64 " %12s %12s  %s\n",
                diff_status(r), format_bytes(r.a.peak_bytes).c_str(), format_bytes(r.b.peak_bytes).c_str(),
                format_signed_bytes(r.peak_delta()).c_str(), r.a.peak_blocks, r.b.peak_blocks, r.a.allocs, r.b.allocs,
                format_bytes(r.a.alloc_bytes).c_str(), format_bytes(r.b.alloc_bytes).c_str(), r.frame.c_str());
        }
        if (limit != 0 && d.rows.size() > limit)
            out += printf_string("  (%zu more rows; --rows 0 shows all)\n", d.rows.size() - limit);
    }
    return out;
}

nlohmann::json snapshot_diff_json(const SnapshotDiff& diff) {
    auto side = [](const SnapshotSideFigures& f) {
        return nlohmann::json{{"peak_bytes", f.peak_bytes},
                              {"peak_blocks", f.peak_blocks},
                              {"allocs", f.allocs},
                              {"alloc_bytes", f.alloc_bytes}};
    };
    nlohmann::json devices = nlohmann::json::array();
    for (const SnapshotDeviceDiff& d : diff.devices) {
        nlohmann::json rows = nlohmann::json::array();
        for (const SnapshotDiffRow& r : d.rows)
            rows.push_back({{"allocated_by", r.frame},
                            {"in", diff_status(r)},
                            {"a", side(r.a)},
                            {"b", side(r.b)},
                            {"peak_delta_bytes", r.peak_delta()}});
        devices.push_back({{"device", d.device},
                           {"peak_allocated_a_bytes", d.peak_a},
                           {"peak_allocated_b_bytes", d.peak_b},
                           {"peak_reserved_a_bytes", d.peak_reserved_a},
                           {"peak_reserved_b_bytes", d.peak_reserved_b},
                           {"reserved_recorded_a", d.reserved_recorded_a},
                           {"reserved_recorded_b", d.reserved_recorded_b},
                           {"events_a", d.events_a},
                           {"events_b", d.events_b},
                           {"rows", rows}});
    }
    return {{"devices", devices}};
}

}  // namespace awb
