// attnwb inspect: read chrome traces (ours or PyTorch's, .json or .json.gz) and print what they hold:
// a summary, the operator table (as attnwb profile prints it) and the kernels when device events exist.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "analysis/attention.h"
#include "analysis/attention_rules.h"
#include "analysis/collectives.h"
#include "analysis/comm_overlap.h"
#include "analysis/gpu_breakdown.h"
#include "analysis/idle_time.h"
#include "analysis/kernel_class_rules.h"
#include "analysis/kernel_table.h"
#include "analysis/kernel_table_text.h"
#include "analysis/memory_replay.h"
#include "analysis/op_table_text.h"
#include "analysis/rank_comparison.h"
#include "analysis/results_text.h"
#include "analysis/run_analysis.h"
#include "analysis/snapshot_frames.h"
#include "analysis/snapshot_ops_text.h"
#include "analysis/snapshot_text.h"
#include "io/json_write.h"
#include "io/memory_snapshot_read.h"
#include "cli_engine_call.h"
#include "cli_graph_replay.h"
#include "cli_options.h"
#include "cli_rank_summary.h"
#include "io/trace_files.h"
#include "io/trace_import.h"
#include "model/kernel_name.h"
#include "model/units.h"
#include "results/collectives_json.h"
#include "results/idle_json.h"
#include "results/results_file.h"
#include "results/results_formats.h"

