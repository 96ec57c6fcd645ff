#include "io/results_formats.h"

#include <filesystem>

#include "io/measurement_json.h"
#include "io/pickle_reader.h"
#include "io/run_json.h"
#include "io/trace_files.h"
#include "io/workspace.h"

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
    static const std::vector<ResultsFormat> formats = {
        {ResultsKind::Trace, "chrome trace", nullptr, is_trace},
        {ResultsKind::MemorySnapshot, "memory snapshot", nullptr, is_snapshot},
        {ResultsKind::ProfileReport, "profile report", kProfileReportSchema, nullptr},
        {ResultsKind::Bench, "benchmark", kBenchSchema, nullptr},
        {ResultsKind::Sweep, "sweep", kSweepSchema, nullptr},
        {ResultsKind::Check, "correctness check", kCheckSchema, nullptr},
        {ResultsKind::Workspace, "workspace", kWorkspaceSchema, nullptr},
    };
    return formats;
}

std::string to_string(ResultsKind kind) {
    for (const ResultsFormat& f : results_formats())
        if (f.kind == kind) return f.name;
    return "file";
}

std::optional<ResultsKind> recognised_kind(const std::string& path) {
    for (const ResultsFormat& f : results_formats())
        if (f.recognises && f.recognises(path)) return f.kind;
    return std::nullopt;
}

std::optional<ResultsKind> kind_of_schema(const std::string& schema) {
    for (const ResultsFormat& f : results_formats())
        if (f.schema && schema == f.schema) return f.kind;
    return std::nullopt;
}

}  // namespace awb
