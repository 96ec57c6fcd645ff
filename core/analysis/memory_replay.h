// Memory over time from a trace's [memory] events: per device, the running sum of allocated bytes
// (relative to the level when recording started) and its peak. Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.h"

namespace awb {

struct MemoryPoint {
    int64_t ts_ns = 0;
    int64_t bytes = 0;
    bool operator==(const MemoryPoint&) const = default;
};

struct MemorySeries {
    DeviceKind device = DeviceKind::CPU;
    int device_index = -1;
    int32_t rank = -1;  // of a distributed trace; -1 for one process
    std::vector<MemoryPoint> points;  // after each memory event
    int64_t peak_bytes = 0;           // max of the running sum, >= 0
    int64_t peak_ts_ns = 0;
    int64_t allocated_bytes = 0;      // sum of allocations
    int64_t freed_bytes = 0;          // sum of frees (positive)
    int64_t allocations = 0;
    int64_t frees = 0;
    bool operator==(const MemorySeries&) const = default;
};

// One series per (rank, device kind, index) present in the trace, CPU first.
std::vector<MemorySeries> replay_memory(const Trace& trace);

// "cpu", "cuda:0", "cuda:1 rank 3": which memory a series is.
std::string memory_series_label(const MemorySeries& s);

// At most about 2 * buckets points: the first and last point, and the min and the max of each time
// bucket in between, so that no peak disappears when a long series is drawn or stored.
std::vector<MemoryPoint> downsample_min_max(const std::vector<MemoryPoint>& points, size_t buckets);

}  // namespace awb
