// The few CUDA calls the core needs, behind plain functions: compiled against the CUDA runtime when
// LibTorch has CUDA (AWB_WITH_CUDA), and answering "no CUDA" otherwise.
#pragma once

#include <cstdint>
#include <string>

namespace awb::cuda {

bool available();
int device_count();
bool supports_bf16(int device);
int64_t free_bytes(int device);        // -1 when unknown
std::string device_name(int device);
std::string runtime_version();         // "12.4", empty without CUDA
std::string driver_version();
void synchronize(int device);
void reset_peak_memory(int device);    // torch.cuda.reset_peak_memory_stats
int64_t max_memory_allocated(int device);  // torch.cuda.max_memory_allocated, -1 without CUDA

}  // namespace awb::cuda
