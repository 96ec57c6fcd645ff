// What one HTML report covers, gathered once for attnwb report (from the files it is given) and for the
// GUI's File > Export (from what is on screen): a run (with its events, or a profile report's run without
// them), a benchmark, a sweep, a check and a memory snapshot, at most one of each. complete_sources
// computes what is missing (the run's analysis and profile, the sweep's analysis) and report_input lays it
// out with the checklist and the findings judged on all of it together, so the CLI and the GUI write the
// same report from the same inputs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analysis/advisor.h"
#include "analysis/explanation.h"
#include "analysis/profile_report.h"
#include "analysis/run_analysis.h"
#include "analysis/snapshot_timeline.h"
#include "analysis/sweep_analysis.h"
#include "report/report_html.h"

namespace awb {

struct ResultsFile;

struct ReportSources {
    std::shared_ptr<const ProfileResult> run;      // with its events (a trace, a run) or without (a profile report's)
    std::shared_ptr<const RunAnalysis> analysis;   // the run's, when it has events (complete_sources computes it)
    std::shared_ptr<const ProfileReport> profile;  // a profile report as written, else made from the run
    std::vector<Finding> run_findings;             // a profile report's own findings (its events are not at hand)
    std::shared_ptr<const BenchResult> bench;
    std::shared_ptr<const SweepResult> sweep;
    std::shared_ptr<const SweepAnalysis> sweep_analysis;  // the sweep's (complete_sources computes it)
    std::shared_ptr<const CheckReport> check;
    std::shared_ptr<const MemorySnapshot> snapshot;  // with its replay (max_bands: kReportBands)
    std::shared_ptr<const SnapshotTimeline> snapshot_timeline;
    std::string snapshot_name;

    // A measurement of a run to judge (a memory snapshot alone is none: no checklist or findings).
    bool measured() const { return run || profile || bench || sweep || check; }
};

// Adds what an opened file holds (open_results_file's, shared: the sources point into it). Throws
// std::runtime_error naming the file for a second file of a kind ("a second benchmark; a report covers
// one of each") and for a workspace, which holds several runs.
void add_results(ReportSources& sources, std::shared_ptr<const ResultsFile> file);

// Computes the run's analysis (a run with events), its profile report and the sweep's analysis where
// they are missing.
void complete_sources(ReportSources& sources);

// The checklist and the findings on complete sources, a profile report's own findings kept for the
// rules that need the events, heaviest first; empty for a memory snapshot alone (no measurement of a run).
Explanation explain_sources(const ReportSources& sources);

// The report's input over complete sources (pointers into them: keep them while it is used).
ReportInput report_input(const ReportSources& sources, Explanation explanation);

}  // namespace awb
