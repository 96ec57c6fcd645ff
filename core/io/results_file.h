// Any file the workbench opens, read by one function that says what it is: a chrome trace (ours,
// PyTorch's or Kineto's; .json, .json.gz, a folder of ranks, or a folder holding a graph replay and its
// capture_traces/), a profile report, a benchmark, a
// sweep, a correctness check or a workspace. attnwb report and diff and the GUI's File > Open all go
// through it, so a file opens the same way everywhere and fails with the same message.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/advisor.h"
#include "io/graph_replay.h"
#include "io/json_io.h"
#include "io/workspace.h"
#include "model/bench_stats.h"
#include "model/check_report.h"
#include "model/profile_result.h"
#include "model/run_observer.h"
#include "model/sweep.h"

namespace awb {

enum class ResultsKind { Trace, ProfileReport, Bench, Sweep, Check, Workspace };
// "chrome trace", "profile report", "benchmark", "sweep", "correctness check", "workspace"
std::string to_string(ResultsKind kind);

struct ResultsFile {
    std::string path;
    ResultsKind kind = ResultsKind::Trace;
    // Trace: the imported run with its events. ProfileReport: the run it describes, without events
    // (run_of_report), for the checklist.
    std::optional<ProfileResult> run;
    std::optional<ProfileReport> report;  // ProfileReport: the file as written
    std::vector<Finding> findings;        // ProfileReport: the advisor's findings written with it
    std::optional<BenchResult> bench;
    std::optional<SweepResult> sweep;
    std::optional<CheckReport> check;
    // Trace: a CUDA/HIP graph replay read with its capture traces (a folder holding capture_traces/, or
    // open_replay_selection): what was attributed, and the files that could not serve.
    std::optional<GraphReplayReport> graph_replay;
    // Workspace: read from the one reading of the file (workspace_from_json), with progress; the runs
    // that could not be read are named in its problems, the rest open.
    std::shared_ptr<const Workspace> workspace;
};

// Reads path and says what it holds. Throws std::runtime_error whose message names the file and the
// problem in words ("'x.png' cannot be read: it is a PNG image"), Cancelled when the observer asks
// during a trace import.
ResultsFile open_results_file(const std::string& path, RunObserver* observer = nullptr);

// Several traces opened together: a graph replay and its capture traces (io/graph_replay_import.h says
// which is which). Throws TraceImportError naming the file that cannot be read, or saying why the
// selection is no replay with its capture.
ResultsFile open_replay_selection(const std::vector<std::string>& paths, RunObserver* observer = nullptr);

}  // namespace awb
