#include "analysis/trace_quality.h"

#include <climits>
#include <map>
#include <tuple>
#include <vector>

#include "analysis/trace_links.h"
#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

// The value of key in map, found once per run of events with the same key (events of one stream or one
// thread come in runs): a tree lookup per change of key, not per event.
template <class Key, class Value>
class LastKey {
public:
    Value& at(const Key& key) {
        if (!last_ || key != last_key_) {
            last_ = &map_[key];
            last_key_ = key;
        }
        return *last_;
    }

private:
    std::map<Key, Value> map_;  // node-based: a value's address stays
    Key last_key_{};
    Value* last_ = nullptr;
};

void count_device_overlaps(const Trace& trace, TraceQuality& q) {
    struct End {
        int64_t ns = INT64_MIN;  // none yet
    };
    LastKey<std::tuple<int32_t, int, uint64_t>, End> stream_end;  // (rank, device, stream) -> end so far
    for (const TraceEvent& e : trace.events()) {                  // in start order
        if (e.device == DeviceKind::CPU || !is_device_work(e)) continue;
        ++q.device_work;
        End& end = stream_end.at({e.rank, e.device_index, e.thread});
        if (end.ns != INT64_MIN && e.start_ns + kOverlapSlackNs < end.ns) ++q.overlapping_device;
        end.ns = std::max(end.ns, e.end_ns);
    }
}

void count_cpu_spills(const Trace& trace, TraceQuality& q) {
    LastKey<std::pair<int32_t, uint64_t>, std::vector<int64_t>> open;  // (rank, thread) -> ends of the open ops
    for (const TraceEvent& e : trace.events()) {
        if (!nests_on_cpu(e)) continue;
        ++q.cpu_ops;
        std::vector<int64_t>& ends = open.at({e.rank, e.thread});
        while (!ends.empty() && ends.back() <= e.start_ns) ends.pop_back();
        if (!ends.empty() && e.end_ns > ends.back() + kOverlapSlackNs) {
            ++q.spilling_cpu;
            continue;  // not pushed: what starts after it is measured against the op it spilled out of
        }
        ends.push_back(e.end_ns);
    }
}

void count_early_device_work(const Trace& trace, const LaunchCalls& launches, TraceQuality& q) {
    for (const TraceEvent& e : trace.events()) {
        if (e.device == DeviceKind::CPU || !is_device_work(e)) continue;
        const int32_t launch = launches.of(e);
        if (launch < 0) continue;
        ++q.launched;
        if (e.start_ns < trace.events()[size_t(launch)].start_ns) ++q.launched_before;
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

TraceQuality trace_quality(const Trace& trace, const LaunchCalls& launches, const ImportNotes& import) {
    TraceQuality q;
    q.import = import;
    count_device_overlaps(trace, q);
    count_cpu_spills(trace, q);
    count_early_device_work(trace, launches, q);
    return q;
}

TraceQuality trace_quality(const Trace& trace, const ImportNotes& import) {
    return trace_quality(trace, LaunchCalls(trace), import);
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
