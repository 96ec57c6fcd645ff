// libFuzzer targets for the readers of our own files, one per reader, built from this source
// with AWB_FUZZ_READER set to report, bench, sweep, check, workspace, diff or merge (the shards of a
// sweep) (tests/fuzz/CMakeLists.txt).
// A file is read as the CLI and the GUI read it (open_results_file, load_workspace), then used as they
// use it: advisor, checklist, text tables, the HTML report, the sweep's fits, the benchmark diff.
// Findings: a crash or sanitizer report; an exception other than std::runtime_error from a reader, or
// one whose message does not name the file; any exception from what uses a file the reader accepted.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <typeinfo>

#include "analysis/advisor.h"
#include "analysis/bench_diff.h"
#include "analysis/checklist.h"
#include "analysis/kernel_table.h"
#include "analysis/op_diff.h"
#include "analysis/op_table.h"
#include "analysis/results_text.h"
#include "analysis/sweep_analysis.h"
#include "fuzz_input.h"
#include "model/sweep_merge.h"
#include "report/report_html.h"
#include "results/measurement_json.h"
#include "results/results_file.h"
#include "results/workspace.h"

#ifndef AWB_FUZZ_READER
#error "define AWB_FUZZ_READER (report, bench, sweep, check, workspace, diff or merge)"
#endif

