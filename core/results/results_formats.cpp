#include "results/results_formats.h"

#include <filesystem>
#include <stdexcept>

#include "io/pickle_reader.h"
#include "io/trace_files.h"
#include "results/measurement_json.h"
#include "results/results_readers.h"
#include "results/run_json.h"
#include "results/workspace.h"

namespace awb {

namespace {

bool is_trace(const std::string& path) {
    std::error_code ec;
    return std::filesystem::is_directory(path, ec) ||
           (std::filesystem::is_regular_file(path, ec) && looks_like_chrome_trace(path));
}

bool is_snapshot(const std::string& path) { return pickle::is_pickle_file(path); }

}  // namespace

const std::vector<ResultsFormat>& results_formats() {
    // clang-format off
    static const std::vector<ResultsFormat> formats = {
        {ResultsKind::Trace, "chrome trace", nullptr, is_trace, read_trace_results},
        {ResultsKind::MemorySnapshot, "memory snapshot", nullptr, is_snapshot, read_snapshot_results},
        {ResultsKind::ProfileReport, "profile report", kProfileReportSchema, nullptr, read_report_results},
        {ResultsKind::Bench, "benchmark", kBenchSchema, nullptr, read_bench_results},
        {ResultsKind::Sweep, "sweep", kSweepSchema, nullptr, read_sweep_results},
        {ResultsKind::Check, "correctness check", kCheckSchema, nullptr, read_check_results},
        {ResultsKind::Workspace, "workspace", kWorkspaceSchema, nullptr, read_workspace_results},
    };
    // clang-format on
    return formats;
}

std::string to_string(ResultsKind kind) {
    for (const ResultsFormat& f : results_formats())
        if (f.kind == kind) return f.name;
    throw std::logic_error("to_string(ResultsKind): a kind without a row");
}

const ResultsFormat* recognised_format(const std::string& path) {
    for (const ResultsFormat& f : results_formats())
        if (f.recognises && f.recognises(path)) return &f;
    return nullptr;
}

std::optional<ResultsKind> recognised_kind(const std::string& path) {
    const ResultsFormat* f = recognised_format(path);
    return f ? std::optional(f->kind) : std::nullopt;
}

const ResultsFormat* schema_format(const std::string& schema) {
    for (const ResultsFormat& f : results_formats())
        if (f.schema && schema == f.schema) return &f;
    return nullptr;
}

std::optional<ResultsKind> kind_of_schema(const std::string& schema) {
    const ResultsFormat* f = schema_format(schema);
    return f ? std::optional(f->kind) : std::nullopt;
}

}  // namespace awb
