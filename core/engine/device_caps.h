// What this machine and this LibTorch build offer (CUDA devices, dtype support, free memory).
#pragma once

#include "model/run_spec.h"

namespace awb {

DeviceCaps query_device_caps();
int64_t cpu_available_bytes();  // host_memory(): MemAvailable, cgroup and ulimit -v room; -1 when unknown

}  // namespace awb
