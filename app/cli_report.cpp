// attnwb report FILE... -o report.html: one HTML report from results written earlier (on a GPU server,
// say): a profile report or a chrome trace (ours or PyTorch's, or a folder of ranks), a benchmark, a
// sweep and a correctness check, at most one of each. The checklist is judged on all of them together:
// a sweep or benchmark of the run's spec counts as its profiler-off re-measurement. A CUDA memory snapshot
// (a torch.cuda.memory._dump_snapshot pickle) adds its section: memory over its events, the peak's blocks.
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include "cli_engine_call.h"
#include "cli_explain.h"
#include "cli_options.h"
#include "report/report_snapshot.h"
#include "results/results_file.h"
#include "results/run_json.h"

namespace awb::cli {

namespace {

struct ReportCommand {
    std::vector<std::string> inputs;
    std::string out_path;
    std::string title;
    size_t rows = 20;
    bool quiet = false;
};

struct Inputs {
    std::optional<ProfileResult> run;     // with its events (a trace) or without (a profile report)
    std::optional<RunAnalysis> analysis;  // a trace's, once
    std::optional<ProfileReport> profile;
    std::vector<Finding> run_findings;  // from a profile report file (its events are not at hand)
    std::optional<BenchResult> bench;
    std::optional<SweepResult> sweep;
    std::optional<CheckReport> check;
    std::shared_ptr<const MemorySnapshot> snapshot;
    std::shared_ptr<const SnapshotTimeline> snapshot_timeline;  // replayed beside its reading, with the report's bands
    std::string snapshot_path;
};

template <typename T>
void set_once(std::optional<T>& slot, T value, const std::string& kind, const std::string& path) {
    if (slot)
        throw std::runtime_error("'" + path + "': a second " + kind +
                                 "; a report covers one of each (attnwb diff compares two runs)");
    slot = std::move(value);
}

void load(const std::string& path, Inputs& in, RunObserver* progress) {
    SnapshotOptions bands;
    bands.max_bands = kReportBands;
    ResultsFile f = open_results_file(path, progress, kAnyResultsKind & ~kind_bit(ResultsKind::Workspace),
                                      &bands);  // refused unread
    switch (f.kind) {
        case ResultsKind::Trace:
            in.analysis = analyze_run(*f.run);
            set_once(in.profile, make_report(*f.run, *in.analysis), "profiled run", path);
            in.run = std::move(f.run);
            break;
        case ResultsKind::ProfileReport:
            set_once(in.profile, std::move(*f.report), "profiled run", path);
            in.run = std::move(f.run);
            in.run_findings = std::move(f.findings);
            break;
        case ResultsKind::Bench: set_once(in.bench, std::move(*f.bench), "benchmark", path); break;
        case ResultsKind::Sweep: set_once(in.sweep, std::move(*f.sweep), "sweep", path); break;
        case ResultsKind::Check: set_once(in.check, std::move(*f.check), "correctness check", path); break;
        case ResultsKind::Workspace:
            throw std::runtime_error(
                "'" + path + "' is a workspace: open it in the workbench, or report on the files it was saved from");
        case ResultsKind::MemorySnapshot:
            if (in.snapshot)
                throw std::runtime_error("'" + path +
                                         "': a second memory snapshot; a report covers one (attnwb diff compares two)");
            in.snapshot = f.snapshot;
            in.snapshot_timeline = f.snapshot_timeline;
            in.snapshot_path = path;
            break;
    }
}

int run(const ReportCommand& c) {
    StderrProgress progress(c.quiet);
    Inputs in;
    const int read = read_inputs("report", progress, [&] {
        for (const auto& path : c.inputs) load(path, in, &progress);
    });
    if (read != kExitOk) return read;

    const Measurements m{in.run ? &*in.run : nullptr, in.bench ? &*in.bench : nullptr, in.sweep ? &*in.sweep : nullptr,
                         in.check ? &*in.check : nullptr, in.analysis ? &*in.analysis : nullptr};
    // A memory snapshot alone is no measurement of a run: no checklist or findings to judge.
    const bool measured = in.profile || m.bench || m.sweep || m.check;
    Explanation explanation = measured ? explain(m) : Explanation{};
    // A report file's own findings stand for the rules that need its events.
    static const std::set<std::string> kRunRules = {"score-matrix",   "layout-copies", "fragmentation",
                                                    "dispatch-bound", "straggler",     "exposed-communication",
                                                    "latency-bound",  "low-bandwidth"};
    for (const auto& f : in.run_findings)
        if (kRunRules.count(f.rule)) explanation.findings.push_back(f);
    std::stable_sort(explanation.findings.begin(), explanation.findings.end(),
                     [](const Finding& a, const Finding& b) { return a.weight > b.weight; });
    if (measured) print_explanation(explanation);

    ReportInput report;
    report.title = c.title;
    report.profile = in.profile ? &*in.profile : nullptr;
    report.bench = m.bench;
    report.sweep = m.sweep;
    const std::optional<SweepAnalysis> sweep_analysis = m.sweep ? std::optional(analyze_sweep(*m.sweep)) : std::nullopt;
    report.sweep_analysis = sweep_analysis ? &*sweep_analysis : nullptr;
    report.check = m.check;
    report.top_operators = c.rows;
    if (in.analysis) {  // a trace's: its collectives across ranks
        report.collectives = &in.analysis->collectives;
        report.overlap = &in.analysis->overlap;
    }
    if (in.snapshot) {
        report.snapshot = in.snapshot.get();
        report.snapshot_timeline = in.snapshot_timeline.get();
        report.snapshot_name = in.snapshot_path;
    }
    return write_outputs("report", [&] { write_report(c.out_path, report, explanation); });
}

}  // namespace

Command register_report(CLI::App& app) {
    auto c = std::make_shared<ReportCommand>();
    CLI::App* sub = app.add_subcommand(
        "report",
        "Write one self-contained HTML report from results files: a profile report (attnwb profile --json) or "
        "a chrome trace (ours, PyTorch's, or a folder of ranks), a benchmark, a sweep, a check and a CUDA memory "
        "snapshot (torch.cuda.memory._dump_snapshot's pickle: memory over its events with the largest blocks "
        "stacked and coloured by the frame that allocated them, the peak's blocks and frames), at most one of each. "
        "The measurement checklist is judged on all of them together.");
    sub->add_option("inputs", c->inputs, "Results files and traces")->required()->check(CLI::ExistingPath);
    sub->add_option("--out,-o", c->out_path, "The HTML file to write")->required();
    sub->add_option("--title", c->title, "Report title (default: from the contents)");
    add_rows_option(*sub, c->rows, "Operators in the table");
    add_quiet_option(*sub, c->quiet);
    return [c] { return run(*c); };
}

}  // namespace awb::cli
