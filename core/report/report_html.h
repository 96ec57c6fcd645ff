// One self-contained HTML report of a run, a benchmark, a sweep and/or a correctness check:
// environment, spec, the measurement checklist, the advisor's findings, top operators, step times,
// memory over time, sweep curves and check errors. Charts are inline SVG; no script, no external file.
// Pure C++: no torch, no Qt.
#pragma once

#include <string>
#include <vector>

#include "analysis/collectives.h"
#include "analysis/comm_overlap.h"
#include "analysis/explanation.h"
#include "analysis/snapshot_timeline.h"
#include "results/measurement_json.h"
#include "results/run_json.h"

namespace awb {

struct ReportInput {
    std::string title;  // empty: from what is in it ("Profile of manual 2x8x512x64 float32 cpu")
    const ProfileReport* profile = nullptr;
    const BenchResult* bench = nullptr;
    const SweepResult* sweep = nullptr;
    const SweepAnalysis* sweep_analysis = nullptr;  // analyze_sweep(*sweep): required with a sweep
    const CheckReport* check = nullptr;
    const MemorySnapshot* snapshot = nullptr;  // with its replay (max_bands: kReportBands) and its file's name
    const SnapshotTimeline* snapshot_timeline = nullptr;
    std::string snapshot_name;
    const CollectiveReport* collectives =
        nullptr;  // a run of several ranks: its collectives and overlap (both or neither)
    const OverlapReport* overlap = nullptr;
    Explanation explanation;  // the checklist and the findings
    size_t top_operators = 20;
    std::string generated_by = "attnwb";  // "attnwb" or "attention-workbench"
};

std::string html_report(const ReportInput& input);

// Writes html_report(input) to path; throws std::runtime_error naming the path.
void write_html_report(const ReportInput& input, const std::string& path);

}  // namespace awb
