#include "io/results_file.h"

#include <algorithm>
#include <filesystem>

#include "io/graph_replay_import.h"
#include "io/results_json.h"
#include "io/spooled_input.h"
#include "io/trace_import.h"
#include "io/workspace.h"

namespace awb {

std::string to_string(ResultsKind kind) {
    switch (kind) {
        case ResultsKind::Trace: return "chrome trace";
        case ResultsKind::ProfileReport: return "profile report";
        case ResultsKind::Bench: return "benchmark";
        case ResultsKind::Sweep: return "sweep";
        case ResultsKind::Check: return "correctness check";
        case ResultsKind::Workspace: return "workspace";
    }
    return "file";
}

namespace {

ResultsFile replay_file(ReplayImport replay, const std::string& path) {
    ResultsFile out;
    out.path = path;
    out.run = profile_result_from_import(std::move(replay.imported));
    out.graph_replay = std::move(replay.report);
    return out;
}

}  // namespace

ResultsFile open_replay_selection(const std::vector<std::string>& paths, RunObserver* observer) {
    ReplayImport replay = import_replay_selection(paths, observer);
    std::string path = paths.front();
    for (const std::string& p : paths)
        if (std::find(replay.report.capture_files.begin(), replay.report.capture_files.end(), p) == replay.report.capture_files.end()) {
            path = p;  // the replay's (first) file names what is open
            break;
        }
    return replay_file(std::move(replay), path);
}

ResultsFile open_results_file(const std::string& path, RunObserver* observer) {
    const SpooledInput input(path, observer);  // a pipe gives its bytes once: read from a copy
    if (input.spooled()) {
        try {
            ResultsFile f = open_results_file(input.path(), observer);
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
    if (std::filesystem::is_directory(path) || looks_like_chrome_trace(path)) {
        // A folder holds the traces of one distributed run (one lane group per rank), or a graph replay
        // beside the capture_traces/ of its graphs.
        if (auto replay = replay_files_of(path)) return replay_file(import_replay(*replay, observer), path);
        out.run = profile_result_from_import(import_chrome_traces(trace_files_of(path), observer));
        return out;
    }
    const nlohmann::json j = read_json_file(path);
    const std::string kind = results_kind(j);
    if (kind == "workspace") {  // names its own file and the runs it leaves out
        out.kind = ResultsKind::Workspace;
        out.workspace = std::make_shared<const Workspace>(workspace_from_json(j, path, observer));
        return out;
    }
    const std::string named = "'" + path + "'";
    try {
        if (kind == "profile-report") {
            out.kind = ResultsKind::ProfileReport;
            out.report = report_from_json(j);
            out.run = run_of_report(*out.report);
            if (j.contains("findings"))
                out.findings = read_or_throw("profile report", [&] { return findings_from_json(j.at("findings")); });
        } else if (kind == "bench") {
            out.kind = ResultsKind::Bench;
            out.bench = bench_from_file_json(j);
        } else if (kind == "sweep") {
            out.kind = ResultsKind::Sweep;
            out.sweep = sweep_from_file_json(j);
        } else if (kind == "check") {
            out.kind = ResultsKind::Check;
            out.check = check_from_file_json(j);
        } else if (kind.empty()) {
            throw std::runtime_error("not a file of Attention Workbench (no \"schema\": \"attention-workbench/...\") "
                                     "nor a chrome trace (no \"traceEvents\")");
        } else {
            throw std::runtime_error("an attnwb '" + kind + "' file, which holds no run to open; open profile "
                                     "reports, traces, benchmarks, sweeps, checks or workspaces");
        }
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception& e) {
        throw std::runtime_error(named + ": " + e.what());
    }
    return out;
}

}  // namespace awb
