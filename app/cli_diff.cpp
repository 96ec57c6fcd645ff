// attnwb diff A B: two runs or traces compared operator by operator (and kernel by kernel when they
// have device events): deltas and ratios of calls, self CPU / device time and memory, new and
// vanished operators, largest impact first. A and B are profile reports (attnwb profile --json) or
// chrome traces (ours or PyTorch's, .json / .json.gz). Two benchmarks (attnwb bench --json) are
// compared by their timed samples instead: B / A with a bootstrap interval (analysis/bench_diff.h).
// Runs and traces get a verdict first: which is faster per step, by how much and whether beyond the
// noise, on step time, device time and peak memory per step (analysis/run_verdict.h). Two CUDA memory
// snapshots are compared by the frames that allocated their blocks (analysis/snapshot_diff.h). Runs of
// several ranks also by their collectives (analysis/collective_diff.h).
#include <cstdio>
#include <iostream>
#include <memory>

#include "analysis/bench_diff.h"
#include "analysis/collective_diff.h"
#include "analysis/kernel_table.h"
#include "analysis/op_diff.h"
#include "analysis/op_diff_columns.h"
#include "analysis/op_table.h"
#include "analysis/run_verdict.h"
#include "analysis/snapshot_diff.h"
#include "io/json_write.h"
#include "cli_engine_call.h"
#include "cli_options.h"
#include "results/results_file.h"
#include "results/run_json.h"

