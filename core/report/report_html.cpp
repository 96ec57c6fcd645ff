#include "report/report_html.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/attention.h"
#include "analysis/attention_columns.h"
#include "analysis/op_columns.h"
#include "analysis/results_text.h"
#include "analysis/roofline.h"
#include "analysis/sweep_analysis.h"
#include "model/printf_string.h"
#include "model/units.h"
#include "report/html_cells.h"
#include "report/report_collectives.h"
#include "report/report_snapshot.h"
#include "report/svg_chart.h"

namespace awb {

namespace {

const char* kStyle = R"(<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1100px;color:#222;
line-height:1.4}
h1{font-size:22px;margin-bottom:2px} h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:3px;margin-top:28px}
h3{font-size:15px;margin-bottom:4px} .sub{color:#666;font-size:13px}
table{border-collapse:collapse;font-size:13px;margin:6px 0 12px}
th,td{border:1px solid #ddd;padding:3px 7px;vertical-align:top}
th{background:#f3f3f3;text-align:left} td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.state{font-weight:bold;border-radius:3px;padding:1px 6px;color:#fff;white-space:nowrap}
.pass{background:#1a7f37} .fail{background:#c62828} .na{background:#888}
.finding{border-left:4px solid #D55E00;padding:4px 10px;margin:10px 0;background:#fdf6f2}
.finding .rule{font-family:monospace;color:#D55E00} .action{margin-top:4px} code{font-size:12px}
svg.chart{display:block;margin:8px 0;background:#fff}
</style>
)";

using html::esc;
using html::num;
using html::td;
using html::th;
// A name cell: long names elided in the middle, the whole name on hover.
std::string name_td(const std::string& s) {
    constexpr size_t kMax = 96;
    return s.size() <= kMax ? td(s) : "<td title=\"" + esc(s) + "\">" + esc(elide_middle(s, kMax)) + "</td>";
}
std::string row(const std::string& key, const std::string& value) { return "<tr>" + th(key) + td(value) + "</tr>\n"; }

std::string ms_text(double ms) { return printf_string(ms >= 100 ? "%.0f ms" : "%.3g ms", ms); }
std::string mib_text(double mib) { return printf_string("%.4g MiB", mib); }
std::string n_text(double n) { return printf_string("%.0f", n); }
ChartAxis axis(std::string label, bool log, std::function<std::string(double)> text, std::vector<double> ticks = {}) {
    ChartAxis a;
    a.label = std::move(label);
    a.log = log;
    a.text = std::move(text);
    a.ticks = std::move(ticks);
    return a;
}

ChartSeries series_of(std::string name, bool markers, bool lines, bool steps = false) {
    ChartSeries s;
    s.name = std::move(name);
    s.markers = markers;
    s.lines = lines;
    s.steps = steps;
    return s;
}

std::string default_title(const ReportInput& in) {
    if (in.profile)
        return in.profile->spec_known
                   ? "Profile of " + in.profile->spec.variant + " " + shape_string(in.profile->spec) + " " +
                         to_string(in.profile->spec.dtype) + " " + to_string(in.profile->spec.device)
                   : std::string("Profile of an imported trace");
    if (in.bench)
        return "Benchmark of " + in.bench->spec.variant + " " + shape_string(in.bench->spec) + " " +
               to_string(in.bench->spec.dtype);
    if (in.sweep) return printf_string("Sweep of %zu points", in.sweep->points.size());
    if (in.check) return "Correctness check in " + to_string(in.check->spec.dtype);
    if (in.snapshot) return "Memory snapshot " + in.snapshot_name;
    return "Attention Workbench report";
}

std::string environment_section(const ReportInput& in) {
    const Environment* e = in.profile ? &in.profile->environment
                           : in.bench ? &in.bench->environment
                           : in.sweep ? &in.sweep->environment
                           : in.check ? &in.check->environment
                                      : nullptr;
    if (!e) return "";
    std::string out = "<h2>Environment</h2>\n<table>\n";
    auto add = [&](const std::string& k, const std::string& v) {
        if (!v.empty()) out += row(k, v);
    };
    add("torch", e->torch_version);
    add("device", e->device + (e->device_name.empty() ? "" : " (" + e->device_name + ")"));
    add("CUDA / driver", e->cuda_version.empty() ? "" : e->cuda_version + " / " + e->driver_version);
    add("intra-op threads", e->threads > 0 ? std::to_string(e->threads) : "");
    add("BLAS", e->blas);
    add("allocator", e->allocator);
    add("build", e->build_type + (e->compiler.empty() ? "" : ", " + e->compiler));
    add("host", e->host + (e->os.empty() ? "" : ", " + e->os));
    add("measured at", e->timestamp_utc);
    add("recorded by", e->recorded_by);
    for (const auto& m : e->modules) add("module " + m.name, describe_module(m));
    out += "</table>\n";
    return out;
}

std::string spec_table(const RunSpec& s) {
    std::string out = "<table>\n";
    out += row("variant", s.variant + (s.variant == "chunked" ? " (block " + std::to_string(s.block_size) + ")" : "") +
                              (s.variant == "sdpa" ? " (backend " + to_string(s.sdpa_backend) + ")" : ""));
    out += row("shape [B, H, Nq, Nk, D]",
               printf_string("[%lld, %lld, %lld, %lld, %lld]", (long long)s.batch, (long long)s.heads,
                             (long long)s.seq_q, (long long)s.seq_k, (long long)s.head_dim) +
                   (s.kv_heads != s.heads ? printf_string(", %lld key/value heads", (long long)s.kv_heads) : ""));
    out += row("dtype", to_string(s.dtype));
    out += row("device", to_string(s.device));
    out += row("mode", s.mode == Mode::Train ? "train (forward + backward)" : "forward only");
    std::string mask = to_string(s.mask);
    if (s.mask == MaskKind::Padding) {
        mask += " (key lengths";
        for (auto l : s.key_lengths) mask += " " + std::to_string(l);
        mask += ")";
    }
    out += row("mask", mask);
    out += row("layout", to_string(s.layout));
    out += row("FLOP per iteration", printf_string("%.3f GFLOP", attention_flops(s) / 1e9));
    out += "</table>\n";
    return out;
}

std::string spec_section(const ReportInput& in) {
    if (in.profile && !in.profile->spec_known)
        return "<h2>Spec</h2>\n<p>An imported trace without Attention Workbench metadata: the operators' input shapes "
               "are in the table below; batch, heads, lengths and dtype of the attention are not recorded.</p>\n";
    const RunSpec* s = in.profile ? &in.profile->spec : in.bench ? &in.bench->spec : nullptr;
    if (s) return "<h2>Spec</h2>\n" + spec_table(*s);
    if (in.sweep)
        return "<h2>Spec</h2>\n<p>The sweep's base spec (lengths, variants and dtypes are swept):</p>\n" +
               spec_table(in.sweep->plan.base);
    if (in.check) return "<h2>Spec</h2>\n" + spec_table(in.check->spec);
    return "";
}

std::string checklist_section(const std::vector<ChecklistItem>& items) {
    if (items.empty()) return "";
    const int pass =
        int(std::count_if(items.begin(), items.end(), [](const auto& i) { return i.state == ItemState::Pass; }));
    const int fail =
        int(std::count_if(items.begin(), items.end(), [](const auto& i) { return i.state == ItemState::Fail; }));
    std::string out =
        "<h2>Measurement checklist</h2>\n<p class=\"sub\">" +
        printf_string("%d of %zu pass, %d fail. ", pass, items.size(), fail) +
        "The article's list before trusting a number: each item is judged on what this report holds.</p>\n"
        "<table>\n<tr><th>state</th><th>item</th><th>reason</th></tr>\n";
    for (const auto& i : items) {
        const char* cls = i.state == ItemState::Pass ? "pass" : i.state == ItemState::Fail ? "fail" : "na";
        out += std::string("<tr><td><span class=\"state ") + cls + "\">" + esc(to_string(i.state)) + "</span></td>" +
               td(i.label) + td(i.reason) + "</tr>\n";
    }
    return out + "</table>\n";
}

std::string findings_section(const std::vector<Finding>& findings) {
    std::string out = "<h2>Findings</h2>\n";
    if (findings.empty()) return out + "<p>None of the advisor's rules fired on what this report holds.</p>\n";
    for (const auto& f : findings) {
        out += "<div class=\"finding\"><div><span class=\"rule\">[" + esc(f.rule) + "]</span> <b>" + esc(f.title) +
               "</b></div>\n<ul>";
        for (const auto& e : f.evidence) out += "<li>" + esc(e) + "</li>";
        out += "</ul><div class=\"action\">&rarr; " + esc(f.action) + "</div></div>\n";
    }
    return out;
}

// Memory over the recorded steps: the allocator's Total Allocated where the trace has it, else the
// running sum of the [memory] events (relative to the start).
std::string memory_chart(const ProfileReport& r) {
    std::vector<ChartSeries> mem;
    bool totals = false;  // the allocator's totals where the trace has them, else the running sum
    for (const auto& s : r.memory_series) totals = totals || s.has_totals();
    for (const auto& s : r.memory_series) {
        const auto& points = totals ? s.allocated_points : s.points;
        if (points.empty()) continue;
        ChartSeries c = series_of(memory_series_label(s), false, true, true);
        const int64_t t0 = points.front().ts_ns;
        for (const auto& p : points)
            c.points.push_back({double(p.ts_ns - t0) / 1e6, double(p.bytes) / (1024.0 * 1024.0)});
        mem.push_back(std::move(c));
    }
    if (!mem.empty()) {
        Chart c{totals ? "Memory allocated over the recorded steps (the allocator's Total Allocated)"
                       : "Memory allocated over the recorded steps (relative to the start)",
                axis("time (ms)", false, ms_text), axis("allocated (MiB)", false, mib_text), 720, 300};
        return svg_chart(c, mem);
    }
    return {};
}

// The profile's facts in one paragraph: steps (run and recorded, or the trace's), the median recorded
// step, the peak memory and each device's own peak.
std::string profile_facts(const ProfileReport& r) {
    std::vector<int64_t> recorded;
    for (const auto& s : r.steps)
        if (s.action == ScheduleAction::Record || s.action == ScheduleAction::RecordAndSave)
            recorded.push_back(s.wall_ns);
    std::string facts =
        r.spec_known ? printf_string("%zu steps run, %zu recorded (schedule wait=%d warmup=%d active=%d repeat=%d)",
                                     r.steps.size(), recorded.size(), r.options.wait, r.options.warmup,
                                     r.options.active, r.options.repeat)
        : r.steps.empty() ? std::string("no ProfilerStep#k spans in the trace: its steps are not known")
                          : printf_string("%zu step(s) recorded in the trace (ProfilerStep#%d", r.steps.size(),
                                          r.steps.front().step) +
                                (r.steps.size() > 1 ? printf_string("..#%d)", r.steps.back().step) : std::string(")"));
    if (!recorded.empty()) {
        std::vector<double> v(recorded.begin(), recorded.end());
        facts += "; median recorded step " + format_ms(quantile(v, 0.5)) + " with the profiler on";
    }
    if (r.peak_memory_bytes > 0)
        facts += "; peak memory " + format_mib(r.peak_memory_bytes) + " (" + r.peak_memory_source + ")";
    if (r.memory_series.size() > 1 || (r.memory_series.size() == 1 && r.peak_memory_bytes <= 0)) {
        std::vector<std::string> peaks;  // every device's own peak: the allocator's totals, or replayed
        for (const auto& s : r.memory_series) peaks.push_back(memory_series_label(s) + " " + memory_peak_text(s));
        facts += "; peak per device: " + join(peaks, "; ");
    }
    return "<p>" + esc(facts) + ".</p>\n";
}

std::string step_chart(const ProfileReport& r) {
    if (r.steps.empty()) return {};
    ChartSeries all = series_of("every step", true, true), rec = series_of("recorded (profiler on)", true, false);
    for (const auto& s : r.steps) {
        all.points.push_back({double(s.step), double(s.wall_ns) / 1e6});
        if (s.action == ScheduleAction::Record || s.action == ScheduleAction::RecordAndSave)
            rec.points.push_back({double(s.step), double(s.wall_ns) / 1e6});
    }
    Chart c{"Wall time per step", axis("step", false, n_text), axis("wall time (ms)", false, ms_text), 720, 260};
    return svg_chart(c, {all, rec});
}

// The twelve heaviest operators by self device time (self CPU time on a CPU run), as bars.
std::string operator_bars(const std::vector<OperatorRow>& sorted, const OpTableTotals& total, bool device) {
    std::vector<ChartBar> bars;
    for (const auto& o : sorted) {
        if (bars.size() >= 12) break;
        if (o.name == "ProfilerStep*") continue;
        const int64_t v = device ? o.self_device_ns : o.self_cpu_ns;
        const int64_t all = device ? total.self_device_ns : total.self_cpu_ns;
        if (v <= 0) continue;
        bars.push_back({elide_middle(o.name + (o.input_shapes.empty() ? "" : " " + o.input_shapes), 64), double(v),
                        format_duration_ns(v) + " (" + format_share(all > 0 ? double(v) / double(all) : 0) + ")"});
    }
    if (bars.empty()) return {};
    return svg_bar_chart(std::string("Self ") + (device ? "device" : "CPU") + " time by operator (all recorded steps)",
                         bars);
}

// The top operators as a table: the report's columns (analysis/op_columns.h) this run has, each
// header's tooltip saying what its number is.
std::string operator_table(const ProfileReport& r, const std::vector<OperatorRow>& rows, const OpTableTotals& total,
                           bool device, size_t top) {
    const unsigned available = (device ? kNeedsDevice : 0) | (r.options.profile_memory ? kNeedsMemory : 0) |
                               (r.grouped_by_shape ? kNeedsShapes : 0);
    const std::vector<OpColumnInfo> columns = op_columns_in(kInHtml, available);
    std::string out =
        "<h3>Top operators by self " + std::string(device ? "device" : "CPU") + " time</h3>\n<table>\n<tr>";
    for (const OpColumnInfo& c : columns) out += th(c.title, c.tooltip);
    out += "</tr>\n";
    for (size_t i = 0; i < rows.size() && i < top; ++i) {
        out += "<tr>";
        for (const OpColumnInfo& c : columns) {
            if (c.id == OpColumn::Name)
                out += name_td(rows[i].name);
            else if (c.unit == CellUnit::Text)
                out += td(op_text(rows[i], c.id));
            else
                out += num(format_cell(op_value(rows[i], c.id, total), c.unit));
        }
        out += "</tr>\n";
    }
    out += "</table>\n";
    if (rows.size() > top)
        out += printf_string("<p class=\"sub\">%zu of %zu rows shown; percentages are of all rows.</p>\n", top,
                             rows.size());
    return out;
}

std::string profile_section(const ProfileReport& r, size_t top) {
    const bool device = r.device_columns;
    const bool device_time =
        std::any_of(r.operators.begin(), r.operators.end(), [](const auto& o) { return o.self_device_ns > 0; });
    std::vector<OperatorRow> rows = r.operators;
    sort_rows(rows, device_time ? SortKey::SelfDevice : SortKey::SelfCpu);
    const OpTableTotals total = totals(r.operators);
    return "<h2>Profile</h2>\n" + profile_facts(r) + step_chart(r) + operator_bars(rows, total, device) +
           operator_table(r, rows, total, device, top) + memory_chart(r);
}

// A log-log roofline: each roof (bandwidth slope, then its peak) and the points, a colour per series.
std::string roofline_chart(const std::string& title, const std::vector<Roof>& roofs,
                           const std::vector<RooflinePoint>& points) {
    if (points.empty()) return {};
    const auto [lo, hi] = roofline_x_range(points, roofs);
    std::vector<ChartSeries> series;
    for (const Roof& r : roofs) {
        ChartSeries s = series_of(roof_legend(r), false, true);
        s.colour = r.measured ? "#555555" : "#222222";
        for (const auto& [x, y] : roof_polyline(r, lo, hi)) s.points.push_back({x, y});
        series.push_back(std::move(s));
    }
    for (const RooflinePoint& p : points) {
        auto it = std::find_if(series.begin() + long(roofs.size()), series.end(),
                               [&](const ChartSeries& s) { return s.name == p.series; });
        if (it == series.end()) it = series.insert(series.end(), series_of(p.series, true, false));
        it->points.push_back({p.intensity, p.tflops});
    }
    auto g3 = [](double v) { return printf_string("%g", v); };
    return svg_chart({title, axis("arithmetic intensity (FLOP per ideal byte)", true, g3),
                      axis("achieved TFLOP/s", true, g3), 760, 380},
                     series);
}

std::string attention_section(const std::vector<AttentionInstance>& calls, const std::vector<Roof>& roofs,
                              int64_t gpu_busy_ns) {
    std::string out = "<h2>Attention calls</h2>\n";
    if (calls.empty())
        return out +
               "<p>None in this run: no scaled_dot_product_attention op, no library's or engine's attention op or "
               "kernel, and no "
               "matmul -> softmax -> matmul with recorded shapes.</p>\n";
    const std::vector<AttentionGroup> groups = group_attention(calls);
    AttentionTotals totals = attention_totals(calls, {});
    totals.gpu_busy_ns = gpu_busy_ns;
    out += "<p>" + esc(std::to_string(groups.size()) + " groups: " + format_attention_totals(totals) + ".") +
           "</p>\n<p class=\"sub\">" + esc(attention_conventions() + ".") + "</p>\n<table>\n<tr>";
    const std::vector<AttentionColumnInfo> columns = columns_in(attention_column_list(), kInHtml);
    for (const AttentionColumnInfo& c : columns) out += th(c.text_title, c.tooltip);
    out += "</tr>\n";
    for (const AttentionGroup& g : groups) {
        const AttentionCellContext context = attention_context(g, gpu_busy_ns, roofs);
        out += "<tr>";
        for (const AttentionColumnInfo& c : columns) {
            const std::string cell = attention_cell(g, c.id, context);
            out += c.unit == CellUnit::Text || c.unit == CellUnit::Label ? td(cell) : num(cell);
        }
        out += "</tr>\n";
    }
    out += "</table>\n";
    for (const Roof& r : roofs) out += "<p class=\"sub\">" + esc(roof_legend(r) + ": " + r.source) + "</p>\n";
    if (!roofs.empty()) out += "<p class=\"sub\">" + esc(bytes_model_convention() + ".") + "</p>\n";
    return out + roofline_chart("Roofline of the attention calls (one point per call)", roofs, roofline_points(calls));
}

std::string bench_section(const BenchResult& b) {
    const TimingStats& t = b.timing;
    std::string out = "<h2>Benchmark (profiler off)</h2>\n<table>\n";
    out += row("cold iteration", format_ms(b.cold_ns) + " (first iteration on fresh inputs)");
    out += row("warm-up", std::to_string(b.warmup_iterations) + " iteration(s), not timed");
    out +=
        row("timed", printf_string("%d sample(s) x %d iteration(s), ", t.repeats, t.iterations_per_sample) + b.timer);
    out += row("median", format_ms(t.median_ns) + "  (p10 " + format_ms(t.p10_ns) + ", p90 " + format_ms(t.p90_ns) +
                             ", min " + format_ms(t.min_ns) + ", max " + format_ms(t.max_ns) + ")");
    out += row("achieved", printf_string("%.2f GFLOP/s (%.3f GFLOP per iteration)", b.gflops_per_s, b.flops / 1e9));
    if (b.roof.known())
        out += row("of roof", format_share(roof_share(b)) + " of " +
                                  format_flop_rate(b.roof.attainable_tflops(b.flops, b.bytes)) + " attainable; " +
                                  roof_legend(b.roof) + " (" + b.roof.source + ")");
    if (b.peak_bytes >= 0) out += row("peak memory", format_mib(b.peak_bytes) + " (" + b.peak_source + ")");
    if (b.profiler_overhead > 0)
        out += row("profiled step", format_ms(b.profiled_step_ns) +
                                        printf_string(" (%.2fx the profiler-off median)", b.profiler_overhead));
    out += "</table>\n";
    if (!b.samples_ns.empty()) {
        ChartSeries s = series_of("sample", true, false);
        for (size_t i = 0; i < b.samples_ns.size(); ++i) s.points.push_back({double(i + 1), b.samples_ns[i] / 1e6});
        Chart c{"Time per iteration of each timed sample, in run order", axis("sample", false, n_text),
                axis("time per iteration (ms)", false, ms_text), 720, 260};
        out += svg_chart(c, {s});
    }
    return out;
}

// The fits (or why a curve has none) and the crossovers of a sweep.
std::string sweep_analysis_html(const SweepAnalysis& a) {
    std::string out;
    if (!a.fits.empty()) {
        out += "<h3>Scaling (power-law fits, value ~ c &middot; N<sup>k</sup>)</h3>\n<table>\n<tr>" + th("metric") +
               th("series") + th("exponent k") + th("95% interval") + th("R\u00b2") + th("points") +
               th(a.memory_bytes > 0 ? "reaches " + format_bytes(a.memory_bytes) + " at N"
                                     : std::string("fills memory at N")) +
               "</tr>\n";
        for (const auto& f : a.fits)
            if (!f.fit.valid)
                out += "<tr>" + td(f.metric == "median_time" ? "time" : "peak memory") + td(f.series) +
                       td(fit_refusal(f.fit)) + num("-") + num("-") + num(std::to_string(f.fit.points)) + num("-") +
                       "</tr>\n";
            else
                out += "<tr>" + td(f.metric == "median_time" ? "time" : "peak memory") + td(f.series) +
                       num(printf_string("%.2f", f.fit.exponent)) +
                       num(f.exponent_interval.valid
                               ? printf_string("%.2f to %.2f", f.exponent_interval.low, f.exponent_interval.high)
                               : std::string(f.metric == "median_time" ? "-" : "exact")) +
                       num(printf_string("%.3f", f.fit.r_squared)) + num(std::to_string(f.fit.points)) +
                       num(f.fills_memory_at_n > 0 ? printf_string("~%.0f", f.fills_memory_at_n) : std::string("-")) +
                       "</tr>\n";
        out += "</table>\n";
    }
    if (!a.crossovers.empty()) {
        out += "<h3>Crossovers</h3>\n<ul>\n";
        for (const auto& c : a.crossovers)
            out +=
                "<li>" +
                esc((c.metric == "median_time" ? std::string("time") : std::string("peak memory")) + ": " + c.series_a +
                    " and " + c.series_b +
                    printf_string(" cross near N = %.0f (between %.0f and %.0f", c.at.n, c.at.n_before, c.at.n_after) +
                    (c.n_interval.valid ? printf_string("; 95%% interval %.0f to %.0f, in %.0f%% of resamples",
                                                        c.n_interval.low, c.n_interval.high, 100 * c.resampled_share)
                                        : std::string()) +
                    "); past it " + (c.at.a_lower_after ? c.series_a : c.series_b) + " is lower" +
                    (c.within_noise ? " (within the p10-p90 noise)" : "")) +
                "</li>\n";
        out += "</ul>\n";
    }
    return out;
}

std::string sweep_section(const SweepResult& r, const SweepAnalysis& analysis) {
    std::string out = "<h2>Sweep (profiler off)</h2>\n";
    out += "<p>" + esc(sweep_count_text(r)) + ".</p>\n";
    const std::vector<SweepSeries> series = sweep_series(r);
    std::vector<ChartSeries> time, memory;
    std::set<double> lengths;
    for (const auto& s : series)
        for (const auto& p : s.samples) lengths.insert(p.n);
    const ChartAxis n_axis = axis("sequence length N", true, n_text, {lengths.begin(), lengths.end()});
    for (const auto& s : series) {
        ChartSeries t = series_of(s.name, true, true), m = series_of(s.name, true, true);
        for (const auto& p : s.samples) {
            t.points.push_back({p.n, p.median_ns / 1e6, p.p10_ns / 1e6, p.p90_ns / 1e6});
            if (p.peak_bytes >= 0) m.points.push_back({p.n, double(p.peak_bytes) / (1024.0 * 1024.0)});
        }
        time.push_back(std::move(t));
        if (!m.points.empty()) memory.push_back(std::move(m));
    }
    if (!time.empty())
        out += svg_chart(
            {"Median time per iteration (bars: p10-p90)", n_axis, axis("time (ms)", true, ms_text), 760, 340}, time);
    if (!memory.empty())
        out += svg_chart({"Peak memory per iteration", n_axis, axis("peak memory (MiB)", true, mib_text), 760, 340},
                         memory);
    out +=
        roofline_chart("Roofline of the sweep's points (intensity grows with N)", sweep_roofs(r), roofline_points(r));
    out += sweep_analysis_html(analysis);
    out += "<h3>Points</h3>\n<table>\n<tr>" + th("variant") + th("dtype") + th("shape") + th("status") + th("median") +
           th("p10") + th("p90") + th("GFLOP/s") + th("% of roof") + th("peak memory") + "</tr>\n";
    for (const auto& p : r.points) {
        const bool okp = p.status == PointStatus::Ok;
        out += "<tr>" + td(p.spec.variant) + td(to_string(p.spec.dtype)) + td(shape_string(p.spec)) +
               td(to_string(p.status) + (p.reason.empty() ? "" : ": " + p.reason)) +
               num(okp ? format_ms(p.bench.timing.median_ns) : "") + num(okp ? format_ms(p.bench.timing.p10_ns) : "") +
               num(okp ? format_ms(p.bench.timing.p90_ns) : "") +
               num(okp ? printf_string("%.2f", p.bench.gflops_per_s) : "") +
               num(okp && p.bench.roof.known() ? format_share(roof_share(p.bench)) : "") +
               num(okp && p.bench.peak_bytes >= 0 ? format_mib(p.bench.peak_bytes) : "") + "</tr>\n";
    }
    return out + "</table>\n";
}

std::string check_section(const CheckReport& c) {
    std::string out =
        "<h2>Correctness check</h2>\n<p>" +
        esc("Each variant against a float64 evaluation of the manual formula on the same inputs; error = max|x - "
            "ref| / max|ref|, "
            "tolerance " +
            printf_string("%.1e", c.tolerance) + " in " + to_string(c.spec.dtype) + ".") +
        "</p>\n<table>\n<tr>" + th("variant") + th("tensor") + th("error") + th("max |x - ref|") + th("max |ref|") +
        th("finite") + th("result") + "</tr>\n";
    for (const auto& v : c.variants) {
        if (!v.failure.empty())
            out += "<tr>" + td(v.variant) + "<td colspan=\"5\">" + esc("did not run: " + v.failure) + "</td>" +
                   td("fail") + "</tr>\n";
        for (const auto& t : v.tensors)
            out += "<tr>" + td(v.variant) + td(t.name) + num(printf_string("%.2e", t.error)) +
                   num(printf_string("%.2e", t.max_abs_error)) + num(printf_string("%.2e", t.ref_max_abs)) +
                   td(t.finite ? "yes" : "NaN/inf") + td(t.passed ? "pass" : "FAIL") + "</tr>\n";
        for (const auto& m : v.mask_checks)
            out += "<tr>" + td(v.variant) + td(m.name) + "<td colspan=\"4\">" + esc(m.detail) + "</td>" +
                   td(m.passed ? "pass" : "FAIL") + "</tr>\n";
        for (const auto* text : {&v.reference, &v.note})
            if (!text->empty() && text->rfind("the float64 manual", 0) != 0)
                out += "<tr>" + td(v.variant) + td(text == &v.reference ? "reference" : "note") + "<td colspan=\"5\">" +
                       esc(*text) + "</td></tr>\n";
    }
    return out + "</table>\n";
}

}  // namespace

std::string html_report(const ReportInput& in) {
    const std::string title = in.title.empty() ? default_title(in) : in.title;
    std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + esc(title) +
                      "</title>\n" + kStyle + "</head>\n<body>\n<h1>" + esc(title) +
                      "</h1>\n<div class=\"sub\">Attention Workbench report, written by " + esc(in.generated_by) +
                      " on " + utc_now("%Y-%m-%d %H:%M UTC") + "</div>\n";
    out += environment_section(in);
    out += spec_section(in);
    out += checklist_section(in.explanation.checklist);
    // Without a checklist nothing was judged (a memory snapshot alone): no findings to say none of.
    if (!in.explanation.checklist.empty() || !in.explanation.findings.empty())
        out += findings_section(in.explanation.findings);
    if (in.profile) out += profile_section(*in.profile, in.top_operators);
    if (in.profile)
        out += attention_section(in.profile->attention, in.profile->roofs, in.profile->attention_gpu_busy_ns);
    if (in.collectives && in.overlap) out += collectives_section(*in.collectives, *in.overlap, 30);
    if (in.bench) out += bench_section(*in.bench);
    if (in.sweep) {
        if (!in.sweep_analysis)
            throw std::invalid_argument("html_report: a sweep without its analysis (analyze_sweep)");
        out += sweep_section(*in.sweep, *in.sweep_analysis);
    }
    if (in.check) out += check_section(*in.check);
    if (in.snapshot) {
        if (!in.snapshot_timeline)
            throw std::invalid_argument("html_report: a memory snapshot without its replay (analyze_snapshot)");
        out += snapshot_section(*in.snapshot, *in.snapshot_timeline, in.snapshot_name, in.top_operators);
    }
    return out + "</body>\n</html>\n";
}

void write_html_report(const ReportInput& input, const std::string& path) { write_text_file(path, html_report(input)); }

}  // namespace awb
