// What this build is, in words, for attention-workbench --version and Help > About: the version, the
// LibTorch built with and loaded, CUDA, and Qt (built with, running).
#pragma once

#include <string>

namespace awb::ui {

// "attention-workbench 0.1.0 (Attention Workbench)\nLibTorch: ...\nCUDA: ...\nQt: built with 6.4.2, running 6.4.2"
std::string about_text();

}  // namespace awb::ui