namespace awb::cli {

namespace {

struct DiffCommand {
    std::string a, b;
    size_t rows = 20;
    bool group_by_shape = false;
    std::string json_path;
    bool quiet = false;
};

struct Side {
    std::vector<StepSample> steps;  // per recorded step: wall, device time, peak memory
    std::vector<OperatorRow> operators;
    std::vector<KernelRow> kernels;
    CollectiveReport collectives;  // a trace's: its collectives across ranks and their overlap
    OverlapReport overlap;
    std::string what;  // "profile report" or "chrome trace"
};

Side side_of(const ResultsFile& f, bool group_by_shape) {
    const std::string& path = f.path;
    Side s;
    s.what = f.format;
    if (f.kind == ResultsKind::Trace) {
        const RunAnalysis analysis = analyze_run(*f.run);
        s.operators = group_by_shape ? key_averages(f.run->trace, OpTableOptions{true}) : analysis.operators;
        s.kernels = analysis.kernels;
        s.steps = step_samples(*f.run, analysis);
        s.collectives = analysis.collectives;
        s.overlap = analysis.overlap;
        return s;
    }
    if (f.kind != ResultsKind::ProfileReport)
        throw std::runtime_error("'" + path + "' is a " + s.what +
                                 ", not a profile report (attnwb profile --json) or a chrome trace");
    if (group_by_shape && !f.report->grouped_by_shape)
        throw std::runtime_error(
            "'" + path + "' was not grouped by input shape (profile it with --group-by-shape, or diff its trace)");
    s.operators = f.report->operators;
    if (f.run) s.steps = step_samples(*f.run, RunAnalysis{});  // the report's recorded steps: wall times only
    return s;
}

std::string us(int64_t ns) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", double(ns) / 1e3);
    return buf;
}

std::string signed_us(int64_t ns) { return (ns > 0 ? "+" : "") + us(ns); }

std::string ratio(int64_t a, int64_t b) {
    if (a == 0) return b == 0 ? "-" : "new";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2fx", double(b) / double(a));
    return buf;
}

nlohmann::json verdict_json(const std::vector<MeasureVerdict>& verdict) {
    nlohmann::json out = nlohmann::json::array();
    for (const MeasureVerdict& v : verdict)
        out.push_back({{"measure", measure_name(v.measure)},
                       {"known", v.known},
                       {"steps_a", v.n_a},
                       {"steps_b", v.n_b},
                       {"median_a", v.median_a},
                       {"median_b", v.median_b},
                       {"unit", v.measure == VerdictMeasure::PeakMemory ? "bytes" : "ns"},
                       {"ratio_b_over_a", v.ratio.ratio},
                       {"ratio_interval", v.ratio.interval},
                       {"beyond_noise", v.beyond_noise},
                       {"text", v.text}});
    return out;
}

// The sides, the verdict per recorded step, and the totals.
void print_summary(const DiffCommand& c, const Side& a, const Side& b, const std::vector<MeasureVerdict>& verdict) {
    const OpTableTotals ta = totals(a.operators), tb = totals(b.operators);
    std::cout << "A: " << c.a << " (" << a.what << ", " << a.operators.size() << " operators)\n"
              << "B: " << c.b << " (" << b.what << ", " << b.operators.size() << " operators)\n"
              << "Verdict (per recorded step, B against A; 95% percentile bootstrap of the ratio of medians):\n";
    for (const MeasureVerdict& v : verdict) std::cout << "  " << v.text << "\n";
    std::cout << "Self CPU total: A " << us(ta.self_cpu_ns) << " us, B " << us(tb.self_cpu_ns) << " us ("
              << signed_us(tb.self_cpu_ns - ta.self_cpu_ns) << " us, " << ratio(ta.self_cpu_ns, tb.self_cpu_ns) << ")";
    if (ta.self_device_ns || tb.self_device_ns)
        std::cout << "; self device total: A " << us(ta.self_device_ns) << " us, B " << us(tb.self_device_ns) << " us ("
                  << signed_us(tb.self_device_ns - ta.self_device_ns) << " us)";
    std::cout << "\n";
}

// A cell of the text table: times in us with one decimal, bytes and calls as integers, "+" on a delta
// that grew; the rest as the GUI shows it (analysis/op_diff_columns.h).
std::string text_cell(const OperatorDiffRow& r, const DiffColumnInfo& c) {
    const double v = diff_value(r, c.id);
    std::string text;
    if (c.id == DiffColumn::Name)
        text = r.input_shapes.empty() ? r.name : r.name + " " + r.input_shapes;
    else if (c.unit == CellUnit::Duration)
        text = us(int64_t(v));
    else if (c.unit == CellUnit::Count && c.id != DiffColumn::SelfCpuRatio)
        text = std::to_string(int64_t(v));
    else if (c.unit == CellUnit::Bytes)
        text = std::to_string(int64_t(v));
    else
        return diff_cell(r, c.id);
    return c.delta && v > 0 ? "+" + text : text;
}

void print_operators(const std::vector<OperatorDiffRow>& rows, size_t limit) {
    std::cout << "Operators by impact (|self CPU delta| + |self device delta|), times in us:\n";
    const std::vector<DiffColumnInfo> columns = columns_in(diff_columns(), kInText);
    std::string header;
    for (const DiffColumnInfo& c : columns)
        header += (header.empty() ? "" : " ") + fit_cell(c.text_title, c.text_width);
    std::cout << header << "\n";
    for (size_t i = 0; i < rows.size() && (limit == 0 || i < limit); ++i) {
        std::string line;
        for (const DiffColumnInfo& c : columns)
            line += (line.empty() ? "" : " ") + fit_cell(text_cell(rows[i], c), c.text_width);
        std::cout << line << "\n";
    }
    if (limit != 0 && rows.size() > limit)
        std::cout << "(" << rows.size() - limit << " more rows; --rows 0 shows all)\n";
}

void print_kernels(const std::vector<KernelDiffRow>& kernels, size_t limit) {
    if (kernels.empty()) return;
    std::cout << "Kernels by |total time delta|, times in us:\n";
    std::printf("%-56s %-9s %7s %7s %12s %12s %12s\n", "Kernel / copy", "In", "Calls A", "Calls B", "Total A",
                "Total B", "Delta");
    for (size_t i = 0; i < kernels.size() && (limit == 0 || i < limit); ++i) {
        const auto& k = kernels[i];
        std::printf("%-56.56s %-9s %7lld %7lld %12s %12s %12s\n", k.name.c_str(),
                    k.in_a && k.in_b ? "both"
                    : k.in_a         ? "vanished"
                                     : "new",
                    (long long)k.calls_a, (long long)k.calls_b, us(k.total_a_ns).c_str(), us(k.total_b_ns).c_str(),
                    signed_us(k.delta_ns()).c_str());
    }
}

int diff_benches(const DiffCommand& c, const BenchResult& a, const BenchResult& b) {
    const BenchDiff d = diff_benches(a, b);
    std::cout << format_bench_diff(d, a, b, c.a, c.b);
    return write_outputs("diff", [&] {
        if (c.json_path.empty()) return;
        write_output(c.json_path, our_file_text(nlohmann::json{{"schema", "attention-workbench/diff"},
                                                               {"schema_version", 1},
                                                               {"kind", "bench"},
                                                               {"a", c.a},
                                                               {"b", c.b},
                                                               {"median_a_ns", d.median_a_ns},
                                                               {"median_b_ns", d.median_b_ns},
                                                               {"ratio_b_over_a", d.ratio.ratio},
                                                               {"ratio_interval", d.ratio.interval},
                                                               {"b_faster_share", d.ratio.b_faster},
                                                               {"verdict", d.verdict},
                                                               {"differences", d.differences}}));
    });
}

int diff_snapshots(const DiffCommand& c, const ResultsFile& a, const ResultsFile& b) {
    const SnapshotDiff d = diff_snapshots(*a.snapshot, *a.snapshot_timeline, *b.snapshot, *b.snapshot_timeline);
    std::cout << format_snapshot_diff(d, c.a, c.b, c.rows);
    return write_outputs("diff", [&] {
        if (c.json_path.empty()) return;
        nlohmann::json j = {{"schema", "attention-workbench/diff"},
                            {"schema_version", 1},
                            {"kind", "memory-snapshot"},
                            {"a", c.a},
                            {"b", c.b}};
        j.update(snapshot_diff_json(d));
        write_output(c.json_path, our_file_text(j));
    });
}

// Two of a kind compared by their own measure (benchmarks, memory snapshots): its exit code; -1 for runs
// and traces, which the operator tables compare. One of a kind against another kind is refused.
int diff_of_a_kind(const DiffCommand& c, const ResultsFile& fa, const ResultsFile& fb) {
    for (const ResultsKind kind : {ResultsKind::Bench, ResultsKind::MemorySnapshot}) {
        if (fa.kind != kind && fb.kind != kind) continue;
        if (fa.kind == fb.kind)
            return kind == ResultsKind::Bench ? diff_benches(c, *fa.bench, *fb.bench) : diff_snapshots(c, fa, fb);
        const bool a_is = fa.kind == kind;
        throw std::runtime_error("'" + (a_is ? c.a : c.b) + "' is a " + to_string(kind) + " and '" +
                                 (a_is ? c.b : c.a) + "' is not: a " + to_string(kind) + " is compared with another " +
                                 to_string(kind));
    }
    return -1;
}

int run(const DiffCommand& c) {
    StderrProgress progress(c.quiet);
    Side a, b;
    int own_rc = -1;  // two benchmarks or snapshots: their comparison's exit code
    const int read = read_inputs("diff", progress, [&] {
        // Runs and benchmarks are compared; a file of another kind is refused before it is read.
        const unsigned comparable = kind_bit(ResultsKind::Trace) | kind_bit(ResultsKind::ProfileReport) |
                                    kind_bit(ResultsKind::Bench) | kind_bit(ResultsKind::MemorySnapshot);
        const SnapshotOptions replayed;  // a snapshot's replay, beside its reading
        const ResultsFile fa = open_results_file(c.a, &progress, comparable, &replayed),
                          fb = open_results_file(c.b, &progress, comparable, &replayed);
        progress.end_line();
        if ((own_rc = diff_of_a_kind(c, fa, fb)) >= 0) return;
        a = side_of(fa, c.group_by_shape);
        b = side_of(fb, c.group_by_shape);
    });
    if (read != kExitOk) return read;
    if (own_rc >= 0) return own_rc;
    const auto rows = join_operators(a.operators, b.operators);
    std::vector<MeasureVerdict> verdict;
    for (VerdictMeasure m : {VerdictMeasure::StepTime, VerdictMeasure::DeviceTime, VerdictMeasure::PeakMemory})
        verdict.push_back(compare_measure(m, a.steps, b.steps));
    print_summary(c, a, b, verdict);
    print_operators(rows, c.rows);
    const auto kernels = join_kernels(a.kernels, b.kernels);
    print_kernels(kernels, c.rows);
    const CollectiveDiff collectives = diff_collectives(a.collectives, a.overlap, b.collectives, b.overlap);
    std::cout << format_collective_diff(collectives, c.rows);
    return write_outputs("diff", [&] {
        if (c.json_path.empty()) return;
        nlohmann::json ops = nlohmann::json::array();
        for (const auto& r : rows)
            ops.push_back({{"name", r.name},
                           {"input_shapes", r.input_shapes},
                           {"in_a", r.in_a},
                           {"in_b", r.in_b},
                           {"a", r.a},
                           {"b", r.b},
                           {"self_cpu_delta_us", double(r.self_cpu_delta_ns()) / 1e3},
                           {"self_device_delta_us", double(r.self_device_delta_ns()) / 1e3},
                           {"calls_delta", r.b.calls - r.a.calls}});
        nlohmann::json ks = nlohmann::json::array();
        for (const auto& k : kernels)
            ks.push_back({{"name", k.name},
                          {"in_a", k.in_a},
                          {"in_b", k.in_b},
                          {"calls_a", k.calls_a},
                          {"calls_b", k.calls_b},
                          {"total_a_us", double(k.total_a_ns) / 1e3},
                          {"total_b_us", double(k.total_b_ns) / 1e3},
                          {"delta_us", double(k.delta_ns()) / 1e3}});
        write_output(
            c.json_path,
            our_file_text(nlohmann::json{
                {"schema", "attention-workbench/diff"},
                {"schema_version", 1},
                {"a", c.a},
                {"b", c.b},
                {"verdict", verdict_json(verdict)},
                {"operators", ops},
                {"kernels", ks},
                {"collectives", collectives.empty() ? nlohmann::json(nullptr) : collective_diff_json(collectives)}}));
    });
}

}  // namespace

