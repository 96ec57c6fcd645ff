#include "analysis/profile_report.h"

#include <algorithm>

#include "model/recorded_steps.h"
#include "model/units.h"

namespace awb {

namespace {

// The peak of the trace's [memory] events: the device's when it has device events (an imported GPU
// trace), else the CPU's; the allocator's Total Allocated where the trace carries it, else relative.
void set_trace_peak(ProfileReport& r) {
    const bool device = std::any_of(r.memory_series.begin(), r.memory_series.end(),
                                    [](const MemorySeries& s) { return s.device != DeviceKind::CPU; });
    const MemorySeries* top = nullptr;
    for (const auto& s : r.memory_series)
        if ((s.device != DeviceKind::CPU) == device && (!top || s.quoted_peak_bytes() > top->quoted_peak_bytes()))
            top = &s;
    if (!top) return;
    r.peak_memory_bytes = top->quoted_peak_bytes();
    r.peak_memory_source =
        top->has_totals()
            ? std::string("Total Allocated of the trace's ") + (device ? "device" : "cpu") + " [memory] events" +
                  (top->peak_reserved_bytes >= 0 ? ", " + format_bytes(top->peak_reserved_bytes) + " reserved"
                                                 : std::string())
            : std::string("replayed ") + (device ? "device" : "cpu") +
                  " [memory] events, above the level when recording started";
}

}  // namespace

ProfileReport make_report(const ProfileResult& result, const RunAnalysis& analysis, bool group_by_shape) {
    ProfileReport r;
    r.spec = result.spec;
    r.spec_known = result.spec_known;
    r.options = result.options;
    r.environment = result.environment;
    r.grouped_by_shape = group_by_shape;
    r.device_columns = analysis.device_columns;
    r.operators = group_by_shape ? key_averages(result.trace, OpTableOptions{true}) : analysis.operators;
    r.memory_series = analysis.memory;
    for (auto& s : r.memory_series) {
        s.points = downsample_min_max(s.points, 1000);
        s.allocated_points = downsample_min_max(s.allocated_points, 1000);
        s.reserved_points = downsample_min_max(s.reserved_points, 1000);
    }
    if (result.device_peak_bytes >= 0) {
        r.peak_memory_bytes = result.device_peak_bytes;
        r.peak_memory_source = "cuda allocator (max_memory_allocated over the run)";
    } else {
        set_trace_peak(r);
    }
    r.attention = analysis.attention;
    r.roofs = analysis.roofs;
    const bool ran_kernels =
        std::any_of(r.attention.begin(), r.attention.end(), [](const AttentionInstance& a) { return a.device_ns > 0; });
    if (ran_kernels) r.attention_gpu_busy_ns = attention_totals(r.attention, analysis.gpu).gpu_busy_ns;
    r.steps = result.steps;
    if (!result.spec_known && r.steps.empty())
        r.steps = recorded_steps(result);  // a foreign trace: its ProfilerStep#k spans
    return r;
}

ProfileResult run_of_report(const ProfileReport& report) {
    ProfileResult run;
    run.spec = report.spec;
    run.spec_known = report.spec_known;
    run.options = report.options;
    run.environment = report.environment;
    run.steps = report.steps;
    if (report.peak_memory_source.rfind("cuda", 0) == 0) run.device_peak_bytes = report.peak_memory_bytes;
    for (const Roof& r : report.roofs)
        if (r.measured) run.roof = r;
    return run;
}

}  // namespace awb
