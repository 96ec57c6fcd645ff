// The environment fingerprint stored with every result: what a number was measured on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/module_file.h"

namespace awb {

struct Environment {
    std::string torch_version;   // "1.13.1"
    std::string device;          // "cpu", "cuda:0"
    std::string device_name;     // CPU model or GPU name
    std::string cuda_version;    // empty without CUDA
    std::string driver_version;  // empty without CUDA
    std::string blas;            // the BLAS library actually loaded
    std::string allocator;       // C library allocator setting (see process_tuning.h)
    int threads = 0;             // intra-op threads during the run
    int64_t memory_bytes =
        -1;  // what a run could use: the GPU's memory, or the CPU's available memory at the run; -1 unknown
    std::string build_type;  // of this program
    std::string compiler;
    std::string host;
    std::string os;
    std::string timestamp_utc;  // ISO 8601
    std::string recorded_by;    // an imported trace: what wrote it ("Kineto trace schema 1, CUPTI 18; record_shapes")
    std::vector<ModuleIdentity>
        modules;  // the user's module files the result ran (path, size, sha256, format, exporter)
    bool operator==(const Environment&) const = default;
};

// CUDA's version encoding as text: 12010 -> "12.1" (cudaRuntimeGetVersion, a trace's cuda_runtime_version).
inline std::string cuda_version_text(int encoded) {
    return std::to_string(encoded / 1000) + "." + std::to_string((encoded % 1000) / 10);
}

// The current time in UTC, formatted by strftime (ISO 8601 by default, as results record it).
std::string utc_now(const char* strftime_format = "%Y-%m-%dT%H:%M:%SZ");

}  // namespace awb
