// Peak dense throughput and memory bandwidth of the GPUs users profile on, each with its source, for
// the roofline: a call's attainable rate is min(peak FLOP/s of its dtype, arithmetic intensity x
// memory bandwidth). Dense figures (without 2:4 sparsity), SXM/OAM boards unless the name says PCIe.
#pragma once

#include <string>
#include <string_view>

namespace awb {

struct DeviceRoof {
    std::string_view name;       // "H100 SXM5"
    std::string_view match;      // a part of the device name CUDA/ROCm report ("H100 PCIe", "H100")
    double fp32_tflops;          // non-tensor FP32 (PyTorch's float matmuls unless TF32 is allowed)
    double tf32_tflops;
    double bf16_tflops;
    double fp16_tflops;
    double fp8_tflops;           // 0: none
    double memory_tb_s;
    std::string_view source;
};

// The roof of a device by the name its trace or runtime reports ("NVIDIA H200", "NVIDIA H100 80GB
// HBM3", "AMD Instinct MI300X"), or null when the table has none.
const DeviceRoof* find_device_roof(std::string_view device_name);

// Peak TFLOP/s for a dtype as traces name it ("float", "c10::BFloat16", "c10::Half", "c10::Float8_e4m3fn");
// 0 when unknown.
double peak_tflops(const DeviceRoof& roof, const std::string& trace_dtype);

// min(peak, intensity x bandwidth), in TFLOP/s, for `flops` and `bytes` of work; 0 when unknown.
double attainable_tflops(const DeviceRoof& roof, const std::string& trace_dtype, double flops, double bytes);

}  // namespace awb
