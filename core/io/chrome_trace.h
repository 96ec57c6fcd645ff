// Chrome-trace export in PyTorch's (Kineto's) layout, which Perfetto, chrome://tracing and PyTorch's
// own tools read: X events with Input Dims / Input type args, [memory] instant events with Bytes and
// Total Allocated, process and thread names, ac2g flows from a CPU op to its kernels.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "model/environment.h"
#include "model/profile_result.h"
#include "model/trace.h"

namespace awb {

struct ChromeTraceInfo {
    std::string trace_name;      // e.g. "manual 2x8x512x64 float32 cpu"
    std::string process_name = "attnwb";
    int64_t pid = 0;             // 0: this process's pid
    nlohmann::json metadata;     // extra top-level keys (spec, environment), may be null
};

nlohmann::json to_chrome_trace(const Trace& trace, const ChromeTraceInfo& info);
// The info of a run's trace: its described spec as the name, and as metadata an "attention_workbench"
// object with the spec, options, environment, steps and device peak, which profile_result_from_import
// (workspace.h) reads back, so a saved trace reopens as the run it was.
ChromeTraceInfo run_trace_info(const ProfileResult& result, std::string process_name);

void write_chrome_trace(const Trace& trace, const ChromeTraceInfo& info, const std::string& path);

}  // namespace awb
