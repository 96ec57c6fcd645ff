// A workspace: what a session of the workbench holds (its runs, with their traces, the sweeps on the
// chart, the benchmark and check the checklist reads, the spec in the run panel and the run on screen),
// saved so that it reopens as it was.
// On disk: NAME.json (schema attention-workbench/workspace) with the sweeps inline, and one gzipped
// chrome trace per run in the folder NAME.runs/ beside it, or for a distributed run one per rank (each
// trace also opens on its own, in the workbench, Perfetto or chrome://tracing; a run's rank files open
// together as its ranks). A trace reopens as it was saved: the same events, lanes, names, ranks and
// analysis (chrome_trace.h). Pure C++: no torch, no Qt.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "model/bench_stats.h"
#include "model/check_report.h"
#include "model/profile_result.h"
#include "model/run_observer.h"
#include "model/sweep.h"
#include "results/trace_run.h"

namespace awb {

inline constexpr const char* kWorkspaceSchema = "attention-workbench/workspace";
inline constexpr int kWorkspaceVersion = 1;

struct WorkspaceRun {
    std::string label;
    std::shared_ptr<const ProfileResult> result;
};

struct WorkspaceSweep {
    std::string label;
    SweepResult sweep;
    bool shown = true;  // on the chart (the others are kept in the list, unchecked)
};

struct Workspace {
    RunSpec panel_spec;
    std::vector<std::string> panel_modules;  // the user's module files the run panel offers as variants (absolute)
    std::vector<WorkspaceRun> runs;
    std::vector<WorkspaceSweep> sweeps;
    std::shared_ptr<const BenchResult> bench;  // null for none
    std::shared_ptr<const CheckReport> check;
    int shown = -1;                     // index into runs of the run on screen, -1 for none
    std::vector<std::string> problems;  // on load: runs that could not be read (the rest still open)
};

// Writes NAME.json and NAME.runs/run-K.trace.json.gz; throws std::runtime_error naming the file that
// could not be written. Progress: one step per run; cancel between runs (throws Cancelled).
void save_workspace(const Workspace& workspace, const std::string& path, RunObserver* observer = nullptr);

// Reads a workspace; a run whose trace is missing or damaged is left out and named in problems.
// Throws std::runtime_error when the workspace file itself is unreadable.
Workspace load_workspace(const std::string& path, RunObserver* observer = nullptr);

// The same from the workspace file's JSON already read from path (open_results_file reads a file once
// to learn its kind, then goes on from that JSON): path places the traces in NAME.runs/ and names the file.
Workspace workspace_from_json(const nlohmann::json& j, const std::string& path, RunObserver* observer = nullptr);

}  // namespace awb
