#include "analysis/snapshot_ops.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <unordered_map>

namespace awb {

namespace {

// The operators an allocation can be made by: CPU ops and record_function ranges that nest on their
// thread (not those a CUDA graph's replay placed: they did not run then).
bool holds_allocations(const TraceEvent& e) {
    return nests_on_cpu(e) && !e.replayed && (e.kind == EventKind::CpuOp || e.kind == EventKind::UserAnnotation);
}

// Walks up from the latest operator started on a thread to the deepest one still running at LO (ns).
int32_t running_at(const std::vector<TraceEvent>& events, int32_t op, int64_t lo) {
    while (op >= 0 && (!holds_allocations(events[size_t(op)]) || events[size_t(op)].end_ns < lo))
        op = events[size_t(op)].parent;
    return op;
}

// Microseconds since the epoch as UTC: "2026-12-06 03:24:30.576432 UTC".
std::string epoch_text(int64_t us) {
    const std::time_t seconds = std::time_t(us / 1000000);
    std::tm tm{};
    if (us < 0 || !gmtime_r(&seconds, &tm)) return std::to_string(us) + " us";
    char text[64];
    std::snprintf(text, sizeof text, "%04d-%02d-%02d %02d:%02d:%02d.%06lld UTC", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(us % 1000000));
    return text;
}

}  // namespace

SnapshotOps attribute_allocations(const MemorySnapshot& snapshot, const Trace& trace) {
    SnapshotOps out;
    std::vector<std::pair<int64_t, size_t>> timed;  // (time in ns, index into by_alloc)
    for (size_t d = 0; d < snapshot.device_traces.size(); ++d)
        for (size_t i = 0; i < snapshot.device_traces[d].size(); ++i) {
            const SnapshotEvent& e = snapshot.device_traces[d][i];
            if (e.action != SnapshotAction::Alloc) continue;
            if (e.time_us >= 0 && e.time_us < INT64_MAX / 1000)
                timed.emplace_back(e.time_us * 1000, out.by_alloc.size());
            out.by_alloc.push_back({int(d), int64_t(i), kNoTime});
        }
    out.allocations = int64_t(out.by_alloc.size());
    out.timed = int64_t(timed.size());
    std::stable_sort(timed.begin(), timed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    if (!timed.empty()) {
        out.first_us = timed.front().first / 1000;
        out.last_us = timed.back().first / 1000;
    }
    // One sweep over both by time (the events come sorted by start: Trace::build). An operator runs
    // during an allocation's microsecond [t, t + 1000 ns) when it is the deepest one running at t on its
    // thread (the latest started there, walked up through its parents) or it starts within it; of
    // those the shortest made it. Against the operator holding an allocation's exact time (CPU profiles
    // have it: tests/reference/make_linked_snapshot.py --agreement) this names the same one for 186 of
    // 190 allocations in five runs of the article's attention; the deepest running at t alone, for 116.
    const std::vector<TraceEvent>& events = trace.events();
    const auto span = operators_span_us(trace);
    std::map<uint64_t, int32_t> latest;  // CPU thread -> the operator that started last on it before t
    size_t before = 0, next = 0;         // events [before, next) start within the microsecond
    for (const auto& [t_ns, index] : timed) {
        for (; before < events.size() && events[before].start_ns < t_ns; ++before)
            if (holds_allocations(events[before])) latest[events[before].thread] = int32_t(before);
        next = std::max(next, before);
        for (; next < events.size() && events[next].start_ns < t_ns + 1000; ++next) {}
        int32_t best = -1;
        const auto consider = [&](int32_t op) {
            if (op >= 0 && (best < 0 || events[size_t(op)].duration_ns() < events[size_t(best)].duration_ns()))
                best = op;
        };
        for (auto& [thread, op] : latest) consider(op = running_at(events, op, t_ns));
        for (size_t i = before; i < next; ++i)
            if (holds_allocations(events[i])) consider(int32_t(i));
        if (best < 0)
            best = !span || t_ns < span->first * 1000 ? kBeforeTrace
                   : t_ns > span->second * 1000       ? kAfterTrace
                                                      : kBetweenOperators;
        out.by_alloc[index].op = best;
        out.in_ops += best >= 0;
    }
    return out;
}

std::optional<std::pair<int64_t, int64_t>> operators_span_us(const Trace& trace) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const TraceEvent& e : trace.events())
        if (holds_allocations(e)) {
            lo = std::min(lo, e.start_ns);
            hi = std::max(hi, e.end_ns);
        }
    if (lo > hi) return std::nullopt;
    return std::make_pair(lo / 1000, hi / 1000);
}

std::string attribution_problem(const SnapshotOps& ops, const Trace& trace) {
    if (ops.in_ops > 0) return "";
    if (ops.allocations == 0) return "the snapshot's traces hold no allocations";
    if (ops.timed == 0)
        return "the snapshot's allocations carry no time_us (torch records it since 2.1; a snapshot made from a CPU "
               "profile by _profile_to_snapshot has none), so they cannot be placed in the trace";
    return "no allocation falls inside an operator of the trace: the snapshot's allocations span " +
           epoch_text(ops.first_us) + " to " + epoch_text(ops.last_us) + ", the trace " +
           epoch_text(trace.begin_ns() / 1000) + " to " + epoch_text(trace.end_ns() / 1000) +
           " (not the same run, or a trace without baseTimeNanoseconds)";
}

