// attnwb profile: one spec under the profiler, printed like key_averages().table().
#include <cstdio>
#include <iostream>
#include <memory>

#include "analysis/op_table_text.h"
#include "analysis/results_text.h"
#include "io/json_write.h"
#include "cli_engine_call.h"
#include "cli_explain.h"
#include "cli_options.h"
#include "cli_spec_options.h"
#include "engine/memory_history.h"
#include "engine/profiler_session.h"
#include "engine/roof_probe.h"
#include "io/atomic_file.h"
#include "model/units.h"
#include "results/chrome_trace.h"
#include "results/run_json.h"

namespace awb::cli {

namespace {

struct ProfileCommand {
    SpecOptions spec;
    ProfileOptions profiler;
    std::string sort;
    size_t rows = 15;
    bool group_by_shape = false;
    std::string json_path;
    std::string trace_path;
    std::string kineto_trace_path;
    std::string report_path;
    std::string memory_snapshot_path;
    bool quiet = false;
};

// Every problem of the command line, found before anything runs; spec and sort as parsed.
std::vector<SpecProblem> input_problems(const CLI::App& sub, const ProfileCommand& c, RunSpec& spec, SortKey& sort) {
    std::vector<SpecProblem> problems;
    spec = to_spec(sub, c.spec, problems);
    sort = spec.device.kind == DeviceKind::CUDA ? SortKey::SelfDevice : SortKey::SelfCpu;
    if (!c.sort.empty() && !parse_sort_key(c.sort, sort))
        problems.push_back({"sort", "'" + c.sort + "' is not one of " + sort_key_names()});
    if (!c.memory_snapshot_path.empty()) {
        for (auto& p : memory_history_problems(spec)) problems.push_back(std::move(p));
        if (auto p = unwritable_output("memory_snapshot", c.memory_snapshot_path)) problems.push_back(std::move(*p));
    }
    return problems;
}

// --memory-snapshot: the pickle the engine made, atomically (gzipped for a .gz path), and where it went.
void write_memory_snapshot(const std::string& path, const std::string& pickle) {
    if (path.empty()) return;
    write_text_file(path, pickle);
    std::cerr << "wrote the CUDA memory snapshot " << path << " (" << format_bytes(int64_t(pickle.size()))
              << " pickled; read it with attnwb inspect " << path << ")\n";
}

int run(const CLI::App& sub, const ProfileCommand& c) {
    RunSpec spec;
    SortKey sort = SortKey::SelfCpu;
    const std::vector<SpecProblem> problems = input_problems(sub, c, spec, sort);
    if (!problems.empty()) {
        std::cerr << "attnwb profile: invalid input:\n" << format_problems(problems);
        return kExitBadInput;
    }

    StderrProgress progress(c.quiet, /*keep_finished=*/true);
    ProfileResult result;
    const int rc = call_engine("profile", progress, [&] {
        result = profile_run(spec, c.profiler, &progress, c.kineto_trace_path,
                             c.memory_snapshot_path.empty() ? 0 : kMemoryHistoryEntries);
        // The roof for the attention calls (after the run: its matmul and copy would
        // change the allocator's state the profiled steps see); not after a stop.
        if (!progress.interrupted()) result.roof = run_roof(spec, result.environment.device_name);
    });
    if (rc != kExitOk) return rc;
    for (const auto& f : result.kineto_trace_files) std::cerr << "wrote Kineto's trace " << f << "\n";
    for (const auto& p : result.kineto_trace_problems) std::cerr << "attnwb profile: " << p << "\n";

    const RunAnalysis analysis = analyze_run(result);  // once: the table, the report and the findings
    const ProfileReport report = make_report(result, analysis, c.group_by_shape);
    std::vector<OperatorRow> rows = report.operators;
    sort_rows(rows, sort);
    const bool cuda = spec.device.kind == DeviceKind::CUDA;

    std::cout << "=== " << describe_spec(spec) << " ===\n"
              << "torch " << result.environment.torch_version << ", " << result.environment.device_name << ", "
              << result.environment.threads << " thread(s), BLAS: " << result.environment.blas << "\n"
              << modules_text(result.environment) << "allocator: " << result.environment.allocator << "\n"
              << "schedule wait=" << c.profiler.wait << " warmup=" << c.profiler.warmup
              << " active=" << c.profiler.active << " repeat=" << c.profiler.repeat << ", sorted by " << to_string(sort)
              << "\n";
    if (result.interrupted)
        std::cout << "INTERRUPTED after step " << result.steps.size() << " of " << total_steps(c.profiler)
                  << ": the table holds the steps recorded before the stop\n";
    TableTextOptions table;
    table.row_limit = c.rows;
    table.device_columns = analysis.device_columns;
    table.memory_columns = c.profiler.profile_memory;
    table.shapes_column = c.group_by_shape;
    std::cout << format_table(rows, table);

    const double step_ns = median_recorded_step_ns(result);
    if (step_ns > 0)
        std::cout << "Recorded steps: median " << format_ms(step_ns)
                  << " per step (profiler on; attnwb bench measures it off)\n";
    if (c.profiler.profile_memory || cuda)
        std::cout << "Peak memory: " << format_memory(report.peak_memory_bytes) << " (" << report.peak_memory_source
                  << ")\n";
    const Explanation explained = explain_and_print({&result, nullptr, nullptr, nullptr, &analysis});

    const int written = write_outputs("profile", [&] {
        nlohmann::json j = to_json(report);
        add_explanation(j, explained);
        write_output(c.json_path, our_file_text(j));
        write_memory_snapshot(c.memory_snapshot_path, result.memory_snapshot);
        ReportInput in;
        in.profile = &report;
        write_report(c.report_path, in, explained);
        if (!c.trace_path.empty()) {
            write_chrome_trace(result.trace, run_trace_info(result, "attnwb"), c.trace_path);
            std::cerr << "wrote trace " << c.trace_path << " (" << result.trace.events().size() << " events, "
                      << result.trace.memory().size() << " memory events)\n";
        }
    });
    if (written != kExitOk) return written;
    if (!result.kineto_trace_problems.empty()) return kExitRuntimeFailure;
    return progress.interrupted() ? kExitInterrupted : kExitOk;
}

}  // namespace

Command register_profile(CLI::App& app) {
    auto c = std::make_shared<ProfileCommand>();
    CLI::App* sub =
        app.add_subcommand("profile",
                           "Run one attention spec under the PyTorch profiler and print its operator table. "
                           "Defaults are the article's experiment: (2, 8, 512, 64), train, wait=1 warmup=1 active=3.");
    add_spec_options(*sub, c->spec);
    add_profile_options(*sub, c->profiler);
    const std::string g = "Output";
    add_sort_option(*sub, c->sort, "default self_device on cuda, self_cpu on cpu")->group(g);
    add_rows_option(*sub, c->rows)->group(g);
    sub->add_flag("--group-by-shape", c->group_by_shape, "One row per (operator, input shapes)")->group(g);
    add_json_option(*sub, c->json_path, "the report (environment, spec, operators, memory)", "profile-report")
        ->group(g);
    sub->add_option("--trace", c->trace_path, "Write a chrome trace (Perfetto, chrome://tracing)")->group(g);
    sub->add_option("--kineto-trace", c->kineto_trace_path,
                    "Also write Kineto's own chrome trace, as torch.profiler's export_chrome_trace does "
                    "(LibTorch 2.x; one file per cycle: NAME.cycleK.json for K >= 2)")
        ->group(g);
    sub->add_option("--memory-snapshot", c->memory_snapshot_path,
                    "Record the CUDA caching allocator's history over the steps (every allocation and free, "
                    "with its C++ stack) and write its snapshot, the pickle torch.cuda.memory._dump_snapshot "
                    "writes (gzipped for a .gz name); read it with attnwb inspect FILE or PyTorch's memory_viz. "
                    "Needs --device cuda and the 2.x build; the steps' times include the recording's cost")
        ->group(g);
    add_report_option(*sub, c->report_path)->group(g);
    add_quiet_option(*sub, c->quiet)->group(g);
    return [sub, c] { return run(*sub, *c); };
}

}  // namespace awb::cli