Command register_diff(CLI::App& app) {
    auto c = std::make_shared<DiffCommand>();
    CLI::App* sub = app.add_subcommand(
        "diff",
        "Compare two runs or traces: first a verdict per recorded step (step time, device time, peak memory: B / A "
        "of the medians with a 95% bootstrap interval over the steps, beyond noise or not; a trace's steps are its "
        "ProfilerStep#k spans), then operator by operator (and kernel by kernel): deltas and ratios of calls, "
        "self CPU and device time and memory, new and vanished operators, largest impact first. A and B are "
        "profile reports (attnwb profile --json) or chrome traces (.json / .json.gz). Two benchmarks (attnwb bench "
        "--json) "
        "are compared by their timed samples: B / A median time with a 95% bootstrap interval, and whether B is "
        "faster. "
        "Two CUDA memory snapshots (torch.cuda.memory._dump_snapshot pickles) are compared by the frame that allocated "
        "their blocks: bytes and blocks at each peak, allocations over each trace, what is new in B and what is gone. "
        "Exit 2 when one cannot be read.");
    sub->add_option("A", c->a, "The baseline")->required();
    sub->add_option("B", c->b, "The run compared with it")->required();
    add_rows_option(*sub, c->rows);
    sub->add_flag("--group-by-shape", c->group_by_shape, "Match operators by name and input shapes");
    add_json_option(*sub, c->json_path, "the joined rows (benchmarks: the ratio and its interval)", "diff");
    add_quiet_option(*sub, c->quiet);
    return [c] { return run(*c); };
}

}  // namespace awb::cli
