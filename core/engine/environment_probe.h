// What a measurement runs on, read from LibTorch and the system: the environment fingerprint stored
// with every result (model/environment.h). No torch in this header.
#pragma once

#include <string>

#include "model/environment.h"
#include "model/run_spec.h"

namespace awb {

// Queries LibTorch and the system for the device the spec runs on.
Environment probe_environment(const RunSpec& spec);

// The BLAS that the dynamic loader actually mapped (libblas.so.3 is an alternative on Debian).
std::string loaded_blas_library();

}  // namespace awb
