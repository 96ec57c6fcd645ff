#include "cli_spec_options.h"

#include <algorithm>
#include <fstream>

#include "model/module_file.h"
#include "model/run_observer.h"
#include "model/variant_catalog.h"
#include "results/run_json.h"

namespace awb::cli {

void add_spec_options(CLI::App& app, SpecOptions& o, bool sweep_lists) {
    const std::string g = "Run spec";
    // A repeated option takes its last value (as most CLIs do), e.g. "--seq 64 ... --seq 128".
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.add_option("--spec", o.spec_file,
                   "Read the spec from a JSON file (a report's \"spec\" object works); "
                   "options given on the command line override its fields")
        ->group(g);
    if (!sweep_lists) {
        app.add_option("--variant", o.variant,
                       "Attention variant: " + variant_names() +
                           ", or your module as a file: PATH.pt (TorchScript) or PATH.pt2 (AOTInductor, LibTorch 2.x), "
                           "called forward(q, k, v[, extra inputs]) in the spec's layout")
            ->capture_default_str()
            ->group(g);
        app.add_option("--batch", o.batch, "Batch size B")->capture_default_str()->group(g);
        app.add_option("--heads", o.heads, "Query heads H")->capture_default_str()->group(g);
    }
    app.add_option("--kv-heads", o.kv_heads, "Key/value heads (GQA); default: = heads")->group(g);
    if (!sweep_lists) {
        app.add_option("--seq", o.seq, "Sequence length N for queries and keys")->capture_default_str()->group(g);
        app.add_option("--seq-q", o.seq_q, "Query length (overrides --seq)")->group(g);
        app.add_option("--seq-k", o.seq_k, "Key/value length (overrides --seq)")->group(g);
        app.add_option("--head-dim", o.head_dim, "Head dimension D")->capture_default_str()->group(g);
        app.add_option("--dtype", o.dtype,
                       "float32, float64, float16, bfloat16; default: float16 on cuda, float32 on cpu")
            ->group(g);
    }
    app.add_option("--device", o.device, "cpu, cuda or cuda:N")->capture_default_str()->group(g);
    app.add_option("--mode", o.mode, "forward, or train (forward + out.square().mean().backward())")
        ->capture_default_str()
        ->group(g);
    app.add_option("--mask", o.mask, "none, causal, padding (needs --key-lengths) or window (needs --window)")
        ->capture_default_str()
        ->group(g);
    app.add_option("--window", o.window,
                   "Keys each query sees with --mask window: itself and the W - 1 before it (a causal sliding window)")
        ->group(g);
    app.add_option("--key-lengths", o.key_lengths, "Per-batch key lengths for --mask padding, e.g. 512,300")
        ->delimiter(',')
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->group(g);
    app.add_option("--layout", o.layout,
                   "bhnd (contiguous [B,H,N,D]) or bnhd ([B,N,H,D] transposed, as a projection gives)")
        ->capture_default_str()
        ->group(g);
    app.add_option("--sdpa-backend", o.sdpa_backend, "auto, math, flash, efficient, cudnn (LibTorch 2.x)")
        ->capture_default_str()
        ->group(g);
    app.add_option("--block-size", o.block_size, "Query and key block of the chunked variant")
        ->capture_default_str()
        ->group(g);
    app.add_option("--module-inputs", o.module_inputs,
                   "A module's extra inputs after (q, k, v), in order: keep_mask (bool [B,1,Nq,Nk], true = visible), "
                   "key_lengths (int64 [B]); default: what the module's metadata lists")
        ->delimiter(',')
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->group(g);
    app.add_option("--seed", o.seed, "Random seed of the inputs")->capture_default_str()->group(g);
    app.add_option("--threads", o.threads, "Intra-op threads; 0 = LibTorch's default")->capture_default_str()->group(g);
}

void add_profile_options(CLI::App& app, ProfileOptions& o) {
    const std::string g = "Profiler (torch.profiler.schedule)";
    app.add_option("--wait", o.wait, "Steps run with the profiler off")->capture_default_str()->group(g);
    app.add_option("--warmup", o.warmup, "Steps run under the profiler and discarded")->capture_default_str()->group(g);
    app.add_option("--active", o.active, "Steps recorded per cycle")->capture_default_str()->group(g);
    app.add_option("--repeat", o.repeat, "Cycles of wait+warmup+active")->capture_default_str()->group(g);
    app.add_flag("--record-shapes,!--no-record-shapes", o.record_shapes, "Record input shapes and dtypes")
        ->capture_default_str()
        ->group(g);
    app.add_flag("--profile-memory,!--no-profile-memory", o.profile_memory, "Record [memory] allocation events")
        ->capture_default_str()
        ->group(g);
    app.add_flag("--with-stack,!--no-with-stack", o.with_stack,
                 "Record call stacks (Python and TorchScript frames: a C++ program has none, so LibTorch 1.13 and 2.11 "
                 "record no frames here; it still costs profiler overhead)")
        ->capture_default_str()
        ->group(g);
}

void add_bench_options(CLI::App& app, BenchOptions& o) {
    const std::string g = "Benchmark (profiler off)";
    app.add_option("--warmup", o.warmup, "Untimed iterations after the cold one")->capture_default_str()->group(g);
    app.add_option("--budget", o.budget_s, "Seconds of timed samples once --min-repeats are done")
        ->capture_default_str()
        ->group(g);
    app.add_option("--min-repeats", o.min_repeats, "Timed samples at least")->capture_default_str()->group(g);
    app.add_option("--max-repeats", o.max_repeats, "Timed samples at most")->capture_default_str()->group(g);
    app.add_option("--min-sample", o.min_sample_s,
                   "Seconds one sample lasts at least (fast specs run several iterations per sample)")
        ->capture_default_str()
        ->group(g);
    app.add_flag("--memory,!--no-memory", o.measure_memory, "Measure the peak memory of one iteration")
        ->capture_default_str()
        ->group(g);
}

namespace {

template <typename T, typename Parse>
void set_enum(const std::string& value, const char* field, const char* allowed, Parse parse, T& out,
              std::vector<SpecProblem>& problems) {
    if (auto v = parse(value))
        out = *v;
    else
        problems.push_back({field, "'" + value + "' is not one of " + allowed});
}

bool given(const CLI::App& app, const char* name) {
    const CLI::Option* option = app.get_option_no_throw(name);
    return option && option->count() > 0;
}

}  // namespace

std::vector<std::string> variant_list(const std::vector<std::string>& names, std::vector<SpecProblem>& problems) {
    std::vector<std::string> out, stems;
    for (const auto& v : names) {
        const bool module = is_module_path(v);
        if (!module && !find_variant(v)) {
            problems.push_back({"variants", "'" + v + "' is not a known variant (known: " + variant_names() +
                                                ", or a module file .pt/.pt2)"});
            continue;
        }
        for (auto& p : module ? check_module_file(v) : std::vector<SpecProblem>{})
            problems.push_back({"variants", p.message});
        const std::string stem = module ? module_stem(v) : v;
        if (std::find(stems.begin(), stems.end(), stem) != stems.end())
            problems.push_back(
                {"variants", "two variants are named '" + stem + "' (" + v + "): rename one module file"});
        stems.push_back(stem);
        out.push_back(module ? absolute_module_path(v) : v);
    }
    return out;
}

namespace {

// The spec of a --spec FILE (a spec, or a results file holding one); problems name the file.
RunSpec spec_of_file(const std::string& path, std::vector<SpecProblem>& problems) {
    RunSpec s;
    try {
        auto j = read_json_file(path);
        if (j.contains("spec") && j["spec"].is_object()) j = j["spec"];
        s = j.get<RunSpec>();
    } catch (const InvalidInput& e) {
        for (const auto& p : e.problems()) problems.push_back({p.field, p.message + " (in " + path + ")"});
    } catch (const nlohmann::json::exception& e) {
        problems.push_back({"spec", "'" + path + "' is not a spec: " + e.what()});
    } catch (const std::runtime_error& e) {  // cannot open, not JSON: named and said in words
        problems.push_back({"spec", e.what()});
    }
    return s;
}

// The shape options: --variant (a built-in or a module file), batch, heads, kv heads, lengths, head dim.
void apply_shape(const CLI::App& app, const SpecOptions& o, bool from_file, RunSpec& s) {
    auto use = [&](const char* name) { return !from_file || given(app, name); };
    if (use("--variant")) {
        s.variant = o.variant;
        s.module.clear();
        if (is_module_path(o.variant)) {
            s.variant = module_stem(o.variant);
            s.module = absolute_module_path(o.variant);
        }
    }
    if (given(app, "--module-inputs")) s.module_inputs = o.module_inputs;
    if (use("--batch")) s.batch = o.batch;
    if (use("--heads")) s.heads = o.heads;
    if (given(app, "--kv-heads"))
        s.kv_heads = o.kv_heads;
    else if (use("--heads"))
        s.kv_heads = s.heads;
    if (use("--seq")) s.seq_q = s.seq_k = o.seq;
    if (given(app, "--seq-q")) s.seq_q = o.seq_q;
    if (given(app, "--seq-k")) s.seq_k = o.seq_k;
    if (use("--head-dim")) s.head_dim = o.head_dim;
}

// The named choices (device, dtype, mode, mask, layout, SDPA backend) and the numbers that tune a run.
void apply_choices(const CLI::App& app, const SpecOptions& o, bool from_file, RunSpec& s,
                   std::vector<SpecProblem>& problems) {
    auto use = [&](const char* name) { return !from_file || given(app, name); };
    if (use("--device")) set_enum(o.device, "device", "cpu, cuda, cuda:N", parse_device, s.device, problems);
    if (given(app, "--dtype"))
        set_enum(o.dtype, "dtype", "float32, float64, float16, bfloat16", parse_dtype, s.dtype, problems);
    else if (!from_file)
        s.dtype = s.device.kind == DeviceKind::CUDA ? Dtype::Float16 : Dtype::Float32;
    if (use("--mode")) set_enum(o.mode, "mode", "forward, train", parse_mode, s.mode, problems);
    if (use("--mask")) set_enum(o.mask, "mask", "none, causal, padding, window", parse_mask, s.mask, problems);
    if (given(app, "--window")) s.window = o.window;
    if (given(app, "--key-lengths")) s.key_lengths = o.key_lengths;
    if (use("--layout")) set_enum(o.layout, "layout", "bhnd, bnhd", parse_layout, s.layout, problems);
    if (use("--sdpa-backend"))
        set_enum(o.sdpa_backend, "sdpa_backend", "auto, math, flash, efficient, cudnn", parse_sdpa_backend,
                 s.sdpa_backend, problems);
    if (use("--seed")) s.seed = o.seed;
    if (use("--threads")) s.threads = o.threads;
    if (use("--block-size")) s.block_size = o.block_size;
}

}  // namespace

RunSpec to_spec(const CLI::App& app, const SpecOptions& o, std::vector<SpecProblem>& problems) {
    // Without a file every option applies (with its default); with one, only those typed.
    const bool from_file = !o.spec_file.empty();
    RunSpec s = from_file ? spec_of_file(o.spec_file, problems) : RunSpec{};
    apply_shape(app, o, from_file, s);
    apply_choices(app, o, from_file, s, problems);
    return s;
}

}  // namespace awb::cli
