// How sure a number is: percentile bootstrap intervals over the timed samples a benchmark
// keeps (BenchResult::samples_ns). Each resample draws a point's samples with replacement and takes
// their median, as the measurement did; the statistic is recomputed from the resampled medians; the
// interval is the 2.5th and 97.5th percentiles of the statistic over the resamples. Seeded: the same
// input gives the same interval. Pure C++.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace awb {

struct Interval {
    bool valid = false;  // enough samples and resamples to say
    double low = 0, high = 0;
    double level = 0.95;
    int resamples = 0;  // resamples in which the statistic existed (a crossover may vanish in some)
    bool operator==(const Interval&) const = default;
};

inline constexpr int kBootstrapResamples = 1000;

// The median of samples drawn with replacement from `samples` (as many as it has).
class Resampler {
public:
    explicit Resampler(uint64_t seed = 20261202) : state_(seed) {}
    double resampled_median(const std::vector<double>& samples);

private:
    uint64_t next();
    uint64_t state_;
    std::vector<double> scratch_;
};

// The percentile interval of `statistic` over `resamples` draws. statistic(resampler) returns false
// when it does not exist in a resample (those are left out and counted).
Interval bootstrap(const std::function<bool(Resampler&, double&)>& statistic, int resamples = kBootstrapResamples,
                   double level = 0.95);

// B against A from their timed samples: the ratio of medians B / A with its interval, and the share of
// resamples in which B's median is below A's.
struct RatioOfMedians {
    double ratio = 0;     // median(B) / median(A)
    Interval interval;    // of that ratio
    double b_faster = 0;  // share of resamples with ratio < 1
};
RatioOfMedians compare_medians(const std::vector<double>& a_samples, const std::vector<double>& b_samples,
                               int resamples = kBootstrapResamples);

}  // namespace awb
