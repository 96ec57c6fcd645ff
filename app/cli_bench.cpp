// attnwb bench: one spec with the profiler off (cold, warm-up, timed samples, GFLOP/s, peak memory,
// profiler overhead).
#include <memory>

#include "analysis/results_text.h"
#include "io/json_write.h"
#include "cli_engine_call.h"
#include "cli_explain.h"
#include "cli_options.h"
#include "cli_spec_options.h"
#include "engine/bench.h"
#include "engine/profiler_session.h"
#include "results/measurement_json.h"
#include "results/run_json.h"

namespace awb::cli {

namespace {

struct BenchCommand {
    SpecOptions spec;
    BenchOptions bench;
    bool overhead = true;
    std::string json_path;
    std::string report_path;
    bool quiet = false;
};

int run(const CLI::App& sub, const BenchCommand& c) {
    std::vector<SpecProblem> problems;
    const RunSpec spec = to_spec(sub, c.spec, problems);
    if (!problems.empty()) {
        std::cerr << "attnwb bench: invalid input:\n" << format_problems(problems);
        return kExitBadInput;
    }
    StderrProgress progress(c.quiet, /*keep_finished=*/true);
    BenchResult result;
    const int rc = call_engine("bench", progress, [&] {
        result = bench_run(spec, c.bench, &progress);
        if (c.overhead && !progress.interrupted()) {
            ProfileOptions overhead;  // the default schedule (shapes and memory recorded), 5 recorded steps
            overhead.active = 5;
            const ProfileResult profiled = profile_run(spec, overhead, &progress);
            set_profiled_step(result, median_recorded_step_ns(profiled));
        }
    });
    if (rc != kExitOk) return rc;
    std::cout << format_bench(result);
    const Explanation explained = explain_and_print({nullptr, &result});
    const int written = write_outputs("bench", [&] {
        nlohmann::json j = bench_file_json(result);
        add_explanation(j, explained);
        write_output(c.json_path, our_file_text(j));
        ReportInput in;
        in.bench = &result;
        write_report(c.report_path, in, explained);
    });
    return written == kExitOk && progress.interrupted() ? kExitInterrupted : written;
}

}  // namespace

Command register_bench(CLI::App& app) {
    auto c = std::make_shared<BenchCommand>();
    CLI::App* sub = app.add_subcommand(
        "bench",
        "Time one attention spec with the profiler off: the cold first iteration, warm-up, then timed "
        "samples until the budget is spent (median, p10, p90, min), achieved GFLOP/s, peak memory of one "
        "iteration, and the profiler's overhead on the same spec.");
    add_spec_options(*sub, c->spec);
    add_bench_options(*sub, c->bench);
    const std::string g = "Output";
    sub->add_flag("--overhead,!--no-overhead", c->overhead,
                  "Also profile the spec (wait=1 warmup=1 active=5, shapes and memory) and report the median "
                  "profiled step time / the median")
        ->capture_default_str()
        ->group(g);
    add_json_option(*sub, c->json_path, "the result", "bench")->group(g);
    add_report_option(*sub, c->report_path)->group(g);
    add_quiet_option(*sub, c->quiet)->group(g);
    return [sub, c] { return run(*sub, *c); };
}

}  // namespace awb::cli
