#include "results/results_file.h"

#include <algorithm>
#include <filesystem>

#include "analysis/clock_alignment.h"
#include "io/json_read.h"
#include "io/spooled_input.h"
#include "io/trace_import.h"
#include "results/graph_replay_import.h"
#include "results/measurement_json.h"
#include "results/trace_run.h"
#include "results/workspace.h"

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

// The format of the file at path: others' told by their first bytes, ours by the schema of its JSON
// (parsed into json).
const ResultsFormat& format_of(const std::string& path, nlohmann::json& json) {
    if (const ResultsFormat* told = recognised_format(path)) return *told;
    json = read_json_file(path);
    const std::string kind = results_kind(json);
    if (kind.empty())
        throw std::runtime_error("'" + path +
                                 "': not a file of Attention Workbench (no \"schema\": \"attention-workbench/...\") "
                                 "nor a chrome trace (no \"traceEvents\")");
    const ResultsFormat* known = schema_format(json.at("schema").get<std::string>());
    if (!known)
        throw std::runtime_error("'" + path + "': an attnwb '" + kind +
                                 "' file, which holds no run to open; open profile "
                                 "reports, traces, benchmarks, sweeps, checks, workspaces or memory snapshots");
    return *known;
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
    nlohmann::json json;
    const ResultsFormat& format = format_of(path, json);
    ResultsFile out;
    out.path = path;
    out.kind = format.kind;
    out.format = format.name;
    out.read = (accepted & kind_bit(format.kind)) != 0;
    if (out.read) format.read({path, observer, snapshot_replay, json.is_null() ? nullptr : &json}, out);
    return out;
}

}  // namespace awb
