#include "analysis/bench_diff.h"

#include "analysis/results_text.h"
#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

void differs(std::vector<std::string>& out, const char* field, const std::string& a, const std::string& b) {
    if (a != b) out.push_back(std::string(field) + ": " + (a.empty() ? "-" : a) + " -> " + (b.empty() ? "-" : b));
}

}  // namespace

BenchDiff diff_benches(const BenchResult& a, const BenchResult& b) {
    BenchDiff d;
    d.median_a_ns = a.timing.median_ns;
    d.median_b_ns = b.timing.median_ns;
    d.ratio = compare_medians(a.samples_ns, b.samples_ns);
    const Interval& i = d.ratio.interval;
    const double change = 1 - d.ratio.ratio;  // > 0: B takes less time
    if (!i.valid)
        d.verdict = printf_string(
            "B takes %.3fx A's median time; too few timed samples (A %zu, B %zu; 3 or more each) for an interval",
            d.ratio.ratio, a.samples_ns.size(), b.samples_ns.size());
    else if (i.high < 1)
        d.verdict = printf_string("B is faster than A by %.1f%% (95%% interval %.1f%% to %.1f%%)", 100 * change,
                                  100 * (1 - i.high), 100 * (1 - i.low));
    else if (i.low > 1)
        d.verdict = printf_string("B is slower than A by %.1f%% (95%% interval %.1f%% to %.1f%%)", -100 * change,
                                  100 * (i.low - 1), 100 * (i.high - 1));
    else
        d.verdict = printf_string("no difference established: the 95%% interval of B / A, %.3f to %.3f, includes 1",
                                  i.low, i.high);
    differs(d.differences, "spec", describe_spec(a.spec), describe_spec(b.spec));
    differs(d.differences, "torch", a.environment.torch_version, b.environment.torch_version);
    differs(d.differences, "device", a.environment.device_name, b.environment.device_name);
    differs(d.differences, "driver", a.environment.driver_version, b.environment.driver_version);
    differs(d.differences, "threads", std::to_string(a.environment.threads), std::to_string(b.environment.threads));
    differs(d.differences, "host", a.environment.host, b.environment.host);
    return d;
}

std::string format_bench_diff(const BenchDiff& d, const BenchResult& a, const BenchResult& b, const std::string& a_name,
                              const std::string& b_name) {
    std::string out;
    out += printf_string("A: %s (benchmark: %s), median %s, %zu timed samples\n", a_name.c_str(),
                         describe_spec(a.spec).c_str(), format_ms(d.median_a_ns).c_str(), a.samples_ns.size());
    out += printf_string("B: %s (benchmark: %s), median %s, %zu timed samples\n", b_name.c_str(),
                         describe_spec(b.spec).c_str(), format_ms(d.median_b_ns).c_str(), b.samples_ns.size());
    const Interval& i = d.ratio.interval;
    out += printf_string("B / A median time: %.3fx", d.ratio.ratio);
    if (i.valid)
        out += printf_string(
            " (95%% interval %.3f to %.3f: percentile bootstrap of both medians over %d resamples of the timed "
            "samples; B "
            "faster in %.1f%% of them)",
            i.low, i.high, i.resamples, 100 * d.ratio.b_faster);
    out += "\n" + d.verdict + "\n";
    for (const std::string& x : d.differences) out += "note: A and B differ in " + x + "\n";
    return out;
}

}  // namespace awb
