// The roof of the machine a run executes on, measured in the same process: a dense
// matmul of the run's dtype for the peak FLOP/s, a large tensor copy for the memory bandwidth. For
// CPUs, whose peaks no table can know (cores, clocks, vector units, BLAS), and for GPUs the device
// table (model/device_roofs.h) does not list. No torch in this header.
#pragma once

#include "model/device_roofs.h"
#include "model/run_spec.h"

namespace awb {

// Measures once per (device, dtype, threads) in a process and returns the same figures after that
// (~0.5 s on a CPU). The matmul is [n, n] x [n, n] with n doubled from 256 until one product lasts
// 50 ms (at most 4096 on a CPU, 16384 on a GPU), the best of 4 timed; the copy is a tensor of at
// least 64 MiB doubled until one copy lasts 10 ms (at most 1 GiB), the best of 5, counted as its read
// and its write. A dtype the device cannot multiply (half on LibTorch 1.13's CPU) gives a roof that is
// not known(), its source saying why. Throws RunFailed for other LibTorch failures.
Roof measure_roof(const DeviceSpec& device, Dtype dtype, int threads);

// The roof a benchmark of the spec reports its share of: the device table's for a GPU it lists
// (device_name as the runtime reports it), else measured as above.
Roof run_roof(const RunSpec& spec, const std::string& device_name);

}  // namespace awb
