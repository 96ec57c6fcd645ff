#include "analysis/idle_time.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/hta_view.h"
#include "model/printf_string.h"
#include "model/recorded_steps.h"
#include "model/units.h"

namespace awb {

std::string to_string(IdleCause cause) {
    switch (cause) {
        case IdleCause::HostWait: return "host wait";
        case IdleCause::KernelWait: return "kernel wait";
        case IdleCause::Other: return "other";
    }
    return "other";
}

namespace {

// One stream of one rank: its device events in start order (the trace's order).
using StreamKey = std::tuple<int32_t, int64_t>;

std::map<StreamKey, std::vector<int32_t>> streams_of(const std::vector<TraceEvent>& events) {
    std::map<StreamKey, std::vector<int32_t>> out;
    for (size_t i = 0; i < events.size(); ++i)
        if (is_device_work(events[i])) out[{events[i].rank, int64_t(events[i].thread)}].push_back(int32_t(i));
    return out;
}

// The gap before one event of a stream: from the previous one's end to its start.
struct Gap {
    int64_t start_ns, end_ns;
    IdleCause cause;
};

Gap gap_before(int64_t prev_end, int64_t start, int64_t launch_start, bool launched, int64_t kernel_wait_ns) {
    if (launched && launch_start > prev_end) return {prev_end, start, IdleCause::HostWait};
    return {prev_end, start, start - prev_end < kernel_wait_ns ? IdleCause::KernelWait : IdleCause::Other};
}

void add(StreamIdle& row, const Gap& g) {
    const int64_t ns = g.end_ns - g.start_ns;
    (g.cause == IdleCause::HostWait     ? row.host_wait_ns
     : g.cause == IdleCause::KernelWait ? row.kernel_wait_ns
                                        : row.other_ns) += ns;
    ++row.gaps;
}

StreamIdle row_of(const TraceEvent& e, int step) {
    StreamIdle r;
    r.rank = e.rank;
    r.device_index = e.device_index;
    r.stream = int64_t(e.thread);
    r.step = step;
    return r;
}

// What held a launch: the op around the runtime call, and the innermost Python frame above it.
void name_holders(const std::vector<TraceEvent>& events, IdleGap& g) {
    for (int32_t i = g.launch >= 0 ? events[size_t(g.launch)].parent : -1; i >= 0; i = events[size_t(i)].parent) {
        const TraceEvent& e = events[size_t(i)];
        if (g.held_by.empty() && e.kind == EventKind::CpuOp) g.held_by = e.name.str();
        if (g.python_frame.empty() && e.kind == EventKind::Other &&
            e.name.view().find(".py(") != std::string_view::npos)
            g.python_frame = e.name.str();
        if (!g.held_by.empty() && !g.python_frame.empty()) break;
    }
}

// The figures on what HTA 0.5.0 reads of the stream: its kept events, their times rounded its way.
StreamIdle hta_row(const std::vector<TraceEvent>& events, const std::vector<int32_t>& stream, const HtaView& h,
                   const LaunchCalls& launches, int64_t kernel_wait_ns) {
    StreamIdle row = row_of(events[size_t(stream.front())], -1);
    bool first = true;
    int64_t prev_end = 0;
    for (int32_t i : stream) {
        const TraceEvent& e = events[size_t(i)];
        if (!h.keeps(e, events, launches)) continue;
        const int32_t launch = launches.of(e);
        const int64_t start = h.start(e.start_ns);
        if (!first)
            add(row, gap_before(prev_end, start, launch >= 0 ? h.start(events[size_t(launch)].start_ns) : 0,
                                launch >= 0, kernel_wait_ns));
        first = false;
        prev_end = h.end(e.start_ns, e.end_ns);
    }
    return row;
}

// One row of the text table: rank, stream, step (or "hta"), gaps and the three causes with their sum.
std::string idle_line(const StreamIdle& r, const std::string& step) {
    return printf_string(
        "%-5s %-8lld %-6s %7lld %14s %14s %14s %14s\n", r.rank < 0 ? "-" : std::to_string(r.rank).c_str(),
        (long long)r.stream, step.c_str(), (long long)r.gaps, format_duration_ns(double(r.host_wait_ns)).c_str(),
        format_duration_ns(double(r.kernel_wait_ns)).c_str(), format_duration_ns(double(r.other_ns)).c_str(),
        format_duration_ns(double(r.idle_ns())).c_str());
}

}  // namespace

IdleReport idle_time(const Trace& trace, const LaunchCalls& launches, int64_t kernel_wait_ns, size_t longest) {
    const auto& events = trace.events();
    const StepSpans steps(trace);
    const std::map<int32_t, HtaView> views = hta_views(trace);
    IdleReport out;
    out.origin_ns = trace.meta().origin_ns;
    std::vector<IdleGap> gaps;
    for (const auto& [key, stream] : streams_of(events)) {
        StreamIdle whole = row_of(events[size_t(stream.front())], -1);
        std::map<int, StreamIdle> by_step;
        for (size_t j = 1; j < stream.size(); ++j) {
            const TraceEvent& prev = events[size_t(stream[j - 1])];
            const TraceEvent& e = events[size_t(stream[j])];
            const int32_t launch = launches.of(e);
            const Gap g = gap_before(prev.end_ns, e.start_ns, launch >= 0 ? events[size_t(launch)].start_ns : 0,
                                     launch >= 0, kernel_wait_ns);
            add(whole, g);
            if (const int k = steps.at(e.rank, launches.launched_at(e)); k >= 0)
                add(by_step.try_emplace(k, row_of(e, k)).first->second, g);
            if (g.end_ns > g.start_ns)
                gaps.push_back({e.rank, int64_t(e.thread), g.start_ns, g.end_ns, g.cause, stream[j], launch, {}, {}});
        }
        out.rows.push_back(whole);
        for (auto& [k, row] : by_step) out.rows.push_back(row);
        const HtaView& h = views.at(std::get<0>(key));
        out.hta.push_back(hta_row(events, stream, h, launches, kernel_wait_ns));
        out.hta_steps[std::get<0>(key)] = h.steps();
    }
    const size_t n = std::min(longest, gaps.size());
    std::partial_sort(gaps.begin(), gaps.begin() + ptrdiff_t(n), gaps.end(), [](const IdleGap& a, const IdleGap& b) {
        return a.duration_ns() != b.duration_ns() ? a.duration_ns() > b.duration_ns() : a.start_ns < b.start_ns;
    });
    gaps.resize(n);
    for (IdleGap& g : gaps) name_holders(events, g);
    out.longest = std::move(gaps);
    return out;
}

std::string format_idle(const IdleReport& report, size_t rows) {
    if (report.rows.empty()) return "Idle time: the trace has no kernels, copies or sets\n";
    std::string out =
        "Idle time per stream (the gap before each kernel, copy or set: host wait = launched after the previous "
        "ended, kernel wait = launched in time and under 30 us, other = the rest)\n";
    out += printf_string("%-5s %-8s %-6s %7s %14s %14s %14s %14s\n", "rank", "stream", "step", "gaps", "host wait",
                         "kernel wait", "other", "idle");
    for (const StreamIdle& r : report.rows) out += idle_line(r, r.step < 0 ? "all" : "#" + std::to_string(r.step));
    out += "As HolisticTraceAnalysis 0.5.0 computes it (get_idle_time_breakdown):";
    for (const auto& [rank, steps] : report.hta_steps)
        out += (rank < 0 ? std::string(" ") : " rank " + std::to_string(rank) + ": ") + steps + ";";
    out += "\n";
    for (const StreamIdle& r : report.hta) out += idle_line(r, "hta");
    if (report.longest.empty()) return out;
    out += "Longest gaps, and the CPU work that held the launch after them:\n";
    for (size_t i = 0; i < std::min(rows ? rows : report.longest.size(), report.longest.size()); ++i) {
        const IdleGap& g = report.longest[i];
        out += printf_string(
            "  %12s  rank %s stream %lld at %s: %s", format_duration_ns(double(g.duration_ns())).c_str(),
            g.rank < 0 ? "-" : std::to_string(g.rank).c_str(), (long long)g.stream,
            format_duration_ns(double(g.start_ns - report.origin_ns)).c_str(), to_string(g.cause).c_str());
        if (!g.held_by.empty()) out += ", launched in " + g.held_by;
        if (!g.python_frame.empty()) out += " from " + g.python_frame;
        out += "\n";
    }
    return out;
}

}  // namespace awb
