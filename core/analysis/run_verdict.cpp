#include "analysis/run_verdict.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "model/bench_stats.h"
#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

struct StepSpan {
    int step;
    int32_t rank;
    int64_t start_ns, end_ns;
};

// The trace's top-level CPU ProfilerStep#k spans, by step then rank.
std::vector<StepSpan> step_spans(const Trace& trace) {
    std::vector<StepSpan> out;
    for (size_t i : step_span_events(trace)) {
        const TraceEvent& e = trace.events()[i];
        out.push_back({profiler_step_number(e.name), e.rank, e.start_ns, e.end_ns});
    }
    std::sort(out.begin(), out.end(), [](const StepSpan& a, const StepSpan& b) {
        return std::tie(a.step, a.rank, a.start_ns) < std::tie(b.step, b.rank, b.start_ns);
    });
    return out;
}

int64_t device_time(const std::vector<GpuBreakdown>& gpu, const StepSpan& s) {
    if (gpu.empty()) return -1;
    int64_t busy = 0;
    for (const GpuBreakdown& g : gpu)
        if (g.step == s.step && g.rank == s.rank) busy += g.busy_ns;
    return busy;
}

// The highest level of a series inside [start, end]: the level carried into the span, then its points.
int64_t level_peak(const MemorySeries& m, int64_t start, int64_t end) {
    const MemoryPoint* carried = memory_level_at(m.points, start);
    int64_t peak = carried ? carried->bytes : 0;
    for (auto it = m.points.begin() + (carried ? carried - m.points.data() + 1 : 0);
         it != m.points.end() && it->ts_ns <= end; ++it)
        peak = std::max(peak, it->bytes);
    return peak;
}

// Device series where the trace has any with points, else CPU ones; -1 when none has points.
int64_t memory_peak(const std::vector<MemorySeries>& memory, const StepSpan& s) {
    const bool device = std::any_of(memory.begin(), memory.end(), [](const MemorySeries& m) {
        return m.device != DeviceKind::CPU && !m.points.empty();
    });
    int64_t peak = -1;
    for (const MemorySeries& m : memory)
        if ((m.device != DeviceKind::CPU) == device && m.rank == s.rank && !m.points.empty())
            peak = std::max(peak, level_peak(m, s.start_ns, s.end_ns));
    return peak;
}

int64_t value_of(const StepSample& s, VerdictMeasure m) {
    return m == VerdictMeasure::StepTime ? s.wall_ns : m == VerdictMeasure::DeviceTime ? s.device_ns : s.peak_bytes;
}

std::string amount(VerdictMeasure m, double v) {
    return m == VerdictMeasure::PeakMemory ? format_bytes(int64_t(std::llround(v))) : format_duration_ns(v);
}

// Beyond 2x either way, a factor: "4.82", "28263".
std::string factor(double x) { return x < 1000 ? printf_string("%.3g", x) : printf_string("%.0f", x); }

// "B is 15.6% faster per step" / "B spends 3.0% more device time per step" / "B's peak memory per step is 2.1% lower";
// beyond 2x either way, the factor: "B is 4.82x slower per step", "B spends 1/28263 of A's device time per step".
std::string direction(VerdictMeasure m, double ratio) {
    const double pct = 100 * std::fabs(1 - ratio);
    const bool less = ratio < 1;
    if (ratio == 1) return "A and B are equal in median " + measure_name(m);
    if (ratio > 2 || ratio < 0.5) {
        const std::string times = less ? "1/" + factor(1 / ratio) + " of" : factor(ratio) + "x";
        switch (m) {
            case VerdictMeasure::StepTime:
                return "B is " + factor(less ? 1 / ratio : ratio) + "x " + (less ? "faster" : "slower") + " per step";
            case VerdictMeasure::DeviceTime: return "B spends " + times + " A's device time per step";
            case VerdictMeasure::PeakMemory: return "B's peak memory per step is " + times + " A's";
        }
    }
    switch (m) {
        case VerdictMeasure::StepTime: return printf_string("B is %.1f%% %s per step", pct, less ? "faster" : "slower");
        case VerdictMeasure::DeviceTime:
            return printf_string("B spends %.1f%% %s device time per step", pct, less ? "less" : "more");
        case VerdictMeasure::PeakMemory:
            return printf_string("B's peak memory per step is %.1f%% %s", pct, less ? "lower" : "higher");
    }
    return {};
}

