#include "engine/environment_probe.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <torch/version.h>
#include <dlfcn.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "engine/cuda_support.h"
#include "engine/device_caps.h"
#include "engine/module_variant.h"
#include "engine/process_tuning.h"

#ifndef AWB_BUILD_TYPE
#define AWB_BUILD_TYPE "unknown"
#endif

namespace awb {

namespace {

std::string cpu_model() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
        }
    }
    return "unknown CPU";
}
}  // namespace

std::string loaded_blas_library() {
    // libblas.so.3 is a Debian alternative: resolve the mapped file, which names the implementation.
    std::ifstream maps("/proc/self/maps");
    std::string line, found;
    while (std::getline(maps, line)) {
        const auto slash = line.find('/');
        if (slash == std::string::npos) continue;
        const std::string path = line.substr(slash);
        if (path.find("openblas") != std::string::npos || path.find("libblas") != std::string::npos ||
            path.find("libmkl") != std::string::npos || path.find("blis") != std::string::npos) {
            found = path;
            if (path.find("openblas") != std::string::npos || path.find("mkl") != std::string::npos) break;
        }
    }
    if (found.empty()) {
        // The PyTorch wheels link MKL into libtorch_cpu (no libmkl*.so is mapped); Debian's build loads
        // libblas.so.3. Neither mapped nor linked: LibTorch's own reference BLAS.
        if (at::hasMKL()) return "MKL (linked into LibTorch)";
        return "none loaded (reference BLAS or statically linked)";
    }
    char real[4096];
    const ssize_t n = readlink(found.c_str(), real, sizeof real - 1);
    if (n > 0) found = std::string(real, size_t(n));
    if (found.find("openblas") != std::string::npos) {
        // OpenBLAS picks its kernels by CPU model at load time; a CPU it does not know gets generic ones
        // (Debian 12's 0.3.21 on a newer Xeon: "Prescott", about 2x slower matmuls than SkylakeX).
        std::string core;
        if (auto corename = reinterpret_cast<char* (*)()>(dlsym(RTLD_DEFAULT, "openblas_get_corename")))
            if (const char* name = corename()) core = std::string(name) + " kernels, ";
        return "OpenBLAS (" + core + found + ")";
    }
    if (found.find("mkl") != std::string::npos) return "MKL (" + found + ")";
    if (found.find("blis") != std::string::npos) return "BLIS (" + found + ")";
    return "reference BLAS (" + found + ")";
}

Environment probe_environment(const RunSpec& spec) {
    Environment env;
    env.torch_version = TORCH_VERSION;
    env.device = to_string(spec.device);
    if (spec.device.kind == DeviceKind::CUDA && cuda::available()) {
        const int index = spec.device.index < 0 ? 0 : spec.device.index;
        env.device = "cuda:" + std::to_string(index);
        env.device_name = cuda::device_name(index);
        env.cuda_version = cuda::runtime_version();
        env.driver_version = cuda::driver_version();
        env.memory_bytes = cuda::total_bytes(index);
    } else {
        env.device_name = cpu_model();
        env.memory_bytes = cpu_available_bytes();
    }
    env.blas = loaded_blas_library();
    env.allocator = allocator_setting();
    env.threads = at::get_num_threads();
    env.build_type = AWB_BUILD_TYPE;
#if defined(__clang__)
    env.compiler = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
    env.compiler = std::string("g++ ") + __VERSION__;
#endif
    utsname u{};
    if (uname(&u) == 0) {
        env.host = u.nodename;
        env.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
    }
    env.timestamp_utc = utc_now();
    if (!spec.module.empty()) env.modules.push_back(module_identity(spec.module));
    return env;
}

}  // namespace awb
