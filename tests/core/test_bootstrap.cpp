// How sure a number is: bootstrap intervals of a benchmark comparison, of the fitted time
// exponents and of crossovers, and the length at which a memory curve reaches the device's memory.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "analysis/bench_diff.h"
#include "analysis/bootstrap.h"
#include "analysis/sweep_analysis.h"

using namespace awb;

namespace {

// n timed samples around `median` with a relative spread (log-normal), from a fixed seed.
std::vector<double> samples(double median, double spread, int n, unsigned seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> noise(0, spread);
    std::vector<double> out;
    for (int i = 0; i < n; ++i) out.push_back(median * std::exp(noise(gen)));
    return out;
}

SweepPoint point(const std::string& variant, int64_t n, std::vector<double> times, int64_t peak_bytes) {
    SweepPoint p;
    p.spec.variant = variant;
    p.spec.seq_q = p.spec.seq_k = n;
    p.bench.samples_ns = std::move(times);
    p.bench.timing = summarize_samples(p.bench.samples_ns, 1);
    p.bench.peak_bytes = peak_bytes;
    return p;
}

}  // namespace

TEST(Bootstrap, TheSameInputGivesTheSameInterval) {
    const auto a = samples(10e6, 0.05, 40, 1), b = samples(9e6, 0.05, 40, 2);
    const RatioOfMedians x = compare_medians(a, b), y = compare_medians(a, b);
    EXPECT_EQ(x.interval, y.interval);
    EXPECT_EQ(x.b_faster, y.b_faster);
}

TEST(Bootstrap, ABenchmarkTwentyPercentFasterIsToldApart) {
    BenchResult a, b;
    a.samples_ns = samples(10e6, 0.05, 50, 3);
    b.samples_ns = samples(8e6, 0.05, 50, 4);
    a.timing = summarize_samples(a.samples_ns, 1);
    b.timing = summarize_samples(b.samples_ns, 1);
    const BenchDiff d = diff_benches(a, b);
    EXPECT_NEAR(d.ratio.ratio, 0.8, 0.03);
    ASSERT_TRUE(d.ratio.interval.valid);
    EXPECT_LT(d.ratio.interval.low, d.ratio.ratio);
    EXPECT_GT(d.ratio.interval.high, d.ratio.ratio);
    EXPECT_LT(d.ratio.interval.high, 0.9);  // 5% noise over 50 samples: the interval is a few % wide
    EXPECT_GT(d.ratio.b_faster, 0.99);
    EXPECT_EQ(d.verdict.rfind("B is faster than A by", 0), 0u) << d.verdict;
    EXPECT_TRUE(d.differences.empty());
    // The same distribution twice: no difference established.
    b.samples_ns = samples(10e6, 0.05, 50, 5);
    b.timing = summarize_samples(b.samples_ns, 1);
    const BenchDiff same = diff_benches(a, b);
    EXPECT_LT(same.ratio.interval.low, 1.0);
    EXPECT_GT(same.ratio.interval.high, 1.0);
    EXPECT_EQ(same.verdict.rfind("no difference established", 0), 0u) << same.verdict;
    // Too few samples to resample: the ratio without an interval, said so.
    b.samples_ns = {8e6, 8e6};
    EXPECT_FALSE(diff_benches(a, b).ratio.interval.valid);
    EXPECT_NE(diff_benches(a, b).verdict.find("too few timed samples"), std::string::npos);
    b.spec.variant = "sdpa";
    EXPECT_EQ(diff_benches(a, b).differences.size(), 1u);
}

TEST(Bootstrap, IntervalsOfExponentsAndCrossoversFromTheTimedSamples) {
    // manual ~ N^2, chunked ~ 700 N: they cross at N = 700; 3% noise, 30 samples per point.
    SweepResult r;
    unsigned seed = 10;
    for (int64_t n : {256, 512, 1024, 2048}) {
        r.points.push_back(point("manual", n, samples(double(n) * double(n), 0.03, 30, seed++), n * n * 16));
        r.points.push_back(point("chunked", n, samples(700.0 * double(n), 0.03, 30, seed++), n * 1000));
    }
    r.environment.memory_bytes = int64_t(1) << 30;
    const SweepAnalysis a = analyze_sweep(r);
    int checked = 0;
    for (const SeriesFit& f : a.fits) {
        if (f.metric == "median_time") {
            ASSERT_TRUE(f.exponent_interval.valid) << f.series;
            const double expected = f.series.rfind("manual", 0) == 0 ? 2.0 : 1.0;
            EXPECT_LT(f.exponent_interval.low, expected + 0.01) << f.series;
            EXPECT_GT(f.exponent_interval.high, expected - 0.01) << f.series;
            EXPECT_LT(f.exponent_interval.high - f.exponent_interval.low, 0.1) << f.series;
            ++checked;
        } else {
            EXPECT_FALSE(f.exponent_interval.valid);  // allocation sizes are exact: no interval
            if (f.series.rfind("manual", 0) == 0) {
                EXPECT_NEAR(f.fills_memory_at_n, 8192, 1);  // 16 N^2 = 2^30
            }
            ++checked;
        }
    }
    EXPECT_EQ(checked, 4);
    const auto time_crossing = std::find_if(a.crossovers.begin(), a.crossovers.end(),
                                            [](const SeriesCrossover& c) { return c.metric == "median_time"; });
    ASSERT_NE(time_crossing, a.crossovers.end());
    ASSERT_TRUE(time_crossing->n_interval.valid);
    EXPECT_LT(time_crossing->n_interval.low, 700);
    EXPECT_GT(time_crossing->n_interval.high, 700);
    EXPECT_GT(time_crossing->resampled_share, 0.95);
    // Without samples to resample (files of older versions): the fits stand, without intervals.
    for (SweepPoint& p : r.points) p.bench.samples_ns.clear();
    for (const SeriesFit& f : analyze_sweep(r).fits) EXPECT_FALSE(f.exponent_interval.valid);
    // No capacity recorded: no prediction.
    r.environment.memory_bytes = -1;
    for (const SeriesFit& f : analyze_sweep(r).fits) EXPECT_EQ(f.fills_memory_at_n, 0);
}
