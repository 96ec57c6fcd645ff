#include "analysis/results_text.h"

#include <cmath>
#include <cstdio>

#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

std::string metric_unit(const std::string& metric) { return metric == "median_time" ? "time" : "peak memory"; }

}  // namespace

std::string describe_spec(const RunSpec& s) {
    std::string out = s.variant + "  shape " + shape_string(s) + " [B,H,N,D]  " + to_string(s.dtype) + "  " +
                      to_string(s.device) + "  mode " + to_string(s.mode) + "  mask " + to_string(s.mask);
    if (s.mask == MaskKind::Padding) {
        out += " (key lengths";
        for (auto l : s.key_lengths) out += " " + std::to_string(l);
        out += ")";
    }
    if (s.mask == MaskKind::Window) out += " " + std::to_string(s.window);
    out += "  layout " + to_string(s.layout);
    if (s.variant == "chunked") out += "  block " + std::to_string(s.block_size);
    if (s.variant == "sdpa" && s.sdpa_backend != SdpaBackend::Auto) out += "  backend " + to_string(s.sdpa_backend);
    return out;
}

std::string modules_text(const Environment& e) {
    std::string out;
    for (const auto& m : e.modules) out += "module " + describe_module(m) + "\n";
    return out;
}

std::string format_bench(const BenchResult& r) {
    const auto& t = r.timing;
    const auto& e = r.environment;
    std::string out = "=== " + describe_spec(r.spec) + " ===\n";
    out += "torch " + e.torch_version + ", " + e.device_name + ", " + std::to_string(e.threads) +
           " thread(s), BLAS: " + e.blas + "\n" + modules_text(e);
    out +=
        printf_string("%-19s %s (first iteration on fresh inputs)\n", "cold iteration", format_ms(r.cold_ns).c_str());
    out += printf_string("%-19s %d iteration(s), not timed\n", "warm-up", r.warmup_iterations);
    out +=
        printf_string("%-19s %d sample(s) x %d iteration(s), %s, budget %.2f s%s\n", "timed", t.repeats,
                      t.iterations_per_sample, r.timer.c_str(), r.options.budget_s,
                      r.interrupted ? " (INTERRUPTED: the samples timed before the stop; no peak memory or roof)" : "");
    out += printf_string("%-19s %s   p10 %s   p90 %s   min %s\n", "median", format_ms(t.median_ns).c_str(),
                         format_ms(t.p10_ns).c_str(), format_ms(t.p90_ns).c_str(), format_ms(t.min_ns).c_str());
    out += printf_string("%-19s %.2f GFLOP/s (%.3f GFLOP per iteration: %s4*B*H*Nq*Nk*D%s)\n", "achieved",
                         r.gflops_per_s, r.flops / 1e9, r.spec.mode == Mode::Train ? "3 x " : "",
                         r.spec.mask != MaskKind::None ? ", visible pairs only" : "");
    if (r.roof.known()) {
        const double intensity = r.bytes > 0 ? r.flops / r.bytes : 0.0;
        out += printf_string(
            "%-19s %.1f%% of the %s attainable at %.3g FLOP/byte (ideal bytes %s per iteration: %s)\n", "of roof",
            100.0 * roof_share(r), format_flop_rate(r.roof.attainable_tflops(r.flops, r.bytes)).c_str(), intensity,
            format_mib(int64_t(r.bytes)).c_str(), intensity >= r.roof.ridge() ? "compute-bound" : "memory-bound");
        out += printf_string("%-19s %s, %s, ridge %.1f FLOP/byte (%s)\n", "roof",
                             format_flop_rate(r.roof.peak_tflops).c_str(), format_bandwidth(r.roof.memory_tb_s).c_str(),
                             r.roof.ridge(), r.roof.source.c_str());
    }
    if (r.peak_bytes >= 0)
        out += printf_string("%-19s %s (%s; one iteration on fresh inputs, inputs and gradients included)\n",
                             "peak memory", format_mib(r.peak_bytes).c_str(), r.peak_source.c_str());
    if (r.profiler_overhead > 0)
        out += printf_string("%-19s %.2fx (profiled step %s vs median %s)\n", "profiler overhead", r.profiler_overhead,
                             format_ms(r.profiled_step_ns).c_str(), format_ms(t.median_ns).c_str());
    return out;
}

