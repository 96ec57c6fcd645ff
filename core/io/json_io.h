// JSON for the core's values (nlohmann): specs, options, environments, operator rows and the
// profile report the CLI writes and the GUI opens.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/attention.h"
#include "analysis/bootstrap.h"
#include "analysis/gpu_breakdown.h"
#include "analysis/kernel_table.h"
#include "analysis/memory_replay.h"
#include "analysis/op_table.h"
#include "analysis/profile_report.h"
#include "analysis/run_analysis.h"
#include "io/atomic_file.h"
#include "model/device_properties.h"
#include "model/environment.h"
#include "model/profile_options.h"
#include "model/profile_result.h"
#include "model/run_observer.h"
#include "model/run_spec.h"

namespace awb {

inline constexpr const char* kProfileReportSchema = "attention-workbench/profile-report";
inline constexpr int kProfileReportVersion = 1;

void to_json(nlohmann::json& j, const RunSpec& s);
void from_json(const nlohmann::json& j, RunSpec& s);  // throws InvalidInput naming bad fields
void to_json(nlohmann::json& j, const ProfileOptions& o);
void from_json(const nlohmann::json& j, ProfileOptions& o);
void to_json(nlohmann::json& j, const Environment& e);
void from_json(const nlohmann::json& j, Environment& e);
// A bootstrap interval: low, high, level, resamples, method; null when not valid.
void to_json(nlohmann::json& j, const Interval& i);
void to_json(nlohmann::json& j, const Roof& r);
// A kernel table row: name, kind, class, device, calls, times in us, launch configuration (null when unknown).
void to_json(nlohmann::json& j, const KernelRow& k);
// One entry per kernel class and device (kernels_by_class): calls, total in us, share of all device time.
nlohmann::json kernel_classes_json(const std::vector<KernelRow>& rows);
// Kineto's keys: id, name, totalGlobalMem, computeMajor, computeMinor, numSms (those not given left out).
void to_json(nlohmann::json& j, const DeviceProperties& d);
// The import's notes and the counts of analysis/trace_quality.h, with "clean".
void to_json(nlohmann::json& j, const TraceQuality& q);
void from_json(const nlohmann::json& j, Roof& r);
void to_json(nlohmann::json& j, const OperatorRow& r);
void from_json(const nlohmann::json& j, OperatorRow& r);
void to_json(nlohmann::json& j, const StepRecord& s);
// Times in us, each with its share of the span; step null for the whole trace, rank null for one process.
void to_json(nlohmann::json& j, const GpuBreakdown& b);
// One attention call (analysis/attention.h): shapes, backend, pass, times in us, FLOPs, bytes, rates.
void to_json(nlohmann::json& j, const AttentionInstance& a);
void from_json(const nlohmann::json& j, AttentionInstance& a);
void from_json(const nlohmann::json& j, StepRecord& s);

nlohmann::json to_json(const ProfileReport& r);
ProfileReport report_from_json(const nlohmann::json& j);  // throws std::runtime_error naming the problem

// Reading our results files. check_schema throws std::runtime_error unless j is an object with this
// schema and version; read_or_throw runs a reader and turns the spec parser's and nlohmann's exceptions
// into one std::runtime_error. noun names the file in the messages ("profile report", "sweep file").
void check_schema(const nlohmann::json& j, const std::string& schema, int version, const std::string& noun);
// nlohmann's exception in words, with the field it is about (JSON_DIAGNOSTICS):
// "[json.exception.type_error.302] (/points/3/bench/timing) type must be number, but is string" ->
// "field points[3].bench.timing: type must be number, but is string"; a missing key ->
// "field points[3].bench.timing.repeats is missing".
std::string json_error_in_words(const nlohmann::json::exception& e);

template <typename Read>
auto read_or_throw(const std::string& noun, Read&& read) {
    try {
        return read();
    } catch (const InvalidInput& e) {
        throw std::runtime_error(noun + " has a bad spec or options: " + e.what());
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(noun + " is malformed: " + json_error_in_words(e));
    }
}

// Parses the JSON file at path; throws std::runtime_error naming the path and the problem.
nlohmann::json read_json_file(const std::string& path);
// Why text is not JSON, in words: "it is empty", "it is a PNG image", "it is not valid JSON at line 3,
// column 5: unexpected end of input ...", for messages that name the file.
std::string json_problem_in_words(const std::string& text, const nlohmann::json::parse_error& e);

}  // namespace awb
