#include "engine/build_info.h"

#include <ATen/Parallel.h>
#include <torch/version.h>

#include <dlfcn.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "engine/cuda_support.h"

namespace awb {

std::string libtorch_version_of_file(const std::string& path) {
    const std::string file = std::filesystem::path(path).filename().string();
    const auto so = file.find(".so.");
    if (so != std::string::npos) return file.substr(so + 4);
    // A wheel: <site-packages>/torch/lib/libtorch_cpu.so beside <site-packages>/torch/version.py.
    std::ifstream version(std::filesystem::path(path).parent_path().parent_path() / "version.py");
    static const std::regex line(R"(^__version__\s*=\s*['"]([^'"]+)['"])");
    std::smatch m;
    for (std::string l; std::getline(version, l);)
        if (std::regex_search(l, m, line)) return m[1];
    return "";
}

namespace {

// The file the loader mapped LibTorch's CPU library from, found by one of its functions.
std::string loaded_libtorch_file() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&at::get_num_threads), &info) == 0 || !info.dli_fname) return "";
    std::error_code ec;
    const auto real = std::filesystem::canonical(info.dli_fname, ec);
    return ec ? std::string(info.dli_fname) : real.string();
}

std::string cuda_line() {
    const std::string built = cuda::runtime_version();
    if (built.empty()) return "CUDA: none (a CPU build of LibTorch)";
    const int devices = cuda::available() ? cuda::device_count() : 0;
    std::string line = "CUDA: built with " + built + "; ";
    if (devices <= 0) return line + "no device here";
    line += std::to_string(devices) + (devices == 1 ? " device" : " devices") + " here (" + cuda::device_name(0);
    const std::string driver = cuda::driver_version();
    return line + (driver.empty() ? "" : ", driver " + driver) + ")";
}

}  // namespace

std::string libtorch_lines() {
    const std::string file = loaded_libtorch_file();
    const std::string loaded = libtorch_version_of_file(file);
    std::string line = "LibTorch: built with " TORCH_VERSION "; loaded ";
    line += file.empty() ? "from an unknown file"
                         : (loaded.empty() ? "a version it does not name" : loaded) + " (" + file + ")";
    return line + "\n" + cuda_line();
}

}  // namespace awb
