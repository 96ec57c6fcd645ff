// attnwb sweep: lists of N (and batch, heads, head_dim) x variants x dtypes, one benchmark per point,
// rows printed as points finish, then scaling exponents and crossovers.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "analysis/results_text.h"
#include "analysis/sweep_analysis.h"
#include "cli_engine_call.h"
#include "cli_explain.h"
#include "cli_options.h"
#include "cli_spec_options.h"
#include "engine/sweep_runner.h"
#include "model/sweep.h"
#include "model/sweep_shard.h"
#include "model/units.h"
#include "model/variant_catalog.h"
#include "results/measurement_json.h"
#include "results/run_json.h"

namespace awb::cli {

namespace {

struct SweepCommand {
    SpecOptions spec;
    std::vector<int64_t> seq{256, 512, 1024, 2048};
    std::vector<int64_t> batches, heads, head_dims;
    std::vector<std::string> variants{"manual", "sdpa", "chunked"};
    std::vector<std::string> dtypes;
    BenchOptions bench{.warmup = 2, .budget_s = 1.0, .min_repeats = 5};
    bool profile = false;
    std::string json_path, csv_path, report_path;
    std::string shard;  // "K/N"; empty: from the environment (torchrun, Slurm array) or the whole sweep
    bool quiet = false;
};

// The shard this process runs: --shard, else the scheduler's environment, else the whole sweep.
std::optional<SweepShard> choose_shard(const SweepCommand& c, std::vector<SpecProblem>& problems) {
    std::string error;
    std::optional<SweepShard> shard =
        c.shard.empty() ? shard_from_environment(std::getenv, error) : parse_shard(c.shard, error);
    if (!error.empty()) {
        problems.push_back({"shard", error});
        return std::nullopt;
    }
    return shard ? *shard : SweepShard{};
}

// Prints each row as soon as its point finishes.
class SweepPrinter final : public StderrProgress {
public:
    using StderrProgress::StderrProgress;
    void on_point(const SweepPoint& point, int, int) override {
        end_line();
        std::cout << format_sweep_point(point) << std::flush;
    }
};

int run(const CLI::App& sub, const SweepCommand& c) {
    std::vector<SpecProblem> problems;
    SweepPlan plan;
    plan.base = to_spec(sub, c.spec, problems);
    plan.seq_lengths = c.seq;
    plan.batches = c.batches;
    plan.heads = c.heads;
    plan.head_dims = c.head_dims;
    plan.variants = variant_list(c.variants, problems);
    for (const auto& name : c.dtypes) {
        if (auto d = parse_dtype(name))
            plan.dtypes.push_back(*d);
        else
            problems.push_back({"dtypes", "'" + name + "' is not one of float32, float64, float16, bfloat16"});
    }
    plan.bench = c.bench;
    plan.profile = c.profile;
    for (auto& p : validate(plan)) problems.push_back(std::move(p));
    const std::optional<SweepShard> shard = choose_shard(c, problems);
    if (!problems.empty()) {
        std::cerr << "attnwb sweep: invalid input:\n" << format_problems(problems);
        return kExitBadInput;
    }

    SweepPrinter printer(c.quiet, /*keep_finished=*/true);
    const size_t all_points = expand(plan).size();
    if (shard->whole())
        std::cout << "=== sweep: " << all_points << " points";
    else
        std::cout << "=== sweep shard " << shard->index << " of " << shard->count << " (from " << shard->chosen_by
                  << "): " << shard_points(plan, *shard).size() << " of " << all_points << " points, "
                  << format_share(expected_share(plan, *shard)) << " of the sweep's expected time";
    std::cout << ", base " << describe_spec(plan.base) << " ===\n" << sweep_header() << std::flush;
    SweepResult result;
    const int rc = call_engine("sweep", printer, [&] { result = run_sweep(plan, &printer, *shard); });
    if (rc != kExitOk) return rc;
    const SweepAnalysis analysis = analyze_sweep(result);  // once: printed, and in the file and the report
    std::cout << format_analysis(analysis);
    std::cout << sweep_count_text(result) << "\n";
    const Explanation explained = explain_and_print({nullptr, nullptr, &result});
    const int written =
        write_sweep_outputs("sweep", result, analysis, explained,
                            {shard_output_path(c.json_path, *shard), shard_output_path(c.csv_path, *shard),
                             shard_output_path(c.report_path, *shard)});
    if (written != kExitOk) return written;
    return printer.interrupted() ? kExitInterrupted : kExitOk;
}

}  // namespace

Command register_sweep(CLI::App& app) {
    auto c = std::make_shared<SweepCommand>();
    CLI::App* sub = app.add_subcommand(
        "sweep",
        "Benchmark every combination of the lists (profiler off), print one row per point as it finishes, "
        "then fitted exponents of time and peak memory vs N and the crossovers between variants. A point "
        "that is refused (e.g. too big for memory) or fails is recorded and the sweep goes on. Ctrl-C "
        "stops after the current point and still writes what finished (exit 130).");
    add_spec_options(*sub, c->spec, /*sweep_lists=*/true);
    const std::string g = "Sweep lists (comma-separated)";
    auto list = [&](const char* name, auto& values, const std::string& help) {
        return sub->add_option(name, values, help)
            ->delimiter(',')
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
            ->group(g);
    };
    list("--seq", c->seq, "Sequence lengths N (seq_q = seq_k = N)")->capture_default_str();
    list("--variants", c->variants,
         "Variants: " + variant_names() + ", and module files PATH.pt / PATH.pt2 (named by their stem)")
        ->capture_default_str();
    list("--dtypes", c->dtypes, "float32, float64, float16, bfloat16; default: float16 on cuda, float32 on cpu");
    list("--batch", c->batches, "Batch sizes (default 2)");
    list("--heads", c->heads, "Query head counts (default 8; kv heads follow unless --kv-heads is given)");
    list("--head-dim", c->head_dims, "Head dimensions (default 64)");
    add_bench_options(*sub, c->bench);
    sub->add_option("--shard", c->shard,
                    "Run shard K of N (K from 0) of the sweep's points, split by expected cost; without it, torchrun's "
                    "RANK/WORLD_SIZE or a Slurm array's SLURM_ARRAY_TASK_ID/COUNT choose the shard. Join the shards' "
                    "files with attnwb merge")
        ->type_name("K/N")
        ->group("Cluster");
    const std::string o = "Output";
    sub->add_flag("--profile", c->profile,
                  "Also profile each point (wait=1 warmup=1 active=3): operator table in the JSON and profiler "
                  "overhead in the rows")
        ->group(o);
    add_json_option(*sub, c->json_path, "the sweep (the GUI opens it)", "sweep")->group(o);
    sub->add_option("--csv", c->csv_path, "Write one CSV row per point")->group(o);
    add_report_option(*sub, c->report_path)->group(o);
    sub->footer(
        "In output paths '{shard}' becomes K-of-N (e.g. --json out/sweep-{shard}.json); a sharded run's paths "
        "without it get '.shard-K-of-N' before their extension, so shards never overwrite each other.");
    add_quiet_option(*sub, c->quiet)->group(o);
    return [sub, c] { return run(*sub, *c); };
}

}  // namespace awb::cli
