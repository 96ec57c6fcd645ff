#include "results/trace_run.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "io/json_read.h"
#include "model/environment.h"
#include "model/printf_string.h"
#include "model/units.h"
#include "results/chrome_trace.h"
#include "results/run_json.h"

namespace awb {

using nlohmann::json;

namespace {

// "Kineto trace (schema 1, CUPTI ...); record_shapes, profile_memory": what wrote the trace, with which options.
std::string recorded_by(const json& h, const std::string& trace_name) {
    std::vector<std::string> recorded;
    if (h.contains("schemaVersion")) recorded.push_back("schema " + h["schemaVersion"].dump());
    if (h.contains("cupti_version")) recorded.push_back("CUPTI " + h["cupti_version"].dump());
    if (h.contains("hip_runtime_version")) recorded.push_back("HIP " + h["hip_runtime_version"].dump());
    if (h.contains("nccl_version") && h["nccl_version"].is_string())
        recorded.push_back("NCCL " + h["nccl_version"].get<std::string>());
    std::vector<std::string> options;
    for (const char* o : {"record_shapes", "profile_memory", "with_stack", "with_flops", "with_modules"})
        if (h.contains(o) && ((h[o].is_number() && h[o].get<double>() != 0) || (h[o].is_boolean() && h[o].get<bool>())))
            options.push_back(o);
    if (h.empty() && trace_name.empty()) return "";
    std::string by = recorded.empty() ? "chrome trace" : "Kineto trace (" + join(recorded, ", ") + ")";
    if (!options.empty()) by += "; " + join(options, ", ");
    return by;
}

// A trace's "cuda_runtime_version": 12010 -> "12.1"; "" when absent.
std::string cuda_version_of(const json& v) { return v.is_number_integer() ? cuda_version_text(v.get<int>()) : ""; }

}  // namespace

Environment environment_of_import(const ImportedTrace& t) {
    Environment e;
    std::map<std::string, int> gpus;  // "NVIDIA H100 80GB HBM3 (79.1 GiB, compute 9.0, 132 SMs)" -> count
    for (const DeviceProperties& d : t.devices) {
        ++gpus[device_text(d)];
        if (d.total_global_mem >= 0)  // the smallest GPU's, when they differ
            e.memory_bytes = e.memory_bytes < 0 ? d.total_global_mem : std::min(e.memory_bytes, d.total_global_mem);
    }
    for (const auto& [name, n] : gpus)
        e.device_name +=
            (e.device_name.empty() ? "" : "; ") + (n > 1 ? std::to_string(n) + " x " : std::string()) + name;
    e.device = gpus.empty() ? "" : "cuda";
    const json& h = t.header;
    e.cuda_version = cuda_version_of(h.value("cuda_runtime_version", json()));
    e.driver_version = cuda_version_of(h.value("cuda_driver_version", json()));
    if (t.world_size > 0 || t.trace.meta().ranks.size() > 1) {
        e.host = t.trace.meta().ranks.size() > 1 ? std::to_string(t.trace.meta().ranks.size()) + " ranks"
                                                 : "rank " + std::to_string(t.rank);
        e.host += " of " + std::to_string(t.world_size) + (t.backend.empty() ? "" : " (" + t.backend + ")");
    }
    e.recorded_by = recorded_by(h, t.trace_name);
    return e;
}

ProfileResult run_of_metadata(const json& meta) {
    ProfileResult result;
    result.spec_known = false;
    if (meta.is_object()) {
        try {  // metadata of another version: the events still show
            if (meta.contains("spec")) {
                result.spec = meta.at("spec").get<RunSpec>();
                result.spec_known = true;
            }
            if (meta.contains("options")) result.options = meta.at("options").get<ProfileOptions>();
            if (meta.contains("environment")) result.environment = meta.at("environment").get<Environment>();
            if (meta.contains("steps")) result.steps = meta.at("steps").get<std::vector<StepRecord>>();
            result.device_peak_bytes = int_or<int64_t>(meta, "device_peak_bytes", -1);
            if (meta.contains("roof")) result.roof = meta.at("roof").get<Roof>();
            result.interrupted = meta.value("interrupted", false);
        } catch (const std::exception&) {}
    }
    return result;
}

ProfileResult take_run(ImportedTrace& imported) {
    ProfileResult result = run_of_metadata(imported.extra);
    result.import = imported.notes;
    // A foreign trace (no environment of ours): what the trace itself records (GPUs, CUDA, ranks).
    // A trace we saved keeps the environment it had, even an empty one (what the original file recorded).
    const bool ours = imported.extra.is_object() && imported.extra.contains("environment");
    if (!ours) result.environment = environment_of_import(imported);
    // Ours: the names, source and world the trace had when it was saved (Kineto's layout has no place for them all).
    if (imported.extra.is_object() && imported.extra.contains("trace_meta"))
        result.trace = restore_trace_meta(imported.trace, imported.extra["trace_meta"]);
    else
        result.trace = std::move(imported.trace);
    imported.trace = Trace();
    return result;
}

ProfileResult profile_result_from_import(ImportedTrace imported) { return take_run(imported); }

}  // namespace awb
