// Profiler-off benchmarks: statistics, budgets, cancel, the allocation tracker, and the chunked
// variant's linear memory against manual's quadratic memory.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "engine/allocation_tracker.h"
#include "engine/bench.h"
#include "engine/variants.h"
#include "test_support.h"

using namespace awb;

namespace {

BenchOptions quick() {
    BenchOptions o;
    o.warmup = 1;
    o.budget_s = 0;
    o.min_repeats = 3;
    o.min_sample_s = 0;
    return o;
}

class CancelAfter final : public RunObserver {
public:
    explicit CancelAfter(int polls) : left_(polls) {}
    bool cancel_requested() const override { return --left_ < 0; }

private:
    mutable int left_;
};

}  // namespace

TEST(BenchStats, QuantilesInterpolateLikeNumpy) {
    // numpy.quantile([1, 2, 3, 4, 10], [0.1, 0.5, 0.9]) = [1.4, 3.0, 7.6]
    const TimingStats t = summarize_samples({4, 1, 10, 3, 2}, 7);
    EXPECT_DOUBLE_EQ(t.p10_ns, 1.4);
    EXPECT_DOUBLE_EQ(t.median_ns, 3.0);
    EXPECT_DOUBLE_EQ(t.p90_ns, 7.6);
    EXPECT_DOUBLE_EQ(t.min_ns, 1.0);
    EXPECT_DOUBLE_EQ(t.max_ns, 10.0);
    EXPECT_DOUBLE_EQ(t.mean_ns, 4.0);
    EXPECT_EQ(t.repeats, 5);
    EXPECT_EQ(t.iterations_per_sample, 7);
    EXPECT_TRUE(std::isnan(quantile({}, 0.5)));
}

TEST(BenchStats, OptionsAreValidated) {
    BenchOptions o;
    o.min_repeats = 0;
    o.budget_s = -1;
    const auto problems = validate(o);
    ASSERT_EQ(problems.size(), 2u);
    EXPECT_EQ(problems[0].field, "budget");
    EXPECT_EQ(problems[1].field, "min_repeats");
}

TEST(Bench, ReportsConsistentStatistics) {
    const RunSpec s = test::small_spec();
    const BenchResult r = bench_run(s, quick());
    EXPECT_GE(r.timing.repeats, 3);
    EXPECT_EQ(r.samples_ns.size(), size_t(r.timing.repeats));
    EXPECT_LE(r.timing.min_ns, r.timing.p10_ns);
    EXPECT_LE(r.timing.p10_ns, r.timing.median_ns);
    EXPECT_LE(r.timing.median_ns, r.timing.p90_ns);
    EXPECT_GT(r.cold_ns, 0);
    EXPECT_EQ(r.warmup_iterations, 1);
    EXPECT_DOUBLE_EQ(r.flops, attention_flops(s));
    EXPECT_DOUBLE_EQ(r.gflops_per_s, r.flops / r.timing.median_ns);
    EXPECT_GT(r.peak_bytes, 0);
    EXPECT_EQ(r.peak_source, "cpu allocation tracker");
    EXPECT_EQ(r.timer, "steady_clock");
    EXPECT_EQ(r.profiler_overhead, -1);
}

TEST(Bench, ShortSpecsRunSeveralIterationsPerSampleAndRespectTheBudget) {
    BenchOptions o = quick();
    o.min_sample_s = 0.02;  // a small-spec iteration takes well under 1 ms
    o.budget_s = 0.2;
    o.max_repeats = 1000;
    o.measure_memory = false;
    const BenchResult r = bench_run(test::small_spec(), o);
    EXPECT_GT(r.timing.iterations_per_sample, 1);
    EXPECT_GE(r.timing.repeats, 3);
    EXPECT_LT(r.timing.repeats, 100);  // 0.2 s of samples that last >= 20 ms each, plus the minimum
    EXPECT_EQ(r.peak_bytes, -1);
}

TEST(Bench, CancelsBetweenSamples) {
    BenchOptions o = quick();
    o.min_repeats = 50;
    CancelAfter observer(3);
    EXPECT_THROW(bench_run(test::small_spec(), o, &observer), Cancelled);
}

TEST(Bench, RefusesInvalidSpecsAndOptions) {
    RunSpec s = test::small_spec();
    s.heads = 3;
    BenchOptions o = quick();
    o.warmup = -1;
    try {
        bench_run(s, o);
        FAIL() << "expected InvalidInput";
    } catch (const InvalidInput& e) {
        ASSERT_EQ(e.problems().size(), 2u);
        EXPECT_EQ(e.problems()[0].field, "kv_heads");
        EXPECT_EQ(e.problems()[1].field, "warmup");
    }
}

TEST(AllocationTracker, CountsWhatIsAllocatedWhileAlive) {
    AllocationTracker tracker;
    {
        auto t = at::empty({1024, 256}, at::kFloat);  // 1 MiB
        EXPECT_GE(tracker.current_bytes(), 1 << 20);
    }
    EXPECT_GE(tracker.peak_bytes(), 1 << 20);
    EXPECT_EQ(tracker.current_bytes(), 0);
    EXPECT_GE(tracker.allocations(), 1);
}

TEST(Bench, ChunkedPeakMemoryIsFarBelowManualAtN2048) {
    RunSpec s = test::small_spec();
    s.seq_q = s.seq_k = 2048;
    BenchOptions o = quick();
    o.warmup = 0;
    o.min_repeats = 1;
    s.variant = "manual";
    const BenchResult manual = bench_run(s, o);
    s.variant = "chunked";
    const BenchResult chunked = bench_run(s, o);
    // manual keeps [1,2,2048,2048] float32 scores (32 MiB each) for backward; chunked only
    // [1,2,128,128] blocks plus O(N D) tensors.
    EXPECT_GT(manual.peak_bytes, 2 * (32ll << 20));
    EXPECT_LT(chunked.peak_bytes * 10, manual.peak_bytes)
        << "chunked " << chunked.peak_bytes << " B vs manual " << manual.peak_bytes << " B";
}

// The tracker's peak equals the peak of PyTorch's own [memory] events for the same iteration
// (tests/reference/make_peak_fixtures.py, Debian's python3-torch): exactly, as sizes are deterministic.
TEST(Bench, PeakMemoryMatchesPythonProfilerReplay) {
    const std::string path = test::torch_reference("peak_memory") + ".json";
    std::ifstream in(path);
    ASSERT_TRUE(in) << "missing fixture " << path << " (tests/reference/make_peak_fixtures.py makes it)";
    const auto fixture = nlohmann::json::parse(in);
    for (const auto& c : fixture.at("cases")) {
        RunSpec s = test::small_spec();
        s.batch = c.at("batch").get<int64_t>();
        s.heads = s.kv_heads = c.at("heads").get<int64_t>();
        s.seq_q = s.seq_k = c.at("seq").get<int64_t>();
        s.head_dim = c.at("head_dim").get<int64_t>();
        s.mode = *parse_mode(c.at("mode").get<std::string>());
        BenchOptions o = quick();
        o.warmup = 0;
        o.min_repeats = 1;
        EXPECT_EQ(bench_run(s, o).peak_bytes, c.at("peak_bytes").get<int64_t>())
            << shape_string(s) << " " << to_string(s.mode);
    }
}
