// attnwb report FILE... -o report.html: one HTML report from results written earlier (on a GPU server,
// say): a profile report or a chrome trace (ours or PyTorch's, or a folder of ranks), a benchmark, a
// sweep and a correctness check, at most one of each. The checklist is judged on all of them together:
// a sweep or benchmark of the run's spec counts as its profiler-off re-measurement. A CUDA memory snapshot
// (a torch.cuda.memory._dump_snapshot pickle) adds its section: memory over its events, the peak's blocks.
#include <memory>

#include "cli_engine_call.h"
#include "cli_explain.h"
#include "cli_options.h"
#include "report/report_snapshot.h"
#include "report/report_sources.h"
#include "results/results_file.h"

namespace awb::cli {

namespace {

struct ReportCommand {
    std::vector<std::string> inputs;
    std::string out_path;
    std::string title;
    size_t rows = 20;
    bool quiet = false;
};

int run(const ReportCommand& c) {
    StderrProgress progress(c.quiet);
    ReportSources sources;
    const int read = read_inputs("report", progress, [&] {
        SnapshotOptions bands;  // a memory snapshot is replayed beside its reading, with the report's bands
        bands.max_bands = kReportBands;
        for (const auto& path : c.inputs)  // a workspace is refused unread
            add_results(sources, std::make_shared<const ResultsFile>(open_results_file(
                                     path, &progress, kAnyResultsKind & ~kind_bit(ResultsKind::Workspace), &bands)));
        complete_sources(sources);
    });
    if (read != kExitOk) return read;
    const Explanation explanation = explain_sources(sources);
    if (sources.measured()) print_explanation(explanation);
    ReportInput report = report_input(sources, explanation);
    report.title = c.title;
    report.top_operators = c.rows;
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
