// The LibTorch under this build, for --version and Help > About (beside the version, model/version.h):
// the LibTorch it was built with and the one the loader mapped (its file, and the version that file
// belongs to), CUDA (built with, devices here) or none. No torch in this header.
#pragma once

#include <string>

namespace awb {

// Lines without a trailing newline between them:
//   "LibTorch: built with 1.13.0; loaded 1.13 (/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13)"
//   "CUDA: none (a CPU build)" | "CUDA: built with 13.0; 1 device here (NVIDIA H200, driver 13.0)"
std::string libtorch_lines();

// The version of the LibTorch a mapped libtorch_cpu belongs to: the soname's suffix (Debian's
// libtorch_cpu.so.1.13 -> "1.13"), else the wheel's torch/version.py beside its lib/ folder
// (__version__ = '2.11.0+cu130'); "" when neither says.
std::string libtorch_version_of_file(const std::string& path);

}  // namespace awb
