// Profiler-off benchmark results as plain data, and the statistics over timed samples. Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/device_roofs.h"
#include "model/environment.h"
#include "model/run_spec.h"

namespace awb {

struct BenchOptions {
    int warmup = 3;         // steady-state warm-up iterations after the cold (first) one
    double budget_s = 2.0;  // wall time for the timed samples, once min_repeats are done
    int min_repeats = 10;   // timed samples whatever the budget
    int max_repeats = 10000;
    double min_sample_s = 0.002;  // a sample runs enough iterations to last this long (blocked_autorange's block)
    bool measure_memory = true;   // one extra iteration on fresh inputs with an allocation tracker
    bool measure_roof = true;     // the roof for "% of roof" (engine/roof_probe.h; measured once per process)
    bool operator==(const BenchOptions&) const = default;
};

std::vector<SpecProblem> validate(const BenchOptions& o);

// Order statistics of per-iteration times (ns); quantiles interpolate linearly as numpy's do.
struct TimingStats {
    int repeats = 0;                // timed samples
    int iterations_per_sample = 1;  // each sample is the mean of this many back-to-back iterations
    double median_ns = 0, p10_ns = 0, p90_ns = 0, min_ns = 0, max_ns = 0, mean_ns = 0;
    bool operator==(const TimingStats&) const = default;
};

TimingStats summarize_samples(const std::vector<double>& per_iteration_ns, int iterations_per_sample);
double quantile(std::vector<double> values, double q);  // q in [0, 1]; NaN for no values

struct BenchResult {
    RunSpec spec;
    BenchOptions options;
    Environment environment;
    std::string timer;          // "steady_clock" or "cuda events"
    double cold_ns = 0;         // the first iteration on fresh inputs (one-time costs included)
    int warmup_iterations = 0;  // steady-state warm-up iterations run before timing
    TimingStats timing;
    std::vector<double> samples_ns;  // per-iteration time of each sample, in run order
    double flops = 0;                // attention_flops(spec) per iteration
    double gflops_per_s = 0;         // flops / median
    double bytes = 0;                // attention_bytes(spec, ideal) per iteration
    Roof roof;                       // the device's roof for the spec's dtype (not known() when not measured)
    int64_t peak_bytes = -1;         // one iteration incl. inputs and gradients; -1 when not measured
    std::string peak_source;         // "cpu allocation tracker" or "cuda allocator peak"
    double profiled_step_ns = -1;    // median step time under the profiler; -1 when not measured
    double profiler_overhead = -1;   // profiled_step_ns / timing.median_ns
    // Stopped early (Ctrl-C once, or the GUI's Stop): the samples timed so far, no memory or roof step.
    bool interrupted = false;
    bool operator==(const BenchResult&) const = default;
};

// Achieved over attainable: gflops_per_s / min(peak, ideal intensity x bandwidth); 0 without a roof.
double roof_share(const BenchResult& r);

// Sets profiled_step_ns and profiler_overhead from a profiled run's median recorded step time.
void set_profiled_step(BenchResult& r, double profiled_step_ns);

}  // namespace awb
