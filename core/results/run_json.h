// JSON for a run's values (nlohmann): specs, options, environments, operator and kernel rows, steps,
// attention calls, roofs, and the profile report the CLI writes and the GUI opens. The helpers that
// read any of our files without trusting them are in json_read.h; benchmarks, sweeps and checks in
// measurement_json.h.
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
#include "io/json_read.h"
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

}  // namespace awb