namespace {

[[noreturn]] void finding(const std::string& what) {
    std::fprintf(stderr, "fuzz_results (%s): %s\n", AWB_FUZZ_READER, what.c_str());
    std::abort();
}

void sink(size_t n) {
    static volatile size_t total = 0;
    total = total + n;
}

// Everything the workbench does with a file it opened.
awb::ResultsFile results_of(const std::string& path, awb::ResultsKind kind) {
    awb::ResultsFile f;
    f.path = path;
    f.kind = kind;
    return f;
}

void use(const awb::ResultsFile& f) {
    try {
        const awb::Measurements m{f.run ? &*f.run : nullptr, f.bench ? &*f.bench : nullptr,
                                  f.sweep ? &*f.sweep : nullptr, f.check ? &*f.check : nullptr};
        awb::ReportInput in;
        in.explanation = awb::explain(m);
        sink(awb::format_checklist(in.explanation.checklist).size());
        sink(awb::checklist_json(in.explanation.checklist).dump().size());
        std::optional<awb::ProfileReport> traced;
        if (f.kind == awb::ResultsKind::Trace) traced = awb::make_report(*f.run, awb::analyze_run(*f.run));
        in.profile = f.report ? &*f.report : traced ? &*traced : nullptr;
        in.bench = m.bench;
        in.sweep = m.sweep;
        const std::optional<awb::SweepAnalysis> sweep_analysis =
            m.sweep ? std::optional(awb::analyze_sweep(*m.sweep, false)) : std::nullopt;
        in.sweep_analysis = sweep_analysis ? &*sweep_analysis : nullptr;
        in.check = m.check;
        sink(awb::html_report(in).size());
        if (f.report) sink(awb::to_json(*f.report).dump().size());
        if (f.bench) sink(awb::format_bench(*f.bench).size() + awb::bench_file_json(*f.bench).dump().size());
        if (f.sweep) {
            sink(awb::format_analysis(*sweep_analysis).size() + awb::sweep_csv(*f.sweep).size());
            for (const auto& p : f.sweep->points) sink(awb::format_sweep_point(p).size());
            sink(awb::sweep_file_json(*f.sweep, *sweep_analysis).dump().size());
        }
        if (f.check) sink(awb::format_check(*f.check).size() + awb::check_file_json(*f.check).dump().size());
    } catch (const std::exception& e) {
        finding(std::string("using a file the reader accepted threw ") + typeid(e).name() + ": " + e.what());
    }
}

// A reader's refusal: std::runtime_error (or a subclass) whose message names the file.
void refused(const std::exception& e, const std::string& path) {
    if (!dynamic_cast<const std::runtime_error*>(&e) || dynamic_cast<const std::range_error*>(&e) ||
        dynamic_cast<const std::overflow_error*>(&e))
        finding(std::string("the reader threw ") + typeid(e).name() + " (not our runtime_error): " + e.what());
    if (std::strstr(e.what(), path.c_str()) == nullptr)
        finding("the message does not name the file: " + std::string(e.what()));
}

bool open(const std::string& path, awb::ResultsFile& out) {
    try {
        out = awb::open_results_file(path);
        return true;
    } catch (const std::exception& e) {
        refused(e, path);
        return false;
    }
}

std::vector<awb::OperatorRow> operators_of(const awb::ResultsFile& f) {
    if (f.kind == awb::ResultsKind::Trace) return awb::key_averages(f.run->trace);
    return f.report ? f.report->operators : std::vector<awb::OperatorRow>{};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string reader = AWB_FUZZ_READER;
    if (reader == "workspace") {
        // In a folder of its own: a workspace names its runs' traces relative to itself.
        static const std::filesystem::path dir = [] {
            auto d = std::filesystem::temp_directory_path() / ("awb_fuzz_workspace." + std::to_string(::getpid()));
            std::filesystem::create_directories(d / "w.runs");
            std::ofstream(d / "w.runs" / "run-1.trace.json")
                << R"({"traceEvents": [{"ph": "X", "name": "aten::mm", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]})";
            return d;
        }();
        const std::string path = (dir / "w.json").string();
        std::ofstream(path, std::ios::binary | std::ios::trunc)
            .write(reinterpret_cast<const char*>(data), std::streamsize(size));
        try {
            const awb::Workspace w = awb::load_workspace(path);
            for (const auto& s : w.sweeps) {
                awb::ResultsFile f = results_of(path, awb::ResultsKind::Sweep);
                f.sweep = s.sweep;
                use(f);
            }
            if (w.bench) {
                awb::ResultsFile f = results_of(path, awb::ResultsKind::Bench);
                f.bench = *w.bench;
                use(f);
            }
            if (w.check) {
                awb::ResultsFile f = results_of(path, awb::ResultsKind::Check);
                f.check = *w.check;
                use(f);
            }
            for (const auto& r : w.runs) {
                awb::ResultsFile f = results_of(path, awb::ResultsKind::Trace);
                f.run = *r.result;
                use(f);
            }
        } catch (const std::exception& e) {
            refused(e, path);
        }
        return 0;
    }
    static const awb::fuzz::MemFile a("awb_fuzz_a"), b("awb_fuzz_b");
    if (reader == "merge") {
        // The input's first byte picks --allow-mixed (bit 0) and --allow-missing (bit 1); the rest is up
        // to four shard files (split_at_nuls), read as attnwb merge reads them, merged, then used as a sweep.
        if (size == 0) return 0;
        const uint8_t flags = data[0];
        ++data;
        --size;
        static const awb::fuzz::MemFile c("awb_fuzz_c"), d("awb_fuzz_d");
        const awb::fuzz::MemFile* files[] = {&a, &b, &c, &d};
        std::vector<awb::ShardFile> shards;
        const auto parts = awb::fuzz::split_at_nuls(data, size, 4);
        for (size_t i = 0; i < parts.size(); ++i) {
            files[i]->write(parts[i].data, parts[i].size);
            awb::ResultsFile f;
            if (!open(files[i]->path(), f)) return 0;
            if (f.sweep) shards.push_back({files[i]->path(), std::move(*f.sweep)});
        }
        try {
            const awb::MergeOutcome m = awb::merge_shards(shards, {bool(flags & 1), bool(flags & 2)});
            for (const auto& p : m.problems) sink(p.size());
            for (const auto& n : m.notes) sink(n.size());
            if (!m.problems.empty()) return 0;
            for (const auto& p : m.merged.points) sink(awb::where_ran(m.merged, p).host.size());
            awb::ResultsFile merged = results_of("merged", awb::ResultsKind::Sweep);
            merged.sweep = m.merged;
            use(merged);
        } catch (const std::exception& e) {
            finding(std::string("merging sweeps the reader accepted threw ") + typeid(e).name() + ": " + e.what());
        }
        return 0;
    }
    if (reader == "diff") {
        // Two files in one input, split at the first NUL (none: the file with itself).
        const auto parts = awb::fuzz::split_at_nuls(data, size, 2);
        a.write(parts.front().data, parts.front().size);
        b.write(parts.back().data, parts.back().size);
        awb::ResultsFile fa, fb;
        if (!open(a.path(), fa) || !open(b.path(), fb)) return 0;
        try {
            if (fa.bench && fb.bench) {
                const awb::BenchDiff d = awb::diff_benches(*fa.bench, *fb.bench);
                sink(awb::format_bench_diff(d, *fa.bench, *fb.bench, "A", "B").size());
            } else {
                sink(awb::join_operators(operators_of(fa), operators_of(fb)).size());
                if (fa.run && fb.run && fa.kind == awb::ResultsKind::Trace && fb.kind == awb::ResultsKind::Trace)
                    sink(awb::join_kernels(awb::kernel_table(fa.run->trace), awb::kernel_table(fb.run->trace)).size());
            }
        } catch (const std::exception& e) {
            finding(std::string("diffing two files the reader accepted threw ") + typeid(e).name() + ": " + e.what());
        }
        return 0;
    }
    a.write(data, size);
    awb::ResultsFile f;
    if (open(a.path(), f)) use(f);
    return 0;
}
