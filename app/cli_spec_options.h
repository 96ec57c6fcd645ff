// The RunSpec and profiler options as CLI11 options, shared by the attnwb subcommands that run specs.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "model/bench_stats.h"
#include "model/profile_options.h"
#include "model/run_spec.h"

namespace awb::cli {

// Raw option values as typed; to_spec() turns them into a RunSpec and names every problem.
struct SpecOptions {
    std::string spec_file;
    std::string variant = "manual";
    int64_t batch = 2, heads = 8, kv_heads = 0, seq = 512, seq_q = 0, seq_k = 0, head_dim = 64;
    std::string dtype;  // empty: float16 on cuda, float32 on cpu (the article)
    std::string device = "cpu", mode = "train", mask = "none", layout = "bhnd", sdpa_backend = "auto";
    std::vector<int64_t> key_lengths;
    std::vector<std::string> module_inputs;
    uint64_t seed = 7;
    int threads = 0;
    int64_t block_size = 128;
    int64_t window = 0;
};

// sweep_lists: leave out --variant, --batch, --heads, --seq, --head-dim and --dtype, which attnwb sweep
// registers as lists.
void add_spec_options(CLI::App& app, SpecOptions& o, bool sweep_lists = false);
void add_profile_options(CLI::App& app, ProfileOptions& o);
void add_bench_options(CLI::App& app, BenchOptions& o);

// The sweep's and check's --variants: module paths made absolute (shards and the engine find the same
// file), built-in names kept; unknown names, unreadable modules and two variants of one name are problems.
std::vector<std::string> variant_list(const std::vector<std::string>& names, std::vector<SpecProblem>& problems);

// Builds the spec (from --spec FILE first, then the options given on the command line).
// Problems with names or files are appended to problems; validate() is not called here.
RunSpec to_spec(const CLI::App& app, const SpecOptions& o, std::vector<SpecProblem>& problems);

}  // namespace awb::cli
