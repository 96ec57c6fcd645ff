// The advisor: the article's way of reading a profile, as rules. Each finding names its evidence
// (operator rows, events, memory and timing figures, with units) and one concrete action. Rules look
// at whatever the caller has: a profiled run (trace + spec), a profiler-off benchmark, a sweep, a
// correctness check. Pure C++: no torch, no Qt.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/measurements.h"

namespace awb {

struct Finding {
    std::string rule;                   // "score-matrix", "materialised-scores", "layout-copies", "fragmentation",
                                        // "dispatch-bound", "cold-start", "length-sensitivity", "profiler-distortion",
                                        // "precision", "graph-capture", "straggler", "exposed-communication",
                                        // "latency-bound", "low-bandwidth" (collective_findings.h)
    std::string title;                  // one line: what was observed
    std::vector<std::string> evidence;  // the rows, events and figures it rests on
    std::string action;                 // what to do about it
    double weight = 0;                  // share of time or memory concerned (0..1, or a ratio): orders findings
    bool operator==(const Finding&) const = default;
};

// The thresholds each rule fires at (defaults: what the article treats as worth a look).
struct AdvisorThresholds {
    double score_share_of_peak = 0.10;     // the score matrix is at least this share of peak memory
    double copy_share_of_self_cpu = 0.10;  // layout copies take at least this share of self CPU time
    double calls_per_step = 40;            // fragmentation: an op called at least this often per step...
    double max_avg_self_us = 20;           // ...taking at most this long per call
    double cpu_over_device = 2.0;          // dispatch-bound: CPU time per step over the kernels' time
    double cold_over_median = 3.0;         // cold start: first iteration over the steady-state median
    double time_per_flop_spread = 1.5;     // length sensitivity: max/min time per FLOP across N
    double profiler_overhead = 1.3;        // profiled step time over the profiler-off median
};

// Findings of every rule that applies, heaviest first. The score-matrix rule reads the run's spec and
// so runs only where the spec is known (our runs and traces, not a foreign PyTorch trace); on a trace
// without one, materialised-scores reads the manual attention calls found in it (their [B, H, Nq, Nk]
// scores per call, the calls, and the share of the device time, or of the CPU op time on a CPU trace,
// spent in the ops between each call's two matmuls: softmax, scale, mask, dropout, casts).
std::vector<Finding> advise(const Measurements& input, const AdvisorThresholds& thresholds = {});

// Whether a rule reads a profiled run (its trace, memory and spec): a profile report file's own findings
// of these stand for them when the file is judged again without its events (report/report_sources).
// A new rule on the run adds its name to the list in advisor.cpp.
bool reads_the_run(const std::string& rule);

// "score-matrix: The [B, H, Nq, Nk] scores ...\n  evidence...\n  -> action" blocks for the CLI.
std::string format_findings(const std::vector<Finding>& findings);

// [{"rule", "title", "evidence": [...], "action", "weight"}], as every results file writes them.
nlohmann::json findings_json(const std::vector<Finding>& findings);
std::vector<Finding> findings_from_json(const nlohmann::json& j);  // throws nlohmann's exceptions

}  // namespace awb
