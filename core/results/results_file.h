// Any file the workbench opens (its format told by results/results_formats.h), read by one function
// that says what it is: a chrome trace (ours, PyTorch's or Kineto's; .json, .json.gz, a folder of
// ranks, or a folder holding a graph replay and its capture_traces/), a profile report, a benchmark, a
// sweep, a correctness check, a workspace or a CUDA memory snapshot (a pickle). attnwb inspect, report
// and diff and the GUI's File > Open all go through it (traces through open_traces), so a file opens
// the same way everywhere and fails with the same message.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/advisor.h"
#include "analysis/snapshot_timeline.h"
#include "model/bench_stats.h"
#include "model/check_report.h"
#include "model/memory_snapshot.h"
#include "model/profile_result.h"
#include "model/run_observer.h"
#include "model/sweep.h"
#include "results/graph_replay.h"
#include "results/results_formats.h"
#include "results/run_json.h"
#include "results/workspace.h"

namespace awb {

// Which kinds a caller takes (a bit per kind): open_results_file names a file of another kind without
// reading it, so attnwb merge refuses a 300 MB trace or a workspace before importing it.
constexpr unsigned kind_bit(ResultsKind kind) { return 1u << unsigned(kind); }
inline constexpr unsigned kAnyResultsKind = ~0u;

struct ResultsFile {
    std::string path;
    ResultsKind kind = ResultsKind::Trace;
    std::string format = "chrome trace";  // the row of results_formats() it was told by (its name)
    bool read = true;  // false: a kind the caller does not take, named but not read (nothing below is set)
    // Trace: the imported run with its events. ProfileReport: the run it describes, without events
    // (run_of_report), for the checklist.
    std::optional<ProfileResult> run;
    // Trace: what the import found besides the events (events by category, skipped events and their
    // reasons, devices, ranks, bytes read); its trace is empty, the events are in run.
    std::optional<ImportedTrace> import;
    std::optional<ProfileReport> report;  // ProfileReport: the file as written
    std::vector<Finding> findings;        // ProfileReport: the advisor's findings written with it
    std::optional<BenchResult> bench;
    std::optional<SweepResult> sweep;
    std::optional<CheckReport> check;
    // Trace: a CUDA/HIP graph replay read with its capture traces (a folder holding capture_traces/, or
    // open_trace_selection): what was attributed, and the files that could not serve.
    std::optional<GraphReplayReport> graph_replay;
    // Workspace: read from the one reading of the file (workspace_from_json), with progress; the runs
    // that could not be read are named in its problems, the rest open.
    std::shared_ptr<const Workspace> workspace;
    // MemorySnapshot: torch.cuda.memory._dump_snapshot's pickle as read (analysis/snapshot_timeline replays it),
    // and when asked (open_results_file's snapshot_replay) its replay, made beside the reading.
    std::shared_ptr<const MemorySnapshot> snapshot;
    std::shared_ptr<const SnapshotTimeline> snapshot_timeline;
};

// Reads path and says what it holds; a kind not in accepted is named, not read. Throws
// std::runtime_error whose message names the file and the problem in words ("'x.png' cannot be read:
// it is a PNG image"), Cancelled when the observer asks during a trace import.
// SNAPSHOT_REPLAY (may be null; no frame filter): a memory snapshot is also replayed with these options,
// beside its reading (a StreamedReplay), into snapshot_timeline.
ResultsFile open_results_file(const std::string& path, RunObserver* observer = nullptr,
                              unsigned accepted = kAnyResultsKind, const SnapshotOptions* snapshot_replay = nullptr);

// The traces of one run: one trace file, the ranks of one distributed run, or a graph replay with its
// capture traces.
struct TraceSelection {
    std::vector<std::string> files;     // one trace, or the ranks of one run; empty: the folder's traces
    std::string folder;                 // the folder given, if one was (a capture_traces/ in it is read)
    std::vector<std::string> captures;  // capture traces named (files or folders); attached to files
};

// The one route from traces to a run: import (with its notes), the run taken from it, and for a replay
// the attribution of its graphs' kernels (graph_replay; a capture that cannot serve is named in its
// problems). path is the folder, else the first file. Throws TraceImportError naming the file that
// cannot be read, Cancelled when the observer asks.
ResultsFile open_traces(const TraceSelection& selection, RunObserver* observer = nullptr);

// The traces of a selection opened as the runs they make (MixedRunsError's runs, each by itself): one
// ResultsFile per run, in the order of their first files; each file is read once. No graph replays.
std::vector<ResultsFile> open_trace_runs(const TraceSelection& selection, RunObserver* observer = nullptr);

// Several traces opened together: the ranks of one run, or a graph replay and its capture traces
// (results/graph_replay_import.h says which is which). Throws TraceImportError naming the file that cannot
// be read or saying why the selection is no replay with its capture, MixedRunsError when the files are
// the ranks of several runs.
ResultsFile open_trace_selection(const std::vector<std::string>& paths, RunObserver* observer = nullptr);

}  // namespace awb
