// JSON files for benchmarks, sweeps and correctness checks (schemas versioned, each with a reader),
// so that a sweep run with attnwb on a GPU server opens later in the GUI.
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/sweep_analysis.h"
#include "model/bench_stats.h"
#include "model/check_report.h"
#include "model/sweep.h"

namespace awb {

inline constexpr const char* kBenchSchema = "attention-workbench/bench";
inline constexpr const char* kSweepSchema = "attention-workbench/sweep";
inline constexpr const char* kCheckSchema = "attention-workbench/check";
inline constexpr int kResultsVersion = 1;

void to_json(nlohmann::json& j, const BenchOptions& o);
void from_json(const nlohmann::json& j, BenchOptions& o);
void to_json(nlohmann::json& j, const BenchResult& r);
void from_json(const nlohmann::json& j, BenchResult& r);
void to_json(nlohmann::json& j, const SweepPlan& p);
void from_json(const nlohmann::json& j, SweepPlan& p);
void to_json(nlohmann::json& j, const SweepPoint& p);
void from_json(const nlohmann::json& j, SweepPoint& p);

// Whole files: schema and version, plus derived figures for readers that do not recompute them
// (a sweep's fits and crossovers). The readers throw std::runtime_error naming the problem.
nlohmann::json bench_file_json(const BenchResult& r);
BenchResult bench_from_file_json(const nlohmann::json& j);
nlohmann::json sweep_file_json(const SweepResult& r, const SweepAnalysis& analysis);  // analysis: analyze_sweep(r)
SweepResult sweep_from_file_json(const nlohmann::json& j);
nlohmann::json check_file_json(const CheckReport& r);
CheckReport check_from_file_json(const nlohmann::json& j);

// Sweep points as CSV, one row per point, with a header line.
std::string sweep_csv(const SweepResult& r);

// What a results file holds, from its "schema" ("profile-report", "bench", "sweep", "check"), or
// empty for something else.
std::string results_kind(const nlohmann::json& j);

}  // namespace awb
