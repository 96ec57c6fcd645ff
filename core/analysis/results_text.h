// Benchmarks, sweeps and correctness checks as plain text: what attnwb prints, what text reports embed.
// Every figure carries its unit. Pure C++.
#pragma once

#include <string>

#include "analysis/sweep_analysis.h"
#include "model/bench_stats.h"
#include "model/check_report.h"
#include "model/sweep.h"

namespace awb {

std::string describe_spec(const RunSpec& s);
// One line per user module the result ran: "module mine: /abs/mine.pt2 (aotinductor, 1.2 MiB, ...)".
std::string modules_text(const Environment& e);  // "manual  shape 2x8x512x64 [B,H,N,D]  float32  cpu  mode train ..."

std::string format_bench(const BenchResult& r);

// One row per point, aligned under the header; the rows can be printed as points arrive.
std::string sweep_header();
std::string format_sweep_point(const SweepPoint& p);
std::string format_analysis(const SweepAnalysis& a);
// How many of a sweep's planned points were measured and what became of the rest, as the CLI, the
// GUI and the reports all say it: "5 of 12 planned points measured; 1 failed, 6 not run, stopped early".
std::string sweep_count_text(const SweepResult& r);

std::string format_check(const CheckReport& r);

}  // namespace awb
