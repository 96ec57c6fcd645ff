#include "analysis/trace_quality.h"

#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

void count_device_overlaps(const Trace& trace, TraceQuality& q) {
    std::map<std::tuple<int32_t, int, uint64_t>, int64_t> stream_end;  // (rank, device, stream) -> end so far
    for (const TraceEvent& e : trace.events()) {                       // in start order
        if (e.device == DeviceKind::CPU || !is_device_work(e)) continue;
        ++q.device_work;
        auto [it, first] = stream_end.try_emplace({e.rank, e.device_index, e.thread}, e.end_ns);
        if (first) continue;
        if (e.start_ns + kOverlapSlackNs < it->second) ++q.overlapping_device;
        it->second = std::max(it->second, e.end_ns);
    }
}

void count_cpu_spills(const Trace& trace, TraceQuality& q) {
    std::map<std::pair<int32_t, uint64_t>, std::vector<int64_t>> open;  // (rank, thread) -> ends of the open ops
    for (const TraceEvent& e : trace.events()) {
        if (!nests_on_cpu(e)) continue;
        ++q.cpu_ops;
        std::vector<int64_t>& ends = open[{e.rank, e.thread}];
        while (!ends.empty() && ends.back() <= e.start_ns) ends.pop_back();
        if (!ends.empty() && e.end_ns > ends.back() + kOverlapSlackNs) {
            ++q.spilling_cpu;
            continue;  // not pushed: what starts after it is measured against the op it spilled out of
        }
        ends.push_back(e.end_ns);
    }
}

void count_early_device_work(const Trace& trace, TraceQuality& q) {
    std::unordered_map<int64_t, int64_t> launch_start;  // link_key(rank, correlation) -> runtime call's start
    for (const TraceEvent& e : trace.events())
        if (e.device == DeviceKind::CPU && e.kind == EventKind::Runtime && e.correlation_id > 0)
            launch_start.emplace(link_key(e.rank, e.correlation_id), e.start_ns);
    if (launch_start.empty()) return;
    for (const TraceEvent& e : trace.events()) {
        if (e.device == DeviceKind::CPU || !is_device_work(e) || e.correlation_id <= 0) continue;
        const auto it = launch_start.find(link_key(e.rank, e.correlation_id));
        if (it == launch_start.end()) continue;
        ++q.launched;
        if (e.start_ns < it->second) ++q.launched_before;
    }
}

std::string of(int64_t n, int64_t all, const char* what) {
    const double share = all > 0 ? double(n) / double(all) : 0;
    return printf_string("%s of %s %s (%s)", format_count(n).c_str(), format_count(all).c_str(), what,
                         n > 0 && share < 0.0005 ? "<0.1%" : format_share(share).c_str());
}

}  // namespace

bool TraceQuality::clean() const {
    return import.skipped_events == 0 && import.negative_durations == 0 && overlapping_device == 0 &&
           spilling_cpu == 0 && launched_before == 0;
}

TraceQuality trace_quality(const Trace& trace, const ImportNotes& import) {
    TraceQuality q;
    q.import = import;
    count_device_overlaps(trace, q);
    count_cpu_spills(trace, q);
    count_early_device_work(trace, q);
    return q;
}

std::vector<std::string> quality_lines(const TraceQuality& q) {
    std::vector<std::string> out;
    if (q.import.skipped_events > 0) {
        out.push_back(format_count(q.import.skipped_events) +
                      " event(s) skipped when the trace was read (a field of the wrong type)");
        for (const std::string& w : q.import.warnings) out.push_back("  " + w);
    }
    if (q.import.negative_durations > 0)
        out.push_back(format_count(q.import.negative_durations) +
                      " event(s) with a negative duration, drawn as 0: the clock went back");
    if (q.overlapping_device > 0)
        out.push_back(
            of(q.overlapping_device, q.device_work, "kernels, copies and sets") +
            " start before the previous one on their stream ended (by more than 1 us): a stream runs its work in "
            "order, so the timestamps are off (or the kernels overlap by programmatic dependent launch)");
    if (q.spilling_cpu > 0)
        out.push_back(
            of(q.spilling_cpu, q.cpu_ops, "CPU events") +
            " end after the event they started in (by more than 1 us): drawn beside it, not inside; its self time "
            "includes them");
    if (q.launched_before > 0)
        out.push_back(of(q.launched_before, q.launched, "launched kernels, copies and sets") +
                      " start before the runtime call that launched them: the CPU's and the GPU's clocks disagree");
    return out;
}

}  // namespace awb
