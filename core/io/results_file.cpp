#include "io/results_file.h"

#include <algorithm>
#include <filesystem>

#include "analysis/clock_alignment.h"
#include "io/graph_replay_import.h"
#include "io/measurement_json.h"
#include "io/memory_snapshot_read.h"
#include "io/spooled_input.h"
#include "io/trace_import.h"
#include "io/trace_run.h"
#include "io/workspace.h"

namespace awb {

namespace {

ResultsFile traces_file(ImportedTrace imported, std::optional<GraphReplayReport> replay, const std::string& path) {
    if (imported.trace.meta().ranks.size() > 1) {  // ranks on hosts whose clocks differ: aligned on their collectives
        const ClockAlignment aligned = align_rank_clocks(imported.trace);
        if (!aligned.note.empty()) imported.notes.run.push_back(aligned.note);
    }
    ResultsFile out;
    out.path = path;
    out.run = take_run(imported);
    out.import = std::move(imported);
    out.graph_replay = std::move(replay);
    return out;
}

// What a selection attaches: the captures named to its files, else a folder's capture_traces/
// (nullopt: a plain trace).
std::optional<ReplayFiles> replay_of(const TraceSelection& s) {
    if (s.captures.empty()) return s.folder.empty() ? std::nullopt : replay_files_of(s.folder);
    ReplayFiles out;
    out.replay = s.files.empty() ? trace_files_of(s.folder) : s.files;
    for (const std::string& c : s.captures) {
        const std::vector<std::string> found = capture_files_of(c, &out.problems);
        if (found.empty()) out.problems.push_back("'" + c + "' holds no capture trace (.json or .json.gz)");
        out.captures.insert(out.captures.end(), found.begin(), found.end());
    }
    return out;
}

}  // namespace

ResultsFile open_traces(const TraceSelection& selection, RunObserver* observer) {
    const std::string path = selection.folder.empty() ? selection.files.front() : selection.folder;
    if (std::optional<ReplayFiles> replay = replay_of(selection)) {
        ReplayImport r = import_replay(*replay, observer);
        return traces_file(std::move(r.imported), std::move(r.report), path);
    }
    const std::vector<std::string> files = selection.files.empty() ? trace_files_of(selection.folder) : selection.files;
    return traces_file(import_chrome_traces(files, observer), std::nullopt, path);
}

std::vector<ResultsFile> open_trace_runs(const TraceSelection& selection, RunObserver* observer) {
    const std::vector<std::string> files = selection.files.empty() ? trace_files_of(selection.folder) : selection.files;
    std::vector<ResultsFile> out;
    for (ImportedTrace& run : import_chrome_trace_runs(files, observer)) {
        const std::string path = run.trace.meta().source;
        out.push_back(traces_file(std::move(run), std::nullopt, path));
    }
    return out;
}

ResultsFile open_trace_selection(const std::vector<std::string>& paths, RunObserver* observer) {
    ImportedTrace ranks;
    std::optional<ReplayImport> replay = import_replay_selection(paths, observer, &ranks);
    if (!replay) return traces_file(std::move(ranks), std::nullopt, paths.front());
    std::string path = paths.front();
    for (const std::string& p : paths)
        if (std::find(replay->report.capture_files.begin(), replay->report.capture_files.end(), p) ==
            replay->report.capture_files.end()) {
            path = p;  // the replay's (first) file names what is open
            break;
        }
    return traces_file(std::move(replay->imported), std::move(replay->report), path);
}

namespace {

// The file's content, its kind known and taken by the caller.
void read_results(ResultsFile& out, const nlohmann::json& j, RunObserver* observer) {
    switch (out.kind) {
        case ResultsKind::Workspace:  // names its own file and the runs it leaves out
            out.workspace = std::make_shared<const Workspace>(workspace_from_json(j, out.path, observer));
            return;
        case ResultsKind::ProfileReport:
            out.report = report_from_json(j);
            out.run = run_of_report(*out.report);
            if (j.contains("findings"))
                out.findings = read_or_throw("profile report", [&] { return findings_from_json(j.at("findings")); });
            return;
        case ResultsKind::Bench: out.bench = bench_from_file_json(j); return;
        case ResultsKind::Sweep: out.sweep = sweep_from_file_json(j); return;
        case ResultsKind::Check: out.check = check_from_file_json(j); return;
        case ResultsKind::Trace:
        case ResultsKind::MemorySnapshot: return;
    }
}

}  // namespace

ResultsFile open_results_file(const std::string& path, RunObserver* observer, unsigned accepted,
                              const SnapshotOptions* snapshot_replay) {
    const SpooledInput input(path, observer);  // a pipe gives its bytes once: read from a copy
    if (input.spooled()) {
        try {
            ResultsFile f = open_results_file(input.path(), observer, accepted, snapshot_replay);
            f.path = path;
            return f;
        } catch (const Cancelled&) {
            throw;
        } catch (const TraceImportError& e) {
            throw TraceImportError(input.named(e.what()));
        } catch (const std::exception& e) {
            throw std::runtime_error(input.named(e.what()));
        }
    }
    ResultsFile out;
    out.path = path;
    const std::optional<ResultsKind> told = recognised_kind(path);  // others' formats, from their first bytes
    if (told == ResultsKind::Trace) {
        out.read = (accepted & kind_bit(ResultsKind::Trace)) != 0;
        if (!out.read) return out;
        // A folder holds the traces of one distributed run (one lane group per rank), or a graph replay
        // beside the capture_traces/ of its graphs.
        TraceSelection traces;
        if (std::filesystem::is_directory(path))
            traces.folder = path;
        else
            traces.files = {path};
        return open_traces(traces, observer);
    }
    if (told == ResultsKind::MemorySnapshot) {  // its messages name the file
        out.kind = ResultsKind::MemorySnapshot;
        out.read = (accepted & kind_bit(out.kind)) != 0;
        if (!out.read) return out;
        StreamedReplay replay;
        out.snapshot = std::make_shared<const MemorySnapshot>(
            read_memory_snapshot(path, SnapshotReading::Streamed, observer, snapshot_replay ? &replay : nullptr));
        if (snapshot_replay)
            out.snapshot_timeline =
                std::make_shared<const SnapshotTimeline>(replay.finish(*out.snapshot, *snapshot_replay));
        return out;
    }
    const nlohmann::json j = read_json_file(path);
    const std::string kind = results_kind(j);
    const std::optional<ResultsKind> known =
        kind.empty() ? std::nullopt : kind_of_schema(j.at("schema").get<std::string>());
    if (!known && kind.empty())
        throw std::runtime_error("'" + path +
                                 "': not a file of Attention Workbench (no \"schema\": \"attention-workbench/...\") "
                                 "nor a chrome trace (no \"traceEvents\")");
    if (!known)
        throw std::runtime_error("'" + path + "': an attnwb '" + kind +
                                 "' file, which holds no run to open; open profile "
                                 "reports, traces, benchmarks, sweeps, checks, workspaces or memory snapshots");
    out.kind = *known;
    out.read = (accepted & kind_bit(out.kind)) != 0;
    if (!out.read) return out;
    if (out.kind == ResultsKind::Workspace) {
        read_results(out, j, observer);  // its messages name the workspace's own file
        return out;
    }
    try {
        read_results(out, j, observer);
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception& e) {
        throw std::runtime_error("'" + path + "': " + e.what());
    }
    return out;
}

}  // namespace awb
