#include "analysis/gpu_breakdown.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <span>
#include <tuple>
#include <utility>

#include "analysis/intervals.h"
#include "model/printf_string.h"
#include "model/recorded_steps.h"
#include "model/units.h"

namespace awb {

namespace {

enum class Work { Computation, Communication, Memcpy, Memset };

struct DeviceEvent {
    TimeSpan span;
    Work work;
    KernelClass cls;
    int step;  // -1: launched outside every ProfilerStep
};

// The events (sorted by start) that can overlap [lo, hi): those starting before hi and at most the
// longest event's duration before lo. A step measures these, not the whole trace's.
std::span<const DeviceEvent> overlapping(const std::vector<DeviceEvent>& events, int64_t longest, int64_t lo,
                                         int64_t hi) {
    auto by_start = [](const DeviceEvent& e, int64_t t) { return e.span.first < t; };
    const auto first = std::lower_bound(events.begin(), events.end(), lo - longest, by_start);
    const auto last = std::lower_bound(first, events.end(), hi, by_start);
    return {first, last};
}

GpuBreakdown measure(std::span<const DeviceEvent> events, int64_t lo, int64_t hi) {
    std::vector<TimeSpan> by_work[4], all, by_class[kKernelClassCount];
    for (const DeviceEvent& e : events) {
        by_work[int(e.work)].push_back(e.span);
        by_class[int(e.cls)].push_back(e.span);
        all.push_back(e.span);
    }
    const Union compute = merged(by_work[int(Work::Computation)], lo, hi);
    const Union comm = merged(by_work[int(Work::Communication)], lo, hi);
    const Union copy = merged(by_work[int(Work::Memcpy)], lo, hi);
    GpuBreakdown b;
    b.start_ns = lo;
    b.end_ns = hi;
    b.computation_ns = length(compute);
    b.communication_ns = length(comm);
    b.memcpy_ns = length(copy);
    b.memset_ns = length(merged(by_work[int(Work::Memset)], lo, hi));
    b.busy_ns = length(merged(all, lo, hi));
    b.idle_ns = (hi - lo) - b.busy_ns;
    b.exposed_communication_ns = length_outside(comm, compute);
    b.exposed_memcpy_ns = length_outside(copy, compute);
    for (int c = 0; c < kKernelClassCount; ++c)
        if (!by_class[c].empty()) b.class_ns[size_t(c)] = length(merged(by_class[c], lo, hi));
    return b;
}

}  // namespace

std::vector<GpuBreakdown> gpu_breakdown(const Trace& trace) { return gpu_breakdown(trace, kernel_classes(trace)); }

std::vector<GpuBreakdown> gpu_breakdown(const Trace& trace, const std::vector<KernelClass>& classes) {
    return gpu_breakdown(trace, classes, LaunchCalls(trace));
}

std::vector<GpuBreakdown> gpu_breakdown(const Trace& trace, const std::vector<KernelClass>& classes,
                                        const LaunchCalls& launches) {
    const StepSpans steps(trace);
    std::map<std::pair<int32_t, int>, std::vector<DeviceEvent>> devices;
    for (size_t i = 0; i < trace.events().size(); ++i) {
        const TraceEvent& e = trace.events()[i];
        if (e.device == DeviceKind::CPU || !is_device_work(e)) continue;
        const KernelClass cls = classes[i];
        const Work work = cls == KernelClass::Communication ? Work::Communication
                          : cls == KernelClass::Memcpy      ? Work::Memcpy
                          : cls == KernelClass::Memset      ? Work::Memset
                                                            : Work::Computation;
        devices[{e.rank, e.device_index}].push_back(
            {{e.start_ns, e.end_ns}, work, cls, steps.at(e.rank, launches.launched_at(e))});
    }
    std::vector<GpuBreakdown> out;
    for (const auto& [key, events] : devices) {
        int64_t lo = events.front().span.first, hi = events.front().span.second, longest = 0;
        std::map<int, std::pair<int64_t, int64_t>> step_extent;  // k -> first start, last end of its events
        std::map<int, int64_t> step_events;
        for (const DeviceEvent& e : events) {
            lo = std::min(lo, e.span.first);
            hi = std::max(hi, e.span.second);
            longest = std::max(longest, e.span.second - e.span.first);
            if (e.step < 0) continue;
            auto [it, fresh] = step_extent.try_emplace(e.step, e.span);
            if (!fresh)
                it->second = {std::min(it->second.first, e.span.first), std::max(it->second.second, e.span.second)};
            ++step_events[e.step];
        }
        GpuBreakdown whole = measure(events, lo, hi);
        whole.kernels = int64_t(events.size());
        std::tie(whole.rank, whole.device_index) = key;
        out.push_back(whole);
        for (auto it = step_extent.begin(); it != step_extent.end(); ++it) {
            const auto next = std::next(it);
            const int64_t end =
                next != step_extent.end() ? std::max(it->second.first, next->second.first) : it->second.second;
            GpuBreakdown step = measure(overlapping(events, longest, it->second.first, end), it->second.first, end);
            std::tie(step.rank, step.device_index) = key;
            step.step = it->first;
            step.kernels = step_events[it->first];
            out.push_back(step);
        }
    }
    return out;
}

std::vector<DeviceIdle> gpu_idle_gaps(const Trace& trace) {
    std::map<std::pair<int32_t, int>, std::vector<TimeSpan>> work;
    for (const TraceEvent& e : trace.events())
        if (e.device != DeviceKind::CPU && is_device_work(e))
            work[{e.rank, e.device_index}].emplace_back(e.start_ns, e.end_ns);
    std::vector<DeviceIdle> out;
    for (const auto& [key, intervals] : work) {
        DeviceIdle idle;
        std::tie(idle.rank, idle.device_index) = key;
        const Union busy = merged(intervals);
        for (size_t i = 1; i < busy.size(); ++i) idle.gaps.emplace_back(busy[i - 1].second, busy[i].first);
        out.push_back(std::move(idle));
    }
    return out;
}

std::string format_gpu_breakdown(const std::vector<GpuBreakdown>& rows) {
    if (rows.empty()) return {};
    // One unit for the table: microseconds for short traces, milliseconds otherwise.
    int64_t longest = 0;
    for (const GpuBreakdown& b : rows) longest = std::max(longest, b.span_ns());
    const bool in_us = longest < 10'000'000;
    const double scale = in_us ? 1e3 : 1e6;
    const char* unit = in_us ? "us" : "ms";
    std::string out =
        printf_string("GPU time breakdown (intervals merged across streams; each: %s and %% of the span)\n", unit) +
        printf_string("%-5s %-6s %-6s %10s %7s %17s %17s %17s %17s %17s %17s %17s %17s\n", "rank", "device", "step",
                      (std::string("span ") + unit).c_str(), "events", "busy", "computation", "communication", "memcpy",
                      "memset", "idle", "exposed comm", "exposed memcpy");
    for (const GpuBreakdown& b : rows) {
        auto cell = [&](int64_t ns) {
            return printf_string("%10.3f %5.1f%%", double(ns) / scale, 100.0 * b.share(ns));
        };
        out += printf_string("%-5s %-6d %-6s %10.3f %7lld %17s %17s %17s %17s %17s %17s %17s %17s\n",
                             b.rank < 0 ? "-" : std::to_string(b.rank).c_str(), b.device_index,
                             b.step < 0 ? "all" : ("#" + std::to_string(b.step)).c_str(), double(b.span_ns()) / scale,
                             (long long)b.kernels, cell(b.busy_ns).c_str(), cell(b.computation_ns).c_str(),
                             cell(b.communication_ns).c_str(), cell(b.memcpy_ns).c_str(), cell(b.memset_ns).c_str(),
                             cell(b.idle_ns).c_str(), cell(b.exposed_communication_ns).c_str(),
                             cell(b.exposed_memcpy_ns).c_str());
    }
    // Computation class by class (the classes some row has).
    std::vector<int> shown;
    for (int c = 0; c < kKernelClassCount; ++c)
        if (is_computation(KernelClass(c)) &&
            std::any_of(rows.begin(), rows.end(), [c](const GpuBreakdown& b) { return b.class_ns[size_t(c)] > 0; }))
            shown.push_back(c);
    if (shown.empty()) return out;
    out += printf_string("Computation by kernel class (%s and %% of the span)\n%-5s %-6s %-6s", unit, "rank", "device",
                         "step");
    for (int c : shown) out += printf_string(" %17.17s", to_string(KernelClass(c)).c_str());
    out += "\n";
    for (const GpuBreakdown& b : rows) {
        out += printf_string("%-5s %-6d %-6s", b.rank < 0 ? "-" : std::to_string(b.rank).c_str(), b.device_index,
                             b.step < 0 ? "all" : ("#" + std::to_string(b.step)).c_str());
        for (int c : shown)
            out += printf_string(" %10.3f %5.1f%%", double(b.class_ns[size_t(c)]) / scale,
                                 100.0 * b.share(b.class_ns[size_t(c)]));
        out += "\n";
    }
    return out;
}

}  // namespace awb
