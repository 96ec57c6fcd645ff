#include "model/profile_result.h"

#include <algorithm>
#include <tuple>

#include "model/bench_stats.h"
#include "model/recorded_steps.h"

namespace awb {

std::string kineto_cycle_path(const std::string& path, int cycle) {
    if (cycle == 0) return path;
    const std::string suffix = ".cycle" + std::to_string(cycle + 1);
    const std::string ext = ".json";
    if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0)
        return path.substr(0, path.size() - ext.size()) + suffix + ext;
    return path + suffix;
}

std::vector<StepRecord> recorded_steps(const ProfileResult& r) {
    std::vector<StepRecord> out;
    for (const auto& st : r.steps)
        if (st.action == ScheduleAction::Record || st.action == ScheduleAction::RecordAndSave) out.push_back(st);
    if (!out.empty()) return out;
    for (size_t i : step_span_events(r.trace)) {
        const TraceEvent& e = r.trace.events()[i];
        out.push_back({profiler_step_number(e.name), ScheduleAction::Record, e.duration_ns()});
    }
    std::stable_sort(out.begin(), out.end(), [](const StepRecord& a, const StepRecord& b) { return a.step < b.step; });
    return out;
}

int recorded_step_count(const ProfileResult& r) { return std::max(int(recorded_steps(r).size()), 1); }

std::vector<size_t> step_span_events(const Trace& trace) {
    const auto& events = trace.events();
    auto in_step = [&](const TraceEvent& e) {  // an ancestor is a step (a step's own children named so)
        for (int32_t p = e.parent; p >= 0; p = events[size_t(p)].parent)
            if (profiler_step_number(events[size_t(p)].name) >= 0) return true;
        return false;
    };
    std::vector<size_t> out;
    for (size_t i = 0; i < events.size(); ++i)
        if (events[i].device == DeviceKind::CPU && profiler_step_number(events[i].name) >= 0 && !in_step(events[i]))
            out.push_back(i);
    return out;
}

StepSpans::StepSpans(const Trace& trace) {
    for (size_t i : step_span_events(trace)) {
        const TraceEvent& e = trace.events()[i];
        spans_[e.rank].push_back({e.start_ns, e.end_ns, profiler_step_number(e.name)});
    }
    for (auto& [rank, spans] : spans_)
        std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
            return std::tie(a.start_ns, a.end_ns, a.step) < std::tie(b.start_ns, b.end_ns, b.step);
        });
}

int StepSpans::at(int32_t rank, int64_t t) const {
    const auto it = spans_.find(rank);
    if (it == spans_.end()) return -1;
    const auto& spans = it->second;
    const auto after =
        std::upper_bound(spans.begin(), spans.end(), t, [](int64_t v, const Span& s) { return v < s.start_ns; });
    if (after == spans.begin()) return -1;
    const Span& s = *std::prev(after);
    return t <= s.end_ns ? s.step : -1;
}

double median_recorded_step_ns(const ProfileResult& r) {
    std::vector<double> times;
    for (const auto& st : recorded_steps(r)) times.push_back(double(st.wall_ns));
    return times.empty() ? -1 : quantile(times, 0.5);
}

ProfileResult run_of_rank(const ProfileResult& run, int32_t rank) {
    ProfileResult out;
    out.spec = run.spec;
    out.spec_known = run.spec_known;
    out.options = run.options;
    out.environment = run.environment;
    out.roof = run.roof;
    out.import = run.import;
    out.trace = run.trace.of_rank(rank);
    return out;
}

}  // namespace awb
