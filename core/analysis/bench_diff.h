// Two benchmarks compared (attnwb diff A.json B.json of `attnwb bench --json` files): is B
// faster than A, by how much, and how sure: the ratio of medians with its bootstrap interval over the
// timed samples, the share of resamples in which B is faster, and what differs between the two specs
// and environments (a ratio across different specs or machines is still printed, with the warning).
// Pure C++.
#pragma once

#include <string>
#include <vector>

#include "analysis/bootstrap.h"
#include "model/bench_stats.h"

namespace awb {

struct BenchDiff {
    double median_a_ns = 0, median_b_ns = 0;
    RatioOfMedians ratio;                  // B / A
    std::string verdict;                   // "B is faster than A by 13.8% (95% interval 11.5% to 16.0%)"
    std::vector<std::string> differences;  // "variant: manual -> sdpa", "device_name: ... -> ..."
};

BenchDiff diff_benches(const BenchResult& a, const BenchResult& b);
std::string format_bench_diff(const BenchDiff& d, const BenchResult& a, const BenchResult& b, const std::string& a_name,
                              const std::string& b_name);

}  // namespace awb