namespace awb::cli {

namespace {

struct InspectCommand {
    std::vector<std::string> paths;
    size_t rows = 15;
    std::string sort;
    std::string json_path;
    std::vector<std::string> captures;  // --capture: the capture traces of the graphs the traces replay
    bool quiet = false;
    bool timing = false;
    bool distributed = false;
    bool separate_runs = false;
    bool breakdown = false;
    bool collectives = false;
    bool idle = false;
    bool ranks = false;
    int step = -1;        // --step: the ProfilerStep the ranks are compared in
    int rank = -1;        // --rank: one rank of the run, shown (or summarised) by itself
    std::string summary;  // --summary: where to write the rank's summary
    bool attention = false;
    bool rules = false;
    bool kernel_rules = false;  // --kernel-classes
    std::string frame;          // --frame: a memory snapshot's blocks allocated under frames containing this
    std::string trace;          // --trace: the profile of the snapshots' run, its operators named for their allocations
    std::string op;             // --op: with --trace, the allocations made while this operator ran
};

// The series with the highest quoted peak (the allocator's totals where the trace has them, else relative).
const MemorySeries* top_memory(const std::vector<MemorySeries>& memory) {
    const MemorySeries* top = nullptr;
    for (const auto& s : memory)
        if (!top || s.quoted_peak_bytes() > top->quoted_peak_bytes()) top = &s;
    return top;
}

void print_memory_peaks(const std::vector<MemorySeries>& memory) {
    for (const auto& s : memory)
        std::cout << "memory " << memory_series_label(s) << ": peak " << memory_peak_text(s) << "\n";
}

// Peak resident memory of this process so far (VmHWM), in bytes; 0 where /proc is missing.
int64_t peak_rss_bytes() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::atoll(line.c_str() + 6) * 1024;
    return 0;
}

// "ranks 0 1 of 2 (nccl): ..." or "rank 0 of 8 (nccl)", then one line per device the trace describes.
void print_ranks_and_devices(const ImportedTrace& t, const Trace& trace) {
    const std::string backend = t.backend.empty() ? "" : " (" + t.backend + ")";
    if (trace.meta().ranks.size() > 1) {
        std::cout << "ranks";
        for (int32_t r : trace.meta().ranks) std::cout << " " << r;
        std::cout << " of " << t.world_size << backend << ": operator rows sum over ranks\n";
    } else if (t.rank >= 0) {
        std::cout << "rank " << t.rank << " of " << t.world_size << backend << "\n";
    }
    for (const DeviceProperties& d : t.devices) std::cout << "device " << d.id << ": " << device_text(d) << "\n";
    for (const std::string& note : t.notes.run) std::cout << "note: " << note << "\n";
}

// What the trace's events show that a healthy recording cannot (analysis/trace_quality.h), when anything.
void print_quality(const TraceQuality& q) {
    const std::vector<std::string> lines = quality_lines(q);
    if (lines.empty()) return;
    std::cout << "trace quality:\n";
    for (const std::string& line : lines) std::cout << "  " << line << "\n";
}

// The attention calls against their roofs (the analysis's: the roof our own run measured, else the
// device table's for the GPU the trace names); printed and as JSON.
nlohmann::json print_attention(const RunAnalysis& analysis) {
    std::cout << format_attention(analysis.attention, analysis.roofs, analysis.gpu);
    return {{"calls", analysis.attention}, {"roofs", analysis.roofs}};
}

struct EventCounts {
    std::map<std::string, int64_t> by_kind;
    std::set<uint64_t> cpu_threads;
    std::set<std::pair<int, uint64_t>> streams;
};

EventCounts count_events(const Trace& trace) {
    EventCounts c;
    for (const auto& e : trace.events()) {
        ++c.by_kind[to_string(e.kind)];
        if (e.device != DeviceKind::CPU) {
            c.streams.insert({e.device_index, e.thread});
        } else if (e.kind != EventKind::Other) {
            c.cpu_threads.insert(e.thread);
        }
    }
    return c;
}

// inspect --json's "summary": what the header lines say.
nlohmann::json summary_json(const ImportedTrace& t, const Trace& trace, const EventCounts& counts,
                            const RunAnalysis& analysis) {
    const auto& [by_kind, cpu_threads, streams] = counts;
    const MemorySeries* top = top_memory(analysis.memory);
    const int64_t peak = top ? top->quoted_peak_bytes() : 0;
    return {{"trace_name", t.trace_name},
            {"duration_us", double(trace.end_ns() - trace.begin_ns()) / 1e3},
            {"events", trace.events().size()},
            {"events_by_kind", by_kind},
            {"events_by_category", t.categories},
            {"flow_events", t.flow_events},
            {"counter_events", t.counter_events},
            {"metadata_events", t.metadata_events},
            {"instant_events", t.instant_events},
            {"skipped_events", t.notes.skipped_events},
            {"warnings", t.notes.warnings},
            {"quality", analysis.quality},
            {"cpu_threads", cpu_threads.size()},
            {"device_streams", streams.size()},
            {"devices", t.devices},
            {"rank", t.rank},
            {"ranks", trace.meta().ranks},
            {"world_size", t.world_size},
            {"backend", t.backend},
            {"memory_events", trace.memory().size()},
            {"peak_memory_bytes", peak},
            {"peak_memory_basis", top ? memory_peak_basis(*top) : "none"},
            {"peak_reserved_bytes", top ? top->peak_reserved_bytes : -1},
            {"graph_capture", graph_capture_note(analysis.capture)},
            {"json_bytes", t.bytes_read}};
}

// t: the import's facts (its events taken out into run by open_traces).
nlohmann::json inspect_one(const ImportedTrace& t, const ProfileResult& run, const std::string& path,
                           const InspectCommand& c, SortKey sort) {
    const Trace& trace = run.trace;
    const EventCounts counts = count_events(trace);
    const auto& [by_kind, cpu_threads, streams] = counts;
    const RunAnalysis analysis = analyze_run(run);  // the tables, the memory replay and the roofs, once
    const MemorySeries* top = top_memory(analysis.memory);
    const int64_t peak = top ? top->quoted_peak_bytes() : 0;
    std::cout << "=== " << path << (t.trace_name.empty() ? "" : "  (" + t.trace_name + ")") << " ===\n";
    std::cout << "duration " << format_ms(double(trace.end_ns() - trace.begin_ns())) << ", " << trace.events().size()
              << " events (";
    bool first = true;
    for (const auto& [kind, n] : by_kind) {
        std::cout << (first ? "" : ", ") << kind << " " << n;
        first = false;
    }
    std::cout << "), " << cpu_threads.size() << " CPU thread(s), " << streams.size() << " device stream(s), "
              << trace.memory().size() << " memory events, peak " << format_mib(peak)
              << (top ? std::string(" (") + memory_peak_basis(*top) + ")" : std::string()) << ", "
              << format_mib(t.bytes_read) << " of JSON\n";
    print_memory_peaks(analysis.memory);
    print_ranks_and_devices(t, trace);
    if (const std::string note = graph_capture_note(analysis.capture); !note.empty()) std::cout << note << "\n";
    std::cout << "also: " << t.flow_events << " flow, " << t.counter_events << " counter, " << t.metadata_events
              << " metadata, " << t.instant_events << " instant events\n";
    if (t.notes.skipped_events > 0) {
        std::cerr << "attnwb inspect: " << path << ": " << t.notes.skipped_events << " event(s) skipped:\n";
        for (const auto& w : t.notes.warnings) std::cerr << "  " << w << "\n";
    }
    print_quality(analysis.quality);
    std::vector<OperatorRow> rows = analysis.operators;
    sort_rows(rows, sort);
    TableTextOptions table;
    table.row_limit = c.rows;
    table.device_columns = analysis.device_columns;
    table.memory_columns = !trace.memory().empty();
    std::cout << format_table(rows, table);
    const std::vector<KernelRow>& ks = analysis.kernels;
    std::cout << format_kernel_table(ks, c.rows) << format_kernel_classes(ks);
    const nlohmann::json kernels_json = ks;
    const nlohmann::json classes_json = kernel_classes_json(ks);
    nlohmann::json breakdown_json = nullptr;
    if (c.breakdown) {
        const std::vector<GpuBreakdown>& breakdown = analysis.gpu;  // part of the run's analysis, computed above
        if (breakdown.empty()) std::cout << "GPU time breakdown: the trace has no kernels, copies or sets\n";
        std::cout << format_gpu_breakdown(breakdown);
        breakdown_json = breakdown;
    }
    const nlohmann::json attention_json = c.attention ? print_attention(analysis) : nlohmann::json(nullptr);
    nlohmann::json collectives = nullptr;
    if (c.collectives) {
        std::cout << format_collectives(analysis.collectives, c.rows) << format_overlap(analysis.overlap)
                  << format_attention_comm(analysis.overlap.attention, c.rows);
        collectives = collectives_json(analysis.collectives, analysis.overlap);
    }
    nlohmann::json idle = nullptr;
    if (c.idle) {
        const IdleReport report = idle_time(trace, LaunchCalls(trace));
        std::cout << format_idle(report, c.rows);
        idle = idle_json(report);
    }
    nlohmann::json ranks = nullptr;
    if (c.ranks) {
        const RankComparison compared = compare_ranks(trace, analysis, c.step);
        std::cout << format_rank_comparison(compared, c.rows);
        ranks = rank_comparison_json(compared);
    }
    nlohmann::json entry = {{"path", path},
                            {"collectives", collectives},
                            {"ranks", ranks},
                            {"summary", summary_json(t, trace, counts, analysis)},
                            {"operators", rows},
                            {"kernels", kernels_json},
                            {"kernel_classes", classes_json},
                            {"gpu_breakdown", breakdown_json},
                            {"attention", attention_json}};
    if (!idle.is_null()) entry.update(idle);  // idle[], idle_hta, idle_gaps beside gpu_breakdown
    return entry;
}

// What was given: a folder is one distributed run (one trace per rank; it may hold capture_traces/),
// --distributed merges the files given, else each file is one trace. A folder without traces is said
// and rc set; the rest are still read.
struct Inputs {
    std::vector<std::vector<std::string>> files;
    std::map<size_t, std::string> folders;  // the inputs given as a folder
};

Inputs group_inputs(const InspectCommand& c, int& rc) {
    Inputs in;
    for (const auto& path : c.paths) {
        const bool glob = is_trace_glob(path);  // a glob's files are one run, as a folder's
        if (glob || std::filesystem::is_directory(path)) {
            try {
                in.files.push_back(trace_files_of(path));
                if (!glob) in.folders[in.files.size() - 1] = path;
            } catch (const TraceImportError& e) {
                std::cerr << "attnwb inspect: " << e.what() << "\n";
                rc = kExitBadInput;
            }
        } else if (c.distributed && !in.files.empty()) {
            in.files.back().push_back(path);
        } else {
            in.files.push_back({path});
        }
    }
    return in;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// --trace: the snapshot's allocations by the operators of the profile of the same run, printed; the
// JSON, or null when the trace cannot be read (said, exit 2).
nlohmann::json inspect_snapshot_ops(const MemorySnapshot& snapshot, const SnapshotTimeline& timeline,
                                    const SnapshotOptions& options, const InspectCommand& c, int& rc) {
    try {
        const ImportedTrace imported = import_chrome_trace(c.trace);
        const SnapshotOps ops = attribute_allocations(snapshot, imported.trace);
        const SnapshotOpsView view =
            snapshot_ops_view(snapshot, imported.trace, timeline, options, ops, c.trace, c.op, int(c.rows));
        std::cout << format_snapshot_ops(view);
        return snapshot_ops_json(view);
    } catch (const TraceImportError& e) {
        std::cerr << "attnwb inspect: --trace: " << e.what() << "\n";
        rc = kExitBadInput;
        return nullptr;
    }
}

// A memory snapshot (a pickle): its replay, printed and added to out["snapshots"].
void inspect_snapshot(const std::string& path, const InspectCommand& c, StderrProgress& progress, nlohmann::json& out,
                      int& rc) {
    try {
        const auto started = std::chrono::steady_clock::now();
        StreamedReplay replay;  // beside the reading (a frame filter, which needs the stacks first, replays after)
        const MemorySnapshot snapshot =
            read_memory_snapshot(path, SnapshotReading::Streamed, &progress, c.frame.empty() ? &replay : nullptr);
        progress.end_line();
        SnapshotOptions options;
        if (!c.frame.empty()) options.keep = stacks_matching(snapshot, c.frame);
        const SnapshotTimeline timeline = replay.finish(snapshot, options);
        if (c.timing)
            std::fprintf(
                stderr,
                "attnwb inspect: %s: snapshot read and replayed in %.3f s (%lld of %lld events replayed beside the "
                "reading), peak RSS %.0f MiB\n",
                path.c_str(), seconds_since(started), (long long)replay.replayed_beside(),
                (long long)snapshot.event_count(), double(peak_rss_bytes()) / 1048576.0);
        std::cout << "memory snapshot " << path << ": " << format_snapshot(snapshot, timeline, int(c.rows), c.frame);
        nlohmann::json j = snapshot_json(snapshot, timeline, c.frame);
        j["path"] = path;
        if (!c.trace.empty()) j["operators"] = inspect_snapshot_ops(snapshot, timeline, options, c, rc);
        out["snapshots"].push_back(std::move(j));
    } catch (const Cancelled&) {
        throw;                           // Ctrl-C: inspect_input stops there
    } catch (const std::exception& e) {  // the pickle, its layout, or the file
        progress.end_line();
        std::cerr << "attnwb inspect: " << e.what() << "\n";
        rc = kExitBadInput;
    }
}

// " (ranks 0-3 of 4)" for one run of several opened separately.
std::string run_label(const ResultsFile& f) {
    const ImportedTrace& t = *f.import;
    const auto& ranks = f.run->trace.meta().ranks;
    if (ranks.empty()) return "";
    return " (rank" + std::string(ranks.size() > 1 ? "s " : " ") + std::to_string(ranks.front()) +
           (ranks.size() > 1 ? "-" + std::to_string(ranks.back()) : "") +
           (t.world_size > 0 ? " of " + std::to_string(t.world_size) : "") + ")";
}

// --rank: each run narrowed to the rank (a run without it is said, rc 2, and not shown); --summary: the
// rank's summary written instead of the tables. False when nothing is left to show.
bool narrow_and_summarise(std::vector<ResultsFile>& runs, const InspectCommand& c, int& rc) {
    if (c.rank >= 0) {
        std::vector<ResultsFile> kept;
        for (ResultsFile& f : runs) {
            std::string why;
            if (select_rank(f, c.rank, why)) {
                kept.push_back(std::move(f));
            } else {
                std::cerr << "attnwb inspect: " << f.path << ": " << why << "\n";
                rc = kExitBadInput;
            }
        }
        runs = std::move(kept);
    }
    if (c.summary.empty() || runs.empty()) return !runs.empty();
    try {
        std::cout << write_rank_summary(runs.front(), c.summary);
    } catch (const std::exception& e) {  // several ranks, or a file that cannot be written
        std::cerr << "attnwb inspect: " << e.what() << "\n";
        rc = kExitBadInput;
    }
    return false;
}

// Reads input i and adds what inspect says of it to out. False when the read was cancelled.
bool inspect_input(const Inputs& in, size_t i, const InspectCommand& c, SortKey sort, StderrProgress& progress,
                   nlohmann::json& out, int& rc) {
    const std::vector<std::string>& files = in.files[i];
    const std::string path =
        files.size() == 1 ? files.front() : files.front() + " (+" + std::to_string(files.size() - 1) + " more)";
    if (files.size() == 1 && !in.folders.count(i) && recognised_kind(files.front()) == ResultsKind::MemorySnapshot) {
        try {
            inspect_snapshot(files.front(), c, progress, out, rc);
        } catch (const Cancelled&) {
            progress.end_line();
            return false;
        }
        return true;
    }
    std::vector<ResultsFile> runs;
    try {
        const auto started = std::chrono::steady_clock::now();
        const TraceSelection traces{files, in.folders.count(i) ? in.folders.at(i) : "", c.captures};
        try {
            runs.push_back(open_traces(traces, &progress));
        } catch (const MixedRunsError& e) {
            if (!c.separate_runs) throw TraceImportError(std::string(e.what()) + " (--separate-runs)");
            progress.end_line();
            std::cerr << "attnwb inspect: " << path << ": " << e.runs().size()
                      << " runs, shown one by one (--separate-runs)\n";
            runs = open_trace_runs(traces, &progress);
        }
        const ResultsFile& f = runs.front();
        progress.end_line();
        if (f.graph_replay && !print_graph_replay(*f.graph_replay))
            rc = kExitBadInput;  // a capture that does not serve
        if (c.timing) {
            const double s = seconds_since(started);
            std::fprintf(
                stderr,
                "attnwb inspect: %s: read %.1f MB of JSON in %.3f s (%.0f MB/s), peak RSS %.0f MiB after reading\n",
                path.c_str(), double(f.import->bytes_read) / 1e6, s, double(f.import->bytes_read) / 1e6 / s,
                double(peak_rss_bytes()) / 1048576.0);
        }
    } catch (const TraceImportError& e) {
        progress.end_line();
        std::cerr << "attnwb inspect: " << e.what() << "\n";
        rc = kExitBadInput;  // the other files are still read
        return true;
    } catch (const Cancelled&) {
        progress.end_line();
        return false;
    }
    if (!narrow_and_summarise(runs, c, rc)) return true;
    const auto tables_started = std::chrono::steady_clock::now();
    for (const ResultsFile& f : runs) {
        out["traces"].push_back(
            inspect_one(*f.import, *f.run, runs.size() == 1 ? path : f.path + run_label(f), c, sort));
        if (f.graph_replay) out["traces"].back()["graph_replay"] = graph_replay_json(*f.graph_replay);
    }
    if (c.timing)
        std::fprintf(stderr, "attnwb inspect: tables analysed and printed in %.3f s, peak RSS %.0f MiB after them\n",
                     seconds_since(tables_started), double(peak_rss_bytes()) / 1048576.0);
    return true;
}

int run(const InspectCommand& c) {
    if (c.rules || c.kernel_rules) {
        std::cout << (c.rules ? format_attention_rules() : std::string())
                  << (c.kernel_rules ? format_kernel_class_rules() : std::string());
        return kExitOk;
    }
    if (c.paths.empty()) {
        std::cerr << "attnwb inspect: invalid input:\ntraces: give one or more trace files (or a folder)\n";
        return kExitBadInput;
    }
    SortKey sort = SortKey::SelfCpu;
    if (!c.sort.empty() && !parse_sort_key(c.sort, sort)) {
        std::cerr << "attnwb inspect: invalid input:\nsort: '" << c.sort << "' is not one of " << sort_key_names()
                  << "\n";
        return kExitBadInput;
    }
    // Ctrl-C once: the trace being read is finished, the rest are not read; twice: the one being read is
    // dropped. Either way the traces read before are printed and written (--json), exit 130.
    StderrProgress progress(c.quiet, /*keep_finished=*/true);
    nlohmann::json out{
        {"schema", "attention-workbench/inspect"}, {"schema_version", 1}, {"traces", nlohmann::json::array()}};
    int rc = kExitOk;
    const Inputs in = group_inputs(c, rc);
    if (!c.summary.empty() && in.files.size() != 1) {
        std::cerr << "attnwb inspect: invalid input:\nsummary: give one rank's trace (or a run's files with --rank)\n";
        return kExitBadInput;
    }
    for (size_t i = 0; i < in.files.size() && !progress.interrupted(); ++i)
        if (!inspect_input(in, i, c, sort, progress, out, rc)) break;
    if (progress.interrupted()) {
        out["interrupted"] = true;
        const size_t read = out["traces"].size() + (out.contains("snapshots") ? out["snapshots"].size() : 0);
        std::cerr << "attnwb inspect: interrupted: " << read << " of " << in.files.size() << " file(s) read"
                  << (c.json_path.empty() ? "" : ", and written") << "\n";
        rc = kExitInterrupted;
    }
    const int written = write_outputs("inspect", [&] { write_output(c.json_path, our_file_text(out)); });
    return written != kExitOk ? written : rc;
}

// The options of a run of several ranks: checked as one run or shown as separate runs, the collectives,
// the ranks compared, one rank chosen, a rank's summary.
void add_rank_options(CLI::App& sub, InspectCommand& c) {
    sub.add_flag(
        "--distributed", c.distributed,
        "The files are the ranks of one run: show them as one trace (a folder is read so too); they are checked to be "
        "one run (--separate-runs)");
    sub.add_flag(
        "--separate-runs", c.separate_runs,
        "Files (or a folder) that are not the ranks of one run (another world size, backend, process groups, a rank "
        "twice, another clock) are refused by name; with this flag each run they make is shown by itself");
    sub.add_flag(
        "--collectives", c.collectives,
        "Every collective call on every rank (c10d ops, record_param_comms, nccl:* / gloo:* annotations and their "
        "kernels): bytes, transfer time, bus bandwidth, process group, step; matched across ranks by group and order "
        "with the arrival skew, each rank's wait and the straggler; and the communication hidden under computation "
        "or exposed, per rank and step (docs/inspect.md: Collectives)");
    sub.add_flag(
        "--ranks", c.ranks,
        "The ranks compared in one ProfilerStep (--step, default: the step where they differ most): each rank's step, "
        "GPU computation, communication, exposed communication, idle, its waits at collectives and the waits it "
        "caused; "
        "then the slowest rank against the fastest, operator by operator over the step");
    sub.add_option("--step", c.step, "With --ranks: the ProfilerStep#K to compare the ranks in")->type_name("K");
    sub.add_option("--rank", c.rank,
                   "Only rank R of a run of several ranks (its operator and kernel tables, GPU time breakdown and "
                   "collectives); "
                   "a file of one rank must be that rank")
        ->type_name("R")
        ->check(CLI::NonNegativeNumber);
    sub.add_option(
           "--summary", c.summary,
           "Write the rank's summary to FILE (.json.gz: compressed) instead of the tables: its kernels, steps and "
           "collective "
           "calls whole, the ops nested in other ops, Python frames and memory events left out. Made where each rank's "
           "trace "
           "lies (scripts/slurm/summarize.sbatch), the summaries open together as the run, collectives matched across "
           "them "
           "(docs/inspect.md: Rank summaries)")
        ->type_name("FILE");
}

// The options for memory snapshots: a frame filter, the run's trace and an operator's allocations.
void add_snapshot_options(CLI::App& sub, InspectCommand& c) {
    sub.add_option("--frame", c.frame,
                   "Memory snapshots: count only the blocks with a stack frame containing TEXT (case-insensitive; e.g. "
                   "--frame attention: what was allocated under it), for the peak, its blocks and the frames")
        ->type_name("TEXT");
    CLI::Option* trace =
        sub.add_option(
               "--trace", c.trace,
               "Memory snapshots: the chrome trace of the same run (profiled while the snapshot recorded; both clocks "
               "count "
               "from the epoch): each allocation is given to the operator running when it was made, and the operators "
               "are "
               "listed by the bytes they hold at the peak inside the trace (a snapshot of a whole run also holds its "
               "warm-up)")
            ->type_name("FILE");
    sub.add_option("--op", c.op,
                   "Memory snapshots, with --trace: list the allocations made while operators named NAME ran "
                   "(by them or an operator under them), e.g. --op aten::bmm")
        ->type_name("NAME")
        ->needs(trace);
}

}  // namespace

Command register_inspect(CLI::App& app) {
    auto c = std::make_shared<InspectCommand>();
    CLI::App* sub = app.add_subcommand(
        "inspect",
        "Read chrome traces (attnwb's or PyTorch's export_chrome_trace / tensorboard_trace_handler, .json or "
        ".json.gz, streamed; a folder is one distributed run) and "
        "print a summary, the operator table and the kernels; or CUDA memory snapshots "
        "(torch.cuda.memory._dump_snapshot "
        "pickles, plain or gzip) and print the peak, the blocks alive at it with their stacks, the bytes under each "
        "frame "
        "and the blocks alive before recording began. A file that cannot be read gets one message "
        "(exit 2) and the others are still shown.");
    sub->add_option("traces", c->paths, "Trace files (or memory snapshots)");
    sub->add_flag(
        "--attention-rules", c->rules,
        "Print the table of attention rules (which ops and kernels are attention, whose, and where their inputs hold "
        "Q, K, "
        "V) and exit; needs no trace");
    sub->add_flag(
        "--kernel-classes", c->kernel_rules,
        "Print the rules that give each kernel, copy and set its class (GEMM, attention, communication, ...), in the "
        "order "
        "they are checked, and exit; needs no trace");
    add_rows_option(*sub, c->rows);
    add_sort_option(*sub, c->sort, "default self_cpu");
    add_json_option(*sub, c->json_path, "summary, operators and kernels", "inspect");
    add_quiet_option(*sub, c->quiet);
    add_capture_option(*sub, c->captures);
    add_rank_options(*sub, *c);
    sub->add_flag(
        "--breakdown", c->breakdown,
        "Where each GPU's time goes, per rank and ProfilerStep: computation, communication (NCCL/RCCL), memcpy, "
        "memset, idle, exposed communication and memcpy (intervals merged across streams; docs/inspect.md: GPU time "
        "breakdown)");
    sub->add_flag("--idle", c->idle,
                  "Why each device stream idles, per rank, stream and ProfilerStep, as HolisticTraceAnalysis splits "
                  "it: host wait (the launch came after the previous kernel ended), kernel wait (launched in time, a "
                  "gap under 30 us), other; the figure HTA 0.5.0 prints beside it; the longest gaps with the op and "
                  "Python frame that held their launch (docs/inspect.md: Idle time)");
    sub->add_flag(
        "--attention", c->attention,
        "Every attention call (scaled_dot_product_attention and its backends' ops; vLLM, SGLang, FlashInfer, "
        "flash-attn, "
        "xformers, aiter, TensorRT-LLM, FlexAttention and Triton ops and kernels; matmul -> softmax -> matmul written "
        "out; forward and backward): shapes, backend, causal, CPU and device time and its share of the GPUs' busy "
        "time, "
        "FLOPs, bytes, TFLOP/s and GB/s, and why a number is unknown (docs/inspect.md: Attention calls; "
        "--attention-rules)");
    add_snapshot_options(*sub, *c);
    sub->add_flag("--timing", c->timing, "Print the read time, MB/s and peak resident memory on stderr");
    return [c] { return run(*c); };
}

}  // namespace awb::cli
