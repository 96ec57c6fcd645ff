// attnwb merge SHARD.json... --json sweep.json: joins the files of a sharded sweep (attnwb sweep
// --shard, or under torchrun / a Slurm array) into one sweep, as if run whole, and prints its table
// and analysis. Refuses, naming each problem, files of different sweeps, points in two files, missing
// points (unless --allow-missing) and shards measured on different environments (unless
// --allow-mixed; then each point keeps where it ran).
#include <iostream>
#include <memory>

#include "analysis/results_text.h"
#include "analysis/sweep_analysis.h"
#include "cli_engine_call.h"
#include "cli_explain.h"
#include "cli_options.h"
#include "model/sweep_merge.h"
#include "results/measurement_json.h"
#include "results/results_file.h"

namespace awb::cli {

namespace {

struct MergeCommand {
    std::vector<std::string> inputs;
    MergeOptions options;
    std::string json_path, csv_path, report_path;
    bool quiet = false;
};

int run(const MergeCommand& c) {
    StderrProgress progress(c.quiet);
    std::vector<ShardFile> files;
    const int read = read_inputs("merge", progress, [&] {
        for (const auto& path : c.inputs) {
            ResultsFile f = open_results_file(path, &progress, kind_bit(ResultsKind::Sweep));  // another kind: not read
            if (f.kind != ResultsKind::Sweep)
                throw std::runtime_error("'" + path + "' is a " + f.format + ", not a sweep");
            files.push_back({path, std::move(*f.sweep)});
        }
    });
    if (read != kExitOk) return read;

    const MergeOutcome m = merge_shards(files, c.options);
    if (!m.problems.empty()) {
        std::cerr << "attnwb merge: refused (nothing written):\n";
        for (const auto& p : m.problems) std::cerr << "  " << p << "\n";
        return kExitBadInput;
    }
    for (const auto& n : m.notes) std::cerr << "attnwb merge: " << n << "\n";

    const SweepResult& r = m.merged;
    std::cout << "=== merged sweep: " << r.points.size() << " of " << r.planned_points << " points from "
              << files.size() << " file" << (files.size() == 1 ? "" : "s") << ", ran on " << r.environment.host
              << " ===\n"
              << sweep_header();
    for (const auto& p : r.points) std::cout << format_sweep_point(p);
    const SweepAnalysis analysis = analyze_sweep(r);  // once: printed, and in the file and the report
    std::cout << format_analysis(analysis);
    const Explanation explained = explain_and_print({nullptr, nullptr, &r});
    return write_sweep_outputs("merge", r, analysis, explained, {c.json_path, c.csv_path, c.report_path});
}

}  // namespace

Command register_merge(CLI::App& app) {
    auto c = std::make_shared<MergeCommand>();
    CLI::App* sub = app.add_subcommand(
        "merge",
        "Join the files of a sharded sweep (attnwb sweep --shard K/N, or run under torchrun or a Slurm job "
        "array) into one sweep, as if run whole, and print its table, fits and crossovers. Missing or "
        "duplicated points, files of another sweep and shards measured on different environments (torch, "
        "device, CUDA, driver) are named and refused; the GUI opens the merged file.");
    sub->add_option("shards", c->inputs, "The shards' sweep files (any order)")->required()->check(CLI::ExistingPath);
    sub->add_flag("--allow-mixed", c->options.allow_mixed,
                  "Merge shards measured on different environments; each point keeps the host and device it ran on");
    sub->add_flag("--allow-missing", c->options.allow_missing,
                  "Merge although points are missing (a shard failed or stopped early); they are named, and the merged "
                  "sweep is marked as stopped early");
    add_json_option(*sub, c->json_path, "the merged sweep (the GUI opens it)", "sweep");
    sub->add_option("--csv", c->csv_path, "Write one CSV row per point");
    add_report_option(*sub, c->report_path);
    add_quiet_option(*sub, c->quiet);
    return [c] { return run(*c); };
}

}  // namespace awb::cli