std::vector<TracePeak> trace_peaks(const MemorySnapshot& snapshot, const SnapshotTimeline& timeline,
                                   const SnapshotOptions& options, const Trace& trace) {
    const auto span = operators_span_us(trace);
    std::vector<TracePeak> out;
    for (const DeviceMemoryTimeline& t : timeline.devices) {
        TracePeak p{t.device, t.peak_index, t.peak_allocated, true, {}};
        const size_t d = size_t(t.device);
        const size_t n = span && d < snapshot.device_traces.size() ? snapshot.device_traces[d].size() : 0;
        int64_t best = -1;
        for (size_t i = 0; i < n; ++i) {
            const int64_t time_us = snapshot.device_traces[d][i].time_us;
            if (time_us < span->first || time_us > span->second) continue;
            if (p.first_x < 0) p.first_x = int64_t(i) + 1;
            p.last_x = int64_t(i) + 1;
            if (t.allocated[i + 1] > best) {
                best = t.allocated[i + 1];
                p.index = int64_t(i) + 1;
            }
        }
        if (best >= 0) {
            p.allocated = best;
            p.device_peak = p.index == t.peak_index;
        }
        p.blocks = p.device_peak ? t.at_peak : blocks_alive_at(snapshot, t.device, p.index, options);
        out.push_back(std::move(p));
    }
    return out;
}

AllocsAtPeak allocs_at_peak(const std::vector<TracePeak>& peaks) {
    AllocsAtPeak at_peak;
    for (const TracePeak& p : peaks)
        for (const LiveBlock& b : p.blocks)
            if (b.alloc_event >= 0) at_peak[p.device].insert(b.alloc_event);
    return at_peak;
}

bool alive_at_peak(const AllocsAtPeak& at_peak, const OpAllocation& a) {
    const auto it = at_peak.find(a.device);
    return it != at_peak.end() && it->second.count(a.event) > 0;
}

std::string_view operator_name(const Trace& trace, int32_t op) {
    if (op >= 0) return trace.events()[size_t(op)].name.view();
    switch (op) {
        case kBeforeTrace: return "(before the trace began)";
        case kAfterTrace: return "(after the trace ended)";
        case kBetweenOperators: return "(between operators)";
        default: return "(no time recorded)";
    }
}

AllocationBytes allocation_bytes(const MemorySnapshot& snapshot, const AllocsAtPeak& at_peak,
                                 const std::vector<OpAllocation>& allocations) {
    AllocationBytes out;
    for (const OpAllocation& a : allocations) {
        const int64_t size = snapshot.device_traces[size_t(a.device)][size_t(a.event)].size;
        out.bytes += size;
        if (alive_at_peak(at_peak, a)) out.at_peak += size;
    }
    return out;
}

std::vector<OpMemoryRow> op_memory_rows(const SnapshotOps& ops, const MemorySnapshot& snapshot, const Trace& trace,
                                        const AllocsAtPeak& at_peak) {
    std::unordered_map<std::string_view, OpMemoryRow> rows;
    for (const OpAllocation& a : ops.by_alloc) {
        OpMemoryRow& row = rows[operator_name(trace, a.op)];
        const int64_t size = snapshot.device_traces[size_t(a.device)][size_t(a.event)].size;
        ++row.allocations;
        row.bytes += size;
        if (alive_at_peak(at_peak, a)) {
            ++row.at_peak;
            row.bytes_at_peak += size;
        }
    }
    std::vector<OpMemoryRow> out;
    out.reserve(rows.size());
    for (auto& [name, row] : rows) {
        row.name = std::string(name);
        out.push_back(std::move(row));
    }
    std::sort(out.begin(), out.end(), [](const OpMemoryRow& a, const OpMemoryRow& b) {
        if (a.bytes_at_peak != b.bytes_at_peak) return a.bytes_at_peak > b.bytes_at_peak;
        if (a.bytes != b.bytes) return a.bytes > b.bytes;
        return a.name < b.name;
    });
    return out;
}

std::vector<OpAllocation> allocations_under(const SnapshotOps& ops, const Trace& trace, std::string_view name) {
    const std::vector<TraceEvent>& events = trace.events();
    std::unordered_map<int32_t, bool> under;  // operator -> it or an operator above it is NAME
    std::vector<OpAllocation> out;
    for (const OpAllocation& a : ops.by_alloc) {
        if (a.op < 0) continue;
        auto it = under.find(a.op);
        if (it == under.end()) {
            bool found = false;
            for (int32_t op = a.op; op >= 0 && !found; op = events[size_t(op)].parent)
                found = events[size_t(op)].name.view() == name;
            it = under.emplace(a.op, found).first;
        }
        if (it->second) out.push_back(a);
    }
    return out;
}

}  // namespace awb
