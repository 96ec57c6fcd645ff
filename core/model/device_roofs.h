// Peak dense throughput and memory bandwidth of the GPUs users profile on, each with its source, for
// the roofline: a call's attainable rate is min(peak FLOP/s of its dtype, arithmetic intensity x
// memory bandwidth). Dense figures (without 2:4 sparsity), SXM/OAM boards unless the name says PCIe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/run_spec.h"

namespace awb {

struct DeviceRoof {
    std::string_view name;   // "H100 SXM5"
    std::string_view match;  // a part of the device name CUDA/ROCm report ("H100 PCIe", "H100")
    double fp32_tflops;      // non-tensor FP32 (PyTorch's float matmuls unless TF32 is allowed)
    double tf32_tflops;
    double bf16_tflops;
    double fp16_tflops;
    double fp8_tflops;  // 0: none
    double memory_tb_s;
    double link_gb_s;  // one direction of the GPU's NVLink / Infinity Fabric to its peers, GB/s; 0: none (PCIe)
    std::string_view source;
};

// The roof of a device by the name its trace or runtime reports ("NVIDIA H200", "NVIDIA H100 80GB
// HBM3", "AMD Instinct MI300X"), or null when the table has none.
const DeviceRoof* find_device_roof(std::string_view device_name);

// Peak TFLOP/s for a dtype as traces name it ("float", "c10::BFloat16", "c10::Half", "c10::Float8_e4m3fn");
// 0 when unknown.
double peak_tflops(const DeviceRoof& roof, const std::string& trace_dtype);

// The roof for one element type on one device: from the table above or measured in a run
// (engine/roof_probe.h). What a roofline chart draws and what "% of roof" divides by.
struct Roof {
    std::string device;      // "H200 SXM", "CPU"
    std::string dtype;       // as traces name it ("float", "c10::BFloat16")
    double peak_tflops = 0;  // dense matmul peak of that dtype
    double memory_tb_s = 0;
    bool measured = false;  // measured in the run rather than read from a datasheet
    std::string source;     // the datasheet, or what was measured and how
    bool known() const { return peak_tflops > 0 && memory_tb_s > 0; }
    double ridge() const { return known() ? peak_tflops / memory_tb_s : 0.0; }  // FLOP per byte where the roofs meet
    // min(peak, flops / bytes x bandwidth) in TFLOP/s; 0 when the roof or the work is unknown.
    double attainable_tflops(double flops, double bytes) const;
    bool operator==(const Roof&) const = default;
};

// The table's roof for a dtype as traces name it (not known() when the table has no peak for it).
Roof datasheet_roof(const DeviceRoof& roof, const std::string& trace_dtype);

// The roof in `roofs` for a dtype, null when none is known.
const Roof* find_roof(const std::vector<Roof>& roofs, const std::string& trace_dtype);

// Our dtype as traces name it: float32 "float", float64 "double", float16 "c10::Half", bfloat16 "c10::BFloat16".
std::string trace_dtype_name(Dtype dtype);

}  // namespace awb
