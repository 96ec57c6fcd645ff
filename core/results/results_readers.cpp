#include "results/results_readers.h"

#include <filesystem>
#include <stdexcept>

#include "io/memory_snapshot_read.h"
#include "io/trace_import.h"
#include "results/measurement_json.h"
#include "results/results_file.h"
#include "results/run_json.h"
#include "results/workspace.h"

namespace awb {

namespace {

// Runs read, naming the file in its message ("'x.json': ...").
template <typename Read>
void in_file(const std::string& path, Read read) {
    try {
        read();
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception& e) {
        throw std::runtime_error("'" + path + "': " + e.what());
    }
}

}  // namespace

void read_trace_results(const ResultsRead& r, ResultsFile& out) {
    // A folder holds the traces of one distributed run (one lane group per rank), or a graph replay
    // beside the capture_traces/ of its graphs.
    TraceSelection traces;
    if (std::filesystem::is_directory(r.path))
        traces.folder = r.path;
    else
        traces.files = {r.path};
    out = open_traces(traces, r.observer);
}

void read_snapshot_results(const ResultsRead& r, ResultsFile& out) {  // its messages name the file
    StreamedReplay replay;
    out.snapshot = std::make_shared<const MemorySnapshot>(
        read_memory_snapshot(r.path, SnapshotReading::Streamed, r.observer, r.snapshot_replay ? &replay : nullptr));
    if (r.snapshot_replay)
        out.snapshot_timeline =
            std::make_shared<const SnapshotTimeline>(replay.finish(*out.snapshot, *r.snapshot_replay));
}

void read_report_results(const ResultsRead& r, ResultsFile& out) {
    in_file(r.path, [&] {
        out.report = report_from_json(*r.json);
        out.run = run_of_report(*out.report);
        if (r.json->contains("findings"))
            out.findings = read_or_throw("profile report", [&] { return findings_from_json(r.json->at("findings")); });
    });
}

void read_bench_results(const ResultsRead& r, ResultsFile& out) {
    in_file(r.path, [&] { out.bench = bench_from_file_json(*r.json); });
}

void read_sweep_results(const ResultsRead& r, ResultsFile& out) {
    in_file(r.path, [&] { out.sweep = sweep_from_file_json(*r.json); });
}

void read_check_results(const ResultsRead& r, ResultsFile& out) {
    in_file(r.path, [&] { out.check = check_from_file_json(*r.json); });
}

void read_workspace_results(const ResultsRead& r, ResultsFile& out) {  // names its own file and the runs it leaves out
    out.workspace = std::make_shared<const Workspace>(workspace_from_json(*r.json, r.path, r.observer));
}

}  // namespace awb
