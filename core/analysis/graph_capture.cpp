#include "analysis/graph_capture.h"

#include <algorithm>
#include <map>

#include "model/units.h"

namespace awb {

namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool is_runtime_call(const TraceEvent& e) { return e.kind == EventKind::Runtime && e.device == DeviceKind::CPU; }

std::string plural(int64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::optional<EventKind> launched_work(std::string_view name) {
    if (contains(name, "LaunchKernel") || contains(name, "LaunchCooperativeKernel")) return EventKind::Kernel;
    if (contains(name, "Async") && contains(name, "Memcpy")) return EventKind::Memcpy;
    if (contains(name, "Async") && contains(name, "Memset")) return EventKind::Memset;
    return std::nullopt;
}

std::vector<CaptureRegion> capture_regions(const std::vector<TraceEvent>& events) {
    std::vector<CaptureRegion> out;
    std::map<std::pair<int32_t, uint64_t>, size_t> open;
    for (const TraceEvent& e : events) {
        if (!is_runtime_call(e)) continue;
        const std::pair<int32_t, uint64_t> where{e.rank, e.thread};
        if (contains(e.name, "BeginCapture")) {
            open[where] = out.size();
            out.push_back({e.rank, e.thread, e.start_ns, INT64_MAX});
        } else if (contains(e.name, "EndCapture")) {
            if (const auto it = open.find(where); it != open.end()) {
                out[it->second].end_ns = e.end_ns;
                open.erase(it);
            }
        }
    }
    return out;
}

GraphCaptureSummary graph_capture_summary(const Trace& trace) {
    GraphCaptureSummary out;
    const std::vector<CaptureRegion> regions = capture_regions(trace.events());
    out.graphs = int64_t(regions.size());
    std::map<std::pair<int32_t, uint64_t>, std::vector<const CaptureRegion*>> by_thread;  // each in begin order
    for (const CaptureRegion& r : regions) by_thread[{r.rank, r.thread}].push_back(&r);
    auto captured = [&by_thread](const TraceEvent& e) {
        const auto it = by_thread.find({e.rank, e.thread});
        if (it == by_thread.end()) return false;
        const auto& list = it->second;  // the last region begun at or before the launch
        const auto after = std::upper_bound(list.begin(), list.end(), e.start_ns,
                                            [](int64_t t, const CaptureRegion* r) { return t < r->begin_ns; });
        return after != list.begin() && (*std::prev(after))->holds(e.rank, e.thread, e.start_ns);
    };
    for (const TraceEvent& e : trace.events()) {
        if (out.graphs > 0 && is_runtime_call(e) && launched_work(e.name) && captured(e)) ++out.launches;
        if (out.begin_call.empty() && is_runtime_call(e) && contains(e.name, "BeginCapture"))
            out.begin_call = e.name.str();
        if (e.device == DeviceKind::CPU || !is_device_work(e)) continue;
        ++out.device_events;
        out.device_ns += e.duration_ns();
    }
    return out;
}

std::string graph_capture_note(const GraphCaptureSummary& s) {
    if (s.graphs == 0) return {};
    std::string out = "graph-capture trace: " + plural(s.graphs, "graph", "graphs") + " captured (" + s.begin_call +
                      " .. EndCapture); their " + plural(s.launches, "launch", "launches") +
                      " did not run here, so this trace's device time is not the model's: ";
    out += s.device_events > 0
               ? "its " + plural(s.device_events, "device event", "device events") + " (" +
                     format_duration_ns(double(s.device_ns)) + ") ran outside the captures (warm-up, copies). "
               : "it holds no device work. ";
    return out +
           "The graphs' kernels are in the replay trace: open it with this capture (attnwb inspect REPLAY --capture "
           "CAPTURE, "
           "or File > Open of both files)";
}

}  // namespace awb
