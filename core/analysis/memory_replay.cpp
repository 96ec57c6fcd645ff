#include "analysis/memory_replay.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "model/units.h"

namespace awb {

namespace {

// A point of an absolute curve, and its peak.
void add_total(std::vector<MemoryPoint>& points, int64_t& peak, int64_t& peak_ts, int64_t ts, int64_t bytes) {
    points.push_back({ts, bytes});
    if (bytes > peak) {
        peak = bytes;
        peak_ts = ts;
    }
}

}  // namespace

const MemoryPoint* memory_level_at(const std::vector<MemoryPoint>& points, int64_t t) {
    const auto it =
        std::partition_point(points.begin(), points.end(), [t](const MemoryPoint& m) { return m.ts_ns <= t; });
    return it == points.begin() ? nullptr : &*std::prev(it);
}

std::vector<MemorySeries> replay_memory(const Trace& trace) {
    std::map<std::tuple<int32_t, int, int>, MemorySeries> by_device;  // (rank, device, index): ranks replay apart
    for (const auto& m : trace.memory()) {
        auto& s = by_device[{m.rank, int(m.device), m.device_index}];
        s.rank = m.rank;
        s.device = m.device;
        s.device_index = m.device_index;
        const int64_t level = (s.points.empty() ? 0 : s.points.back().bytes) + m.bytes;
        s.points.push_back({m.ts_ns, level});
        if (level > s.peak_bytes) {
            s.peak_bytes = level;
            s.peak_ts_ns = m.ts_ns;
        }
        s.low_bytes = std::min(s.low_bytes, level);
        if (m.total_allocated >= 0)
            add_total(s.allocated_points, s.peak_allocated_bytes, s.peak_allocated_ts_ns, m.ts_ns, m.total_allocated);
        if (m.total_reserved >= 0)
            add_total(s.reserved_points, s.peak_reserved_bytes, s.peak_reserved_ts_ns, m.ts_ns, m.total_reserved);
        if (m.bytes >= 0) {
            s.allocated_bytes += m.bytes;
            ++s.allocations;
        } else {
            s.freed_bytes -= m.bytes;
            ++s.frees;
        }
    }
    std::vector<MemorySeries> out;
    for (auto& [key, s] : by_device) {
        if (s.peak_reserved_bytes <= 0) {  // the CPU allocator reports 0 reserved: nothing to show
            s.reserved_points.clear();
            s.peak_reserved_bytes = -1;
        }
        out.push_back(std::move(s));
    }
    return out;
}

const char* memory_peak_basis(const MemorySeries& s) { return s.has_totals() ? "allocated" : "relative"; }

std::string memory_peak_text(const MemorySeries& s) {
    if (!s.has_totals())
        return format_bytes(s.peak_bytes) +
               " above the level at trace start (relative: the trace has no allocator totals)";
    std::string text = format_bytes(s.peak_allocated_bytes) + " allocated";
    if (s.peak_reserved_bytes >= 0) text += ", " + format_bytes(s.peak_reserved_bytes) + " reserved";
    return text;
}

std::vector<MemoryPoint> downsample_min_max(const std::vector<MemoryPoint>& points, size_t buckets) {
    if (buckets == 0 || points.size() <= 2 * buckets + 2) return points;
    std::vector<MemoryPoint> out;
    out.reserve(2 * buckets + 2);
    out.push_back(points.front());
    const int64_t t0 = points.front().ts_ns;
    const int64_t span = std::max<int64_t>(1, points.back().ts_ns - t0);
    size_t i = 1;
    const size_t last = points.size() - 1;
    for (size_t b = 0; b < buckets && i < last; ++b) {
        const int64_t bucket_end = t0 + int64_t(double(span) * double(b + 1) / double(buckets));
        size_t lo = i, hi = i;
        size_t j = i;
        for (; j < last && (points[j].ts_ns <= bucket_end || b + 1 == buckets); ++j) {
            if (points[j].bytes < points[lo].bytes) lo = j;
            if (points[j].bytes > points[hi].bytes) hi = j;
        }
        if (j == i) continue;
        if (lo == hi) {
            out.push_back(points[lo]);
        } else {
            out.push_back(points[std::min(lo, hi)]);
            out.push_back(points[std::max(lo, hi)]);
        }
        i = j;
    }
    out.push_back(points.back());
    return out;
}

std::string memory_series_label(const MemorySeries& s) {
    std::string label = s.device == DeviceKind::CPU    ? std::string("cpu")
                        : s.device == DeviceKind::CUDA ? "cuda:" + std::to_string(std::max(s.device_index, 0))
                                                       : "device " + std::to_string(std::max(s.device_index, 0));
    return label + (s.rank >= 0 ? " rank " + std::to_string(s.rank) : "");
}

}  // namespace awb
