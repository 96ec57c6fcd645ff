// attnwb inspect: read chrome traces (ours or PyTorch's, .json or .json.gz) and print what they hold:
// a summary, the operator table (as attnwb profile prints it) and the kernels when device events exist.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

#include "cli_engine_call.h"
#include "memory_replay.h"
#include "op_table_text.h"
#include "results_text.h"
#include "trace_import.h"

namespace awb::cli {

namespace {

struct InspectCommand {
    std::vector<std::string> paths;
    size_t rows = 15;
    std::string sort;
    std::string json_path;
    bool quiet = false;
};

struct KernelRow {
    std::string name;
    int64_t calls = 0;
    int64_t total_ns = 0;
};

nlohmann::json inspect_one(const ImportedTrace& t, const std::string& path, const InspectCommand& c, SortKey sort) {
    const Trace& trace = t.trace;
    std::map<std::string, int64_t> by_kind;
    std::map<std::string, KernelRow> kernels;
    bool device = false;
    for (const auto& e : trace.events()) {
        ++by_kind[to_string(e.kind)];
        if (e.device != DeviceKind::CPU) device = true;
        if (e.kind == EventKind::Kernel) {
            auto& k = kernels[e.name];
            k.name = e.name;
            ++k.calls;
            k.total_ns += e.duration_ns();
        }
    }
    int64_t peak = 0;
    for (const auto& s : replay_memory(trace)) peak = std::max(peak, s.peak_bytes);
    std::cout << "=== " << path << (t.trace_name.empty() ? "" : "  (" + t.trace_name + ")") << " ===\n";
    std::cout << "duration " << format_ms(double(trace.end_ns() - trace.begin_ns())) << ", " << trace.events().size()
              << " events (";
    bool first = true;
    for (const auto& [kind, n] : by_kind) {
        std::cout << (first ? "" : ", ") << kind << " " << n;
        first = false;
    }
    std::cout << "), " << trace.threads().size() << " CPU thread(s), " << trace.memory().size() << " memory events, peak "
              << format_mib(peak) << ", " << format_mib(t.bytes_read) << " of JSON\n";
    std::vector<OperatorRow> rows = key_averages(trace);
    sort_rows(rows, sort);
    TableTextOptions table;
    table.row_limit = c.rows;
    table.device_columns = device;
    table.memory_columns = !trace.memory().empty();
    std::cout << format_table(rows, table);
    std::vector<KernelRow> ks;
    for (auto& [name, k] : kernels) ks.push_back(k);
    std::sort(ks.begin(), ks.end(), [](const KernelRow& a, const KernelRow& b) { return a.total_ns > b.total_ns; });
    if (!ks.empty()) {
        std::printf("%-60s %8s %14s %14s\n", "Kernel", "Calls", "Total", "Avg");
        for (size_t i = 0; i < ks.size() && (c.rows == 0 || i < c.rows); ++i)
            std::printf("%-60.60s %8lld %14s %14s\n", ks[i].name.c_str(), (long long)ks[i].calls,
                        format_ms(double(ks[i].total_ns)).c_str(), format_ms(double(ks[i].total_ns) / double(ks[i].calls)).c_str());
    }
    nlohmann::json kernels_json = nlohmann::json::array();
    for (const auto& k : ks)
        kernels_json.push_back({{"name", k.name}, {"calls", k.calls}, {"total_us", double(k.total_ns) / 1e3},
                                {"avg_us", double(k.total_ns) / 1e3 / double(k.calls)}});
    return {{"path", path},
            {"summary",
             {{"duration_us", double(trace.end_ns() - trace.begin_ns()) / 1e3},
              {"events", trace.events().size()},
              {"events_by_category", by_kind},
              {"cpu_threads", trace.threads().size()},
              {"memory_events", trace.memory().size()},
              {"peak_memory_bytes", peak},
              {"json_bytes", t.bytes_read}}},
            {"operators", rows},
            {"kernels", kernels_json}};
}

int run(const InspectCommand& c) {
    SortKey sort = SortKey::SelfCpu;
    if (!c.sort.empty() && !parse_sort_key(c.sort, sort)) {
        std::cerr << "attnwb inspect: invalid input:\nsort: '" << c.sort << "' is not one of " << sort_key_names() << "\n";
        return kExitBadInput;
    }
    StderrProgress progress(c.quiet);
    nlohmann::json out{{"schema", "attention-workbench/inspect"}, {"schema_version", 1}, {"traces", nlohmann::json::array()}};
    int rc = kExitOk;
    for (const auto& path : c.paths) {
        ImportedTrace t;
        try {
            t = import_chrome_trace(path, &progress);
            progress.end_line();
        } catch (const TraceImportError& e) {
            progress.end_line();
            std::cerr << "attnwb inspect: " << e.what() << "\n";
            rc = kExitBadInput;  // the other files are still read
            continue;
        } catch (const Cancelled&) {
            std::cerr << "attnwb inspect: cancelled\n";
            return kExitInterrupted;
        }
        out["traces"].push_back(inspect_one(t, path, c, sort));
    }
    const int written = write_outputs("inspect", [&] { write_output(c.json_path, out.dump(1) + "\n"); });
    return written != kExitOk ? written : rc;
}

}  // namespace

Command register_inspect(CLI::App& app) {
    auto c = std::make_shared<InspectCommand>();
    CLI::App* sub = app.add_subcommand(
        "inspect", "Read chrome traces (attnwb's or PyTorch's export_chrome_trace, .json or .json.gz, streamed) and "
                   "print a summary, the operator table and the kernels. A file that cannot be read gets one message "
                   "(exit 2) and the others are still shown.");
    sub->add_option("traces", c->paths, "Trace files")->required();
    sub->add_option("--rows", c->rows, "Rows to print (0 = all)")->capture_default_str();
    sub->add_option("--sort", c->sort, "Sort key: " + sort_key_names() + "; default self_cpu");
    sub->add_option("--json", c->json_path, "Write summary, operators and kernels as JSON (schema attention-workbench/inspect)");
    sub->add_flag("--quiet,-q", c->quiet, "No progress on stderr");
    return [c] { return run(*c); };
}

}  // namespace awb::cli