// Why a side has no values of the measure.
std::string missing(VerdictMeasure m, const char* side) {
    switch (m) {
        case VerdictMeasure::StepTime:
            return printf_string("%s has no recorded steps (no ProfilerStep#k spans in its trace)", side);
        case VerdictMeasure::DeviceTime:
            return printf_string("%s has no device kernels, copies or sets inside ProfilerStep#k spans", side);
        case VerdictMeasure::PeakMemory:
            return printf_string("%s records no memory events ([memory]) inside ProfilerStep#k spans", side);
    }
    return {};
}

std::string noise_text(const MeasureVerdict& v) {
    const Interval& i = v.ratio.interval;
    if (v.n_a < 3 || v.n_b < 3)
        return printf_string("cannot be told from noise: A has %zu step(s), B %zu; an interval needs 3 or more a side",
                             v.n_a, v.n_b);
    if (!i.valid) return "no interval could be drawn";
    return printf_string("95%% CI of B/A %.3f-%.3f over %zu and %zu steps, %s", i.low, i.high, v.n_a, v.n_b,
                         v.beyond_noise ? "beyond noise" : "within noise: it includes 1");
}

}  // namespace

std::string measure_name(VerdictMeasure m) {
    switch (m) {
        case VerdictMeasure::StepTime: return "step time";
        case VerdictMeasure::DeviceTime: return "device time per step";
        case VerdictMeasure::PeakMemory: return "peak memory per step";
    }
    return {};
}

std::vector<StepSample> step_samples(const ProfileResult& run, const RunAnalysis& analysis) {
    const std::vector<StepRecord> records = recorded_steps(run);
    const std::vector<StepSpan> spans = step_spans(run.trace);
    std::vector<StepSample> out;
    if (spans.empty()) {  // a run's own records without spans in its trace: wall time only
        for (const StepRecord& r : records) out.push_back({r.step, r.wall_ns, -1, -1});
        return out;
    }
    for (const StepSpan& s : spans) {
        // A run's own record of step k (profiler on, the whole step) where it has one, else the span.
        const auto rec =
            std::find_if(records.begin(), records.end(), [&](const StepRecord& r) { return r.step == s.step; });
        const int64_t wall = run.spec_known && rec != records.end() ? rec->wall_ns : s.end_ns - s.start_ns;
        out.push_back({s.step, wall, device_time(analysis.gpu, s), memory_peak(analysis.memory, s)});
    }
    return out;
}

MeasureVerdict compare_measure(VerdictMeasure m, const std::vector<StepSample>& a, const std::vector<StepSample>& b) {
    MeasureVerdict v;
    v.measure = m;
    std::vector<double> va, vb;
    for (const StepSample& s : a)
        if (value_of(s, m) >= 0) va.push_back(double(value_of(s, m)));
    for (const StepSample& s : b)
        if (value_of(s, m) >= 0) vb.push_back(double(value_of(s, m)));
    v.n_a = va.size(), v.n_b = vb.size();
    const std::string name = measure_name(m);
    if (a.empty() || b.empty()) {
        v.text = name + ": not compared: " + missing(VerdictMeasure::StepTime, a.empty() ? "A" : "B");
        return v;
    }
    if (va.empty() || vb.empty()) {
        v.text = name + ": not compared: " + missing(m, va.empty() ? "A" : "B");
        return v;
    }
    v.median_a = quantile(va, 0.5), v.median_b = quantile(vb, 0.5);
    if (v.median_a <= 0) {
        v.text = name + ": not compared: A's median is 0 (median B " + amount(m, v.median_b) + ")";
        return v;
    }
    v.known = true;
    v.ratio = compare_medians(va, vb);
    const Interval& i = v.ratio.interval;
    v.beyond_noise = i.valid && (i.high < 1 || i.low > 1);
    v.text = direction(m, v.ratio.ratio) + " (median B " + amount(m, v.median_b) + " vs A " + amount(m, v.median_a) +
             "; " + noise_text(v) + ")";
    return v;
}

RunVerdict compare_runs(const ProfileResult& a, const RunAnalysis& analysis_a, const ProfileResult& b,
                        const RunAnalysis& analysis_b) {
    const std::vector<StepSample> sa = step_samples(a, analysis_a), sb = step_samples(b, analysis_b);
    RunVerdict out;
    for (VerdictMeasure m : {VerdictMeasure::StepTime, VerdictMeasure::DeviceTime, VerdictMeasure::PeakMemory})
        out.measures.push_back(compare_measure(m, sa, sb));
    out.headline = out.measures.front().text;
    return out;
}

}  // namespace awb
