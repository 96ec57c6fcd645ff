// Sweeps: plan expansion, points that are refused or fail without stopping the sweep, stopping
// between points, analysis, and the JSON files loading back equal.
#include <gtest/gtest.h>

#include "analysis/sweep_analysis.h"
#include "engine/correctness.h"
#include "engine/sweep_runner.h"
#include "model/sweep_shard.h"
#include "results/measurement_json.h"
#include "test_support.h"

using namespace awb;

namespace {

SweepPlan small_plan() {
    SweepPlan p;
    p.base = test::small_spec();
    p.seq_lengths = {32, 64};
    p.variants = {"manual", "chunked"};
    p.base.block_size = 16;
    p.bench.warmup = 0;
    p.bench.budget_s = 0;
    p.bench.min_repeats = 2;
    p.bench.min_sample_s = 0;
    return p;
}

class SweepRecorder final : public SweepObserver {
public:
    void on_point(const SweepPoint& p, int index, int total) override {
        seen.push_back(p.spec.variant + "@" + std::to_string(p.spec.seq_k) + ":" + to_string(p.status));
        last_index = index;
        last_total = total;
    }
    bool finish_requested() const override { return stop_after >= 0 && int(seen.size()) >= stop_after; }
    std::vector<std::string> seen;
    int last_index = -1, last_total = -1;
    int stop_after = -1;
};

}  // namespace

TEST(Sweep, ExpandsLengthsOuterVariantsInner) {
    SweepPlan p = small_plan();
    p.dtypes = {Dtype::Float32, Dtype::Float64};
    const auto specs = expand(p);
    ASSERT_EQ(specs.size(), 8u);
    EXPECT_EQ(specs[0].variant, "manual");
    EXPECT_EQ(specs[1].variant, "chunked");
    EXPECT_EQ(specs[1].seq_q, 32);
    EXPECT_EQ(specs[2].seq_k, 64);
    EXPECT_EQ(specs[4].dtype, Dtype::Float64);
}

TEST(Sweep, ScalesPaddingLengthsAndKeepsGqaRatio) {
    SweepPlan p = small_plan();
    p.base.batch = 2;
    p.base.mask = MaskKind::Padding;
    p.base.key_lengths = {64, 16};
    p.base.heads = 4;
    p.base.kv_heads = 2;
    p.batches = {3};
    p.seq_lengths = {128, 1};
    p.variants = {"manual"};
    const auto specs = expand(p);
    EXPECT_EQ(specs[0].key_lengths, (std::vector<int64_t>{128, 32, 128}));  // scaled by 128/64, cycled to batch 3
    EXPECT_EQ(specs[1].key_lengths, (std::vector<int64_t>{1, 1, 1}));       // never below 1
    EXPECT_EQ(specs[0].kv_heads, 2);
}

TEST(Sweep, RefusedAndFailedPointsAreRecordedAndTheSweepContinues) {
    SweepPlan p = small_plan();
    p.seq_lengths = {32, 68719476736, 48};  // the middle length cannot fit in memory
    p.variants = {"manual"};
    SweepRecorder rec;
    const SweepResult r = run_sweep(p, &rec);
    ASSERT_EQ(r.points.size(), 3u);
    EXPECT_EQ(r.points[0].status, PointStatus::Ok);
    EXPECT_EQ(r.points[1].status, PointStatus::Refused);
    EXPECT_NE(r.points[1].reason.find("memory: estimated peak"), std::string::npos) << r.points[1].reason;
    EXPECT_EQ(r.points[2].status, PointStatus::Ok);
    EXPECT_FALSE(r.stopped_early);
    EXPECT_EQ(rec.seen, (std::vector<std::string>{"manual@32:ok", "manual@68719476736:refused", "manual@48:ok"}));
    EXPECT_EQ(rec.last_index, 2);
    EXPECT_EQ(rec.last_total, 3);
    EXPECT_FALSE(r.environment.torch_version.empty());
}

TEST(Sweep, StopsBetweenPointsAndKeepsWhatFinished) {
    SweepRecorder rec;
    rec.stop_after = 1;
    const SweepResult r = run_sweep(small_plan(), &rec);
    EXPECT_EQ(r.points.size(), 1u);
    EXPECT_EQ(r.planned_points, 4);
    EXPECT_TRUE(r.stopped_early);
}

TEST(Sweep, RunsOnlyItsShardsPointsEachWithItsIndexInTheWholeSweep) {
    const SweepPlan p = small_plan();  // 4 points
    const auto specs = expand(p);
    std::vector<int> seen;
    for (int k = 0; k < 3; ++k) {
        const SweepResult r = run_sweep(p, nullptr, SweepShard{k, 3, "--shard"});
        EXPECT_EQ(r.shard, (SweepShard{k, 3, "--shard"}));
        EXPECT_EQ(r.planned_points, int(r.points.size()));
        EXPECT_EQ(r.points.size(), shard_points(p, r.shard).size());
        for (const auto& point : r.points) {
            EXPECT_EQ(point.spec, specs[size_t(point.index)]);
            seen.push_back(point.index);
        }
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3}));

    // A shard whose every point is refused still records where it ran (merge compares environments).
    SweepPlan huge = p;
    huge.seq_lengths = {68719476736};
    huge.variants = {"manual"};
    const SweepResult refused = run_sweep(huge, nullptr, SweepShard{0, 1, ""});
    ASSERT_EQ(refused.points.size(), 1u);
    EXPECT_EQ(refused.points[0].status, PointStatus::Refused);
    EXPECT_FALSE(refused.environment.torch_version.empty());
    EXPECT_FALSE(refused.environment.host.empty());

    EXPECT_THROW(run_sweep(p, nullptr, SweepShard{3, 3, ""}), InvalidInput);
}