std::string sweep_header() {
    return printf_string("%-8s %-9s %-18s %12s %23s %10s %7s %10s  %s\n", "variant", "dtype", "shape", "median ms",
                         "p10-p90 ms", "GFLOP/s", "% roof", "peak MiB", "status");
}

std::string format_sweep_point(const SweepPoint& p) {
    const auto& s = p.spec;
    if (p.status != PointStatus::Ok)
        return printf_string("%-8s %-9s %-18s %12s %23s %10s %7s %10s  %s: %s\n", s.variant.c_str(),
                             to_string(s.dtype).c_str(), shape_string(s).c_str(), "-", "-", "-", "-", "-",
                             to_string(p.status).c_str(), p.reason.c_str());
    const auto& t = p.bench.timing;
    const std::string range = printf_string("%.3f-%.3f", t.p10_ns / 1e6, t.p90_ns / 1e6);
    const std::string peak =
        p.bench.peak_bytes >= 0 ? printf_string("%.1f", double(p.bench.peak_bytes) / 1048576.0) : "-";
    const std::string share = p.bench.roof.known() ? printf_string("%.1f%%", 100.0 * roof_share(p.bench)) : "-";
    std::string row = printf_string("%-8s %-9s %-18s %12.3f %23s %10.2f %7s %10s  ok", s.variant.c_str(),
                                    to_string(s.dtype).c_str(), shape_string(s).c_str(), t.median_ns / 1e6,
                                    range.c_str(), p.bench.gflops_per_s, share.c_str(), peak.c_str());
    if (p.bench.profiler_overhead > 0) row += printf_string(" (profiler %.2fx)", p.bench.profiler_overhead);
    return row + "\n";
}

std::string format_analysis(const SweepAnalysis& a) {
    std::string out;
    if (!a.fits.empty())
        out +=
            "Scaling with N (least squares on log-log; value ~ N^k; [95% interval: bootstrap of each point's timed "
            "samples]):\n";
    for (const auto& f : a.fits) {
        if (!f.fit.valid) {
            out += printf_string("  %-12s %-48s %s\n", metric_unit(f.metric).c_str(), f.series.c_str(),
                                 fit_refusal(f.fit).c_str());
            continue;
        }
        const Interval& ci = f.exponent_interval;
        out += printf_string("  %-12s %-48s k = %5.2f %-16s (r^2 %.3f, %d points)", metric_unit(f.metric).c_str(),
                             f.series.c_str(), f.fit.exponent,
                             ci.valid ? printf_string("[%.2f, %.2f]", ci.low, ci.high).c_str() : "", f.fit.r_squared,
                             f.fit.points);
        if (f.fills_memory_at_n > 0)
            out += printf_string("; reaches the %s the device had at N ~ %.0f", format_bytes(a.memory_bytes).c_str(),
                                 f.fills_memory_at_n);
        out += "\n";
    }
    if (!a.crossovers.empty()) out += "Crossovers (interpolated in log-log):\n";
    for (const auto& c : a.crossovers) {
        const std::string& lower = c.at.a_lower_after ? c.series_a : c.series_b;
        const std::string& other = c.at.a_lower_after ? c.series_b : c.series_a;
        const std::string sure = c.n_interval.valid
                                     ? printf_string("; 95%% interval %.0f-%.0f, in %.0f%% of resamples",
                                                     c.n_interval.low, c.n_interval.high, 100 * c.resampled_share)
                                 : c.resampled_share > 0 || c.n_interval.resamples > 0
                                     ? printf_string("; in %.0f%% of resamples", 100 * c.resampled_share)
                                     : std::string();
        out += printf_string("  %s: from N ~ %.0f (between %.0f and %.0f%s) %s is lower than %s%s\n",
                             metric_unit(c.metric).c_str(), c.at.n, c.at.n_before, c.at.n_after, sure.c_str(),
                             lower.c_str(), other.c_str(),
                             c.within_noise ? " (within noise: p10-p90 ranges overlap)" : "");
    }
    return out;
}

