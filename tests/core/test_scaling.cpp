// Power-law fits and crossovers on synthetic curves whose answers are known exactly.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/scaling.h"

using namespace awb;

TEST(Scaling, RecoversExponentAndCoefficient) {
    for (double k : {0.5, 1.0, 2.0, 2.7}) {
        std::vector<SeriesPoint> pts;
        for (double n : {256.0, 512.0, 1024.0, 2048.0, 4096.0}) pts.push_back({n, 3.5 * std::pow(n, k)});
        const PowerFit f = fit_power_law(pts);
        ASSERT_TRUE(f.valid);
        EXPECT_NEAR(f.exponent, k, 1e-9);
        EXPECT_NEAR(f.coefficient, 3.5, 1e-6);
        EXPECT_NEAR(f.r_squared, 1.0, 1e-12);
        EXPECT_EQ(f.points, 5);
    }
}

TEST(Scaling, NoisyDataGivesLeastSquaresSlope) {
    // log-log points (x, y) with y = 2x + noise (+e, -e, -e, +e): the symmetric noise cancels in the
    // slope, and r^2 drops below 1.
    std::vector<SeriesPoint> pts;
    const double e = 0.1;
    const double noise[] = {e, -e, -e, e};
    int i = 0;
    for (double n : {100.0, 200.0, 400.0, 800.0}) pts.push_back({n, std::exp(2 * std::log(n) + noise[i++])});
    const PowerFit f = fit_power_law(pts);
    EXPECT_NEAR(f.exponent, 2.0, 1e-9);
    EXPECT_LT(f.r_squared, 1.0);
    EXPECT_GT(f.r_squared, 0.95);
}

TEST(Scaling, NeedsThreeDistinctPositiveLengths) {
    EXPECT_FALSE(fit_power_law({}).valid);
    EXPECT_FALSE(fit_power_law({{512, 1.0}}).valid);
    // Two points always lie on a line: no exponent, no R^2 of 1.000, and every report says why.
    const PowerFit two = fit_power_law({{256, 1.0}, {512, 4.0}});
    EXPECT_FALSE(two.valid);
    EXPECT_EQ(two.points, 2);
    EXPECT_EQ(fit_refusal(two), "no fit: 2 points (a fit needs 3)");
    EXPECT_EQ(fit_refusal(fit_power_law({{256, 1.0}})), "no fit: 1 point (a fit needs 3)");
    const PowerFit repeated = fit_power_law({{256, 1.0}, {256, 1.1}, {512, 4.0}});
    EXPECT_FALSE(repeated.valid);
    EXPECT_EQ(fit_refusal(repeated), "no fit: 2 distinct lengths (a fit needs 3)");
    const PowerFit f =
        fit_power_law({{0, 1.0}, {256, -1.0}, {256, 4.0}, {512, 16.0}, {1024, 64.0}});  // bad points skipped
    EXPECT_TRUE(f.valid);
    EXPECT_EQ(f.points, 3);
    EXPECT_EQ(fit_refusal(f), "");
    EXPECT_NEAR(f.exponent, 2.0, 1e-12);
}

TEST(Scaling, CrossoverOfTwoPowerLawsIsExact) {
    // a = N^2, b = 100 N meet at N = 100; interpolation in log-log is exact for power laws.
    std::vector<SeriesPoint> a, b;
    for (double n : {25.0, 50.0, 200.0, 400.0}) {
        a.push_back({n, n * n});
        b.push_back({n, 100 * n});
    }
    const auto c = find_crossovers(a, b);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_NEAR(c[0].n, 100.0, 1e-9);
    EXPECT_EQ(c[0].n_before, 50.0);
    EXPECT_EQ(c[0].n_after, 200.0);
    EXPECT_FALSE(c[0].a_lower_after);  // past N = 100, N^2 is the larger one
    const auto reversed = find_crossovers(b, a);
    ASSERT_EQ(reversed.size(), 1u);
    EXPECT_TRUE(reversed[0].a_lower_after);
}

TEST(Scaling, CrossoversUseCommonLengthsAndTies) {
    std::vector<SeriesPoint> a{{1, 1}, {2, 5}, {3, 1}, {4, 5}, {7, 1}};
    std::vector<SeriesPoint> b{{1, 2}, {2, 2}, {3, 2}, {4, 2}};  // no N = 7 in b
    EXPECT_EQ(find_crossovers(a, b).size(), 3u);
    // A tie between two opposite orders is the crossover itself; a touch that keeps the order is none.
    const auto tie = find_crossovers({{1, 1}, {2, 2}, {3, 3}}, {{1, 2}, {2, 2}, {3, 2}});
    ASSERT_EQ(tie.size(), 1u);
    EXPECT_EQ(tie[0].n, 2.0);
    EXPECT_TRUE(find_crossovers({{1, 1}, {2, 2}, {3, 1}}, {{1, 2}, {2, 2}, {3, 2}}).empty());
    EXPECT_TRUE(find_crossovers({{1, 1}}, {{2, 1}}).empty());
}
