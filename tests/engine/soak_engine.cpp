// Soak benchmark: in one process, through the engine API, 500 profiled runs, 200 trace
// imports and 100 sweep points, with the process tuned as attnwb and the GUI tune it. Prints resident
// memory, open file descriptors and threads as each phase goes, and whether the goals hold: after the
// first rounds (the first 10% of each phase: caches, thread pools and the roof probe settle), resident
// memory grows at most 5% by the end of the phase, and no descriptor or thread is left behind.
// Run by hand (not by ctest): awb_soak [--runs 500] [--imports 200] [--points 100]; exit 1 when a goal fails.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/run_analysis.h"
#include "engine/process_tuning.h"
#include "engine/profiler_session.h"
#include "engine/sweep_runner.h"
#include "io/trace_import.h"
#include "results/chrome_trace.h"
#include "results/workspace.h"
#include "process_sample.h"
#include "test_support.h"

using namespace awb;

namespace {

using Sample = test::ProcessSample;
Sample sample() { return test::process_sample(); }

// Runs round(i) n times and reports at 10%, 25%, 50%, 75% and 100%; true when the goals hold.
template <typename Round>
bool phase(const char* name, int n, Round&& round) {
    const int settle = std::max(1, n / 10);
    Sample base{};
    std::printf("%-14s %7s %10s %5s %8s\n", name, "round", "RSS MiB", "fds", "threads");
    for (int i = 1; i <= n; ++i) {
        round(i);
        if (i == settle || i == n / 4 || i == n / 2 || i == 3 * n / 4 || i == n) {
            const Sample s = sample();
            if (i == settle) base = s;
            std::printf("%-14s %7d %10.1f %5d %8d\n", "", i, s.rss_mib, s.fds, s.threads);
        }
    }
    const Sample end = sample();
    const double growth = base.rss_mib > 0 ? (end.rss_mib - base.rss_mib) / base.rss_mib : 0;
    const bool ok = growth <= 0.05 && end.fds <= base.fds && end.threads <= base.threads;
    std::printf("%-14s RSS %+.1f%% after round %d (goal <= 5%%), fds %+d, threads %+d: %s\n\n", name, 100 * growth,
                settle, end.fds - base.fds, end.threads - base.threads, ok ? "ok" : "FAILED");
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    int runs = 500, imports = 200, points = 100;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const int v = std::atoi(argv[i + 1]);
        if (flag == "--runs")
            runs = v;
        else if (flag == "--imports")
            imports = v;
        else if (flag == "--points")
            points = v;
    }
    std::printf("allocator: %s\n", tune_allocator_for_steady_state().c_str());
    const Sample start = sample();
    std::printf("start: RSS %.1f MiB, %d fds, %d threads\n\n", start.rss_mib, start.fds, start.threads);
    bool ok = true;

    ProfileResult last;
    ok &= phase("profile runs", runs, [&](int i) {
        RunSpec s = test::small_spec();
        s.variant = i % 3 == 0 ? "manual" : i % 3 == 1 ? "sdpa" : "chunked";
        last = profile_run(s, ProfileOptions{});
        const RunAnalysis a = analyze_run(last);  // what the GUI and attnwb do with each run
        if (a.operators.empty()) std::abort();
    });

    const std::string trace = (std::filesystem::temp_directory_path() / "awb_soak.trace.json.gz").string();
    write_chrome_trace(last.trace, run_trace_info(last, "awb_soak"), trace);
    ok &= phase("trace imports", imports, [&](int) {
        const ProfileResult r = profile_result_from_import(import_chrome_trace(trace));
        if (r.trace.events().empty()) std::abort();
    });
    std::filesystem::remove(trace);

    SweepPlan plan;
    plan.base = test::small_spec();
    plan.seq_lengths = {16, 32, 48, 64, 80};
    plan.variants = {"manual", "chunked"};
    plan.bench.budget_s = 0.01;
    plan.bench.min_repeats = 3;
    plan.bench.warmup = 1;
    const int sweeps = std::max(1, points / int(plan.seq_lengths.size() * plan.variants.size()));
    ok &= phase("sweep points", sweeps, [&](int) {
        const SweepResult r = run_sweep(plan);
        if (int(r.points.size()) != r.planned_points) std::abort();
    });
    std::printf("(%d sweeps of %zu points: %zu points)\n", sweeps, plan.seq_lengths.size() * plan.variants.size(),
                size_t(sweeps) * plan.seq_lengths.size() * plan.variants.size());
    std::printf("soak: %s\n", ok ? "all goals held" : "a goal FAILED");
    return ok ? 0 : 1;
}
