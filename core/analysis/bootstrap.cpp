#include "analysis/bootstrap.h"

#include <algorithm>
#include <cmath>

#include "model/bench_stats.h"

namespace awb {

uint64_t Resampler::next() {  // splitmix64: fast, seeded, the same on every platform
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double Resampler::resampled_median(const std::vector<double>& samples) {
    const size_t n = samples.size();
    if (n == 0) return NAN;
    scratch_.resize(n);
    for (size_t i = 0; i < n; ++i) scratch_[i] = samples[size_t(next() % n)];
    // The median as quantile() interpolates it (numpy's), on the resample.
    const size_t mid = (n - 1) / 2;
    std::nth_element(scratch_.begin(), scratch_.begin() + long(mid), scratch_.end());
    const double lo = scratch_[mid];
    if (n % 2 == 1) return lo;
    return (lo + *std::min_element(scratch_.begin() + long(mid) + 1, scratch_.end())) / 2;
}

Interval bootstrap(const std::function<bool(Resampler&, double&)>& statistic, int resamples, double level) {
    Resampler r;
    std::vector<double> values;
    values.reserve(size_t(std::max(0, resamples)));
    for (int i = 0; i < resamples; ++i) {
        double v = 0;
        if (statistic(r, v) && std::isfinite(v)) values.push_back(v);
    }
    Interval out;
    out.level = level;
    out.resamples = int(values.size());
    if (values.size() < 20) return out;  // too few to place the tails
    const double tail = (1 - level) / 2;
    out.low = quantile(values, tail);
    out.high = quantile(std::move(values), 1 - tail);
    out.valid = true;
    return out;
}

RatioOfMedians compare_medians(const std::vector<double>& a, const std::vector<double>& b, int resamples) {
    RatioOfMedians out;
    if (a.empty() || b.empty()) return out;
    const double ma = quantile(a, 0.5), mb = quantile(b, 0.5);
    out.ratio = ma > 0 ? mb / ma : 0;
    int faster = 0, drawn = 0;
    out.interval = bootstrap(
        [&](Resampler& r, double& v) {
            const double ra = r.resampled_median(a), rb = r.resampled_median(b);
            if (ra <= 0) return false;
            v = rb / ra;
            ++drawn;
            faster += v < 1 ? 1 : 0;
            return true;
        },
        resamples);
    out.b_faster = drawn > 0 ? double(faster) / drawn : 0;
    // With very few samples a side cannot be resampled into anything new: say so.
    if (a.size() < 3 || b.size() < 3) out.interval.valid = false;
    return out;
}

}  // namespace awb