TEST(Sweep, RefusesABadPlanAsAWhole) {
    SweepPlan p = small_plan();
    p.seq_lengths = {64, 0, 64};
    try {
        run_sweep(p);
        FAIL() << "expected InvalidInput";
    } catch (const InvalidInput& e) {
        ASSERT_EQ(e.problems().size(), 2u);
        EXPECT_EQ(e.problems()[0].message, "0 must be a positive integer");
        EXPECT_EQ(e.problems()[1].message, "lists a value twice");
    }
}

TEST(Sweep, AnalysisFitsEachSeriesAndFindsCrossovers) {
    SweepResult r;
    for (int64_t n : {256, 512, 1024, 2048})
        for (const char* v : {"manual", "chunked"}) {
            SweepPoint p;
            p.spec = with_variant(test::small_spec(), v);
            p.spec.seq_q = p.spec.seq_k = n;
            const double x = double(n);
            const bool manual = std::string(v) == "manual";
            p.bench.timing.median_ns = manual ? x * x : 1000 * x;     // meet at N = 1000
            p.bench.timing.p10_ns = 0.99 * p.bench.timing.median_ns;  // 1024^2 is 2.4% above 1000*1024
            p.bench.timing.p90_ns = 1.01 * p.bench.timing.median_ns;
            p.bench.peak_bytes = int64_t(manual ? 4 * x * x : 64 * x);
            r.points.push_back(p);
        }
    SweepPoint refused;
    refused.spec = test::small_spec();
    refused.status = PointStatus::Refused;
    r.points.push_back(refused);

    const SweepAnalysis a = analyze_sweep(r);
    ASSERT_EQ(a.fits.size(), 4u);
    EXPECT_EQ(a.fits[0].metric, "median_time");
    EXPECT_EQ(a.fits[0].series, "manual float32 1x2xNx16 train");
    EXPECT_NEAR(a.fits[0].fit.exponent, 2.0, 1e-9);
    EXPECT_EQ(a.fits[1].series, "chunked float32 1x2xNx16 train block 128");
    EXPECT_NEAR(a.fits[1].fit.exponent, 1.0, 1e-9);
    EXPECT_EQ(a.fits[2].metric, "peak_memory");
    EXPECT_NEAR(a.fits[2].fit.exponent, 2.0, 1e-6);
    EXPECT_NEAR(a.fits[3].fit.exponent, 1.0, 1e-6);
    ASSERT_EQ(a.crossovers.size(), 1u);  // memory: 4N^2 = 64N only at N = 16, outside the measured range
    EXPECT_NEAR(a.crossovers[0].at.n, 1000.0, 1e-6);
    EXPECT_FALSE(a.crossovers[0].at.a_lower_after);  // past N = 1000 manual (a) is slower
    EXPECT_FALSE(a.crossovers[0].within_noise);
    for (auto& p : r.points) {  // +-10%: at N = 1024 the two ranges overlap
        p.bench.timing.p10_ns = 0.9 * p.bench.timing.median_ns;
        p.bench.timing.p90_ns = 1.1 * p.bench.timing.median_ns;
    }
    EXPECT_TRUE(analyze_sweep(r).crossovers[0].within_noise);
}

TEST(SweepFiles, SavedSweepLoadsBackEqual) {
    SweepPlan p = small_plan();
    p.seq_lengths = {32, 68719476736};
    p.profile = true;
    p.profile_options.active = 1;
    const SweepResult r = run_sweep(p);
    ASSERT_EQ(r.points.size(), 4u);
    ASSERT_FALSE(r.points[0].operators.empty());
    EXPECT_GT(r.points[0].bench.profiler_overhead, 0);
    const std::string text = sweep_file_json(r, analyze_sweep(r)).dump(1);
    const SweepResult back = sweep_from_file_json(nlohmann::json::parse(text));
    EXPECT_EQ(back, r);
    EXPECT_EQ(results_kind(nlohmann::json::parse(text)), "sweep");
    EXPECT_EQ(sweep_csv(back), sweep_csv(r));
}

TEST(SweepFiles, BenchAndCheckFilesLoadBackEqual) {
    SweepPlan p = small_plan();
    const SweepResult r = run_sweep(p);
    const BenchResult& b = r.points[0].bench;
    EXPECT_EQ(bench_from_file_json(nlohmann::json::parse(bench_file_json(b).dump())), b);
    const CheckReport c = check_variants(test::small_spec(), {"chunked"});
    EXPECT_EQ(check_from_file_json(nlohmann::json::parse(check_file_json(c).dump())), c);
}

TEST(SweepFiles, BadFilesGiveOneClearError) {
    auto message = [](const std::string& text) {
        try {
            sweep_from_file_json(nlohmann::json::parse(text));
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message(R"({"schema": "attention-workbench/profile-report"})").find("not an Attention Workbench sweep"),
              std::string::npos);
    EXPECT_NE(message(R"({"schema": "attention-workbench/sweep", "schema_version": 9})").find("schema_version 9"),
              std::string::npos);
    EXPECT_NE(
        message(R"({"schema": "attention-workbench/sweep", "schema_version": 1, "points": []})").find("malformed"),
        std::string::npos);
    const std::string bad_spec = sweep_file_json(SweepResult{}, SweepAnalysis{}).dump();
    auto j = nlohmann::json::parse(bad_spec);
    j["plan"]["base"]["dtype"] = "int3";
    try {
        sweep_from_file_json(j);
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("dtype"), std::string::npos) << e.what();
    }
}