std::string sweep_count_text(const SweepResult& r) {
    int by_status[4] = {0, 0, 0, 0};  // PointStatus: ok, refused, failed, cancelled
    for (const auto& p : r.points) ++by_status[int(p.status)];
    std::string out =
        printf_string("%d of %d planned points measured", by_status[int(PointStatus::Ok)], r.planned_points);
    std::vector<std::string> rest;
    for (PointStatus s : {PointStatus::Failed, PointStatus::Refused, PointStatus::Cancelled})
        if (by_status[int(s)] > 0) rest.push_back(std::to_string(by_status[int(s)]) + " " + to_string(s));
    const int not_run = r.planned_points - int(r.points.size());
    if (not_run > 0) rest.push_back(std::to_string(not_run) + " not run");
    for (size_t i = 0; i < rest.size(); ++i) out += (i ? ", " : "; ") + rest[i];
    return out + (r.stopped_early ? ", stopped early" : "");
}

// The variants compared with something other than the float64 manual formula (modules), and what
// was not compared.
static std::string check_references_text(const CheckReport& r) {
    std::string out;
    for (const auto& v : r.variants) {
        if (!v.reference.empty() && v.reference.rfind("the float64 manual", 0) != 0)
            out += "  " + v.variant + ": compared with " + v.reference + "\n";
        if (!v.note.empty()) out += "  " + v.variant + ": " + v.note + "\n";
    }
    return out.empty() ? out : "references:\n" + out;
}

std::string format_check(const CheckReport& r) {
    std::string out = "=== correctness: " + describe_spec(r.spec) + " ===\n" + modules_text(r.environment);
    out += printf_string(
        "reference: the manual formula in float64 on the same inputs; output and q/k/v gradients of "
        "out.square().mean()\nerror = max|x - ref| / max|ref|, tolerance %.1e (%s%s)\n",
        r.tolerance, to_string(r.spec.dtype).c_str(),
        r.tolerance == default_tolerance(r.spec.dtype) ? " default" : ", set by --tolerance");
    out += printf_string("%-8s %-7s %12s %12s %12s %9s  %s\n", "variant", "tensor", "max abs err", "max rel err",
                         "error", "err/tol", "result");
    for (const auto& v : r.variants) {
        if (!v.failure.empty()) {
            out += printf_string("%-8s failed to run: %s\n", v.variant.c_str(), v.failure.c_str());
            continue;
        }
        for (const auto& t : v.tensors)
            out +=
                printf_string("%-8s %-7s %12.3e %12.3e %12.3e %9.3f  %s\n", v.variant.c_str(), t.name.c_str(),
                              t.max_abs_error, t.max_rel_error, t.error, r.tolerance > 0 ? t.error / r.tolerance : 0.0,
                              t.passed ? "pass" : (t.finite ? "FAIL" : "FAIL (NaN/inf)"));
    }
    out += "mask semantics:\n";
    for (const auto& v : r.variants)
        for (const auto& m : v.mask_checks)
            out += printf_string("  %-8s %-28s %s  %s\n", v.variant.c_str(), m.name.c_str(), m.passed ? "pass" : "FAIL",
                                 m.detail.c_str());
    out += check_references_text(r);
    std::string failed;
    for (const auto& v : r.variants)
        if (!v.passed) failed += (failed.empty() ? "" : ", ") + v.variant;
    out += failed.empty() ? "all variants within tolerance\n" : "OUT OF TOLERANCE: " + failed + "\n";
    if (r.interrupted) out += printf_string("INTERRUPTED: %zu variant(s) checked before the stop\n", r.variants.size());
    return out;
}

}  // namespace awb
