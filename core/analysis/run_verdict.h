// Which of two runs is faster, by how much, and whether the difference is beyond the noise:
// per recorded step, three measures, each compared as the ratio of medians B / A with its percentile
// bootstrap interval over the steps (analysis/bootstrap.h, as benchmarks are compared):
//   - step time: the wall time of each recorded step (recorded_steps: a run's own records, or the
//     trace's ProfilerStep#k spans);
//   - device time: per ProfilerStep#k, the union over streams of the kernels, copies and sets launched
//     inside it (gpu_breakdown's busy time, summed over the devices);
//   - peak memory: per ProfilerStep#k, the highest level of the replayed memory series inside its span
//     (device memory where the trace has it, else CPU), on the series' own baseline.
// The verdict is "beyond noise" when the 95% interval of B / A excludes 1; with fewer than 3 steps a
// side no interval is drawn and the verdict says the difference cannot be told from noise. Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/bootstrap.h"
#include "analysis/run_analysis.h"
#include "model/recorded_steps.h"

namespace awb {

enum class VerdictMeasure { StepTime, DeviceTime, PeakMemory };

// One recorded step's measures; -1 where not known.
struct StepSample {
    int step = -1;
    int64_t wall_ns = -1;
    int64_t device_ns = -1;
    int64_t peak_bytes = -1;
};

std::vector<StepSample> step_samples(const ProfileResult& run, const RunAnalysis& analysis);

struct MeasureVerdict {
    VerdictMeasure measure = VerdictMeasure::StepTime;
    size_t n_a = 0, n_b = 0;            // steps with this measure on each side
    double median_a = 0, median_b = 0;  // ns or bytes
    RatioOfMedians ratio;               // B / A with its interval (valid: 3 or more steps a side)
    bool known = false;                 // both sides have the measure
    bool beyond_noise = false;          // the interval excludes 1
    std::string text;  // "B is 15.6% faster per step (median 114.7 vs 135.9 ms; 95% CI of B/A 0.82-0.87, beyond noise)"
};

struct RunVerdict {
    std::vector<MeasureVerdict> measures;  // step time, device time, peak memory
    std::string headline;                  // the step-time verdict, or why there is none
};

MeasureVerdict compare_measure(VerdictMeasure m, const std::vector<StepSample>& a, const std::vector<StepSample>& b);
RunVerdict compare_runs(const ProfileResult& a, const RunAnalysis& analysis_a, const ProfileResult& b,
                        const RunAnalysis& analysis_b);

// "step time", "device time per step", "peak memory per step"
std::string measure_name(VerdictMeasure m);

}  // namespace awb
