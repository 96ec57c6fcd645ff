#include "model/device_roofs.h"

#include <algorithm>

namespace awb {

namespace {

// More specific names first: "H100 PCIe" before "H100".
const DeviceRoof kRoofs[] = {
    {"H100 PCIe", "H100 PCIe", 51.2, 378, 756, 756, 1513, 2.0, "NVIDIA H100 Tensor Core GPU datasheet (PCIe column, dense)"},
    {"H100 NVL", "H100 NVL", 60, 418, 835, 835, 1671, 3.9, "NVIDIA H100 Tensor Core GPU datasheet (NVL column, per GPU, dense)"},
    {"H100 SXM5", "H100", 67, 495, 989, 989, 1979, 3.35, "NVIDIA H100 Tensor Core GPU datasheet (SXM column, dense)"},
    {"H200 SXM", "H200", 67, 495, 989, 989, 1979, 4.8, "NVIDIA H200 Tensor Core GPU datasheet (SXM column, dense)"},
    {"A100 SXM4 80GB", "A100-SXM4-80GB", 19.5, 156, 312, 312, 0, 2.039, "NVIDIA A100 Tensor Core GPU datasheet (80GB SXM, dense)"},
    {"L40S", "L40S", 91.6, 183, 362, 362, 733, 0.864, "NVIDIA L40S datasheet (dense)"},
    {"MI300X", "MI300X", 163.4, 653.7, 1307.4, 1307.4, 2614.9, 5.3, "AMD Instinct MI300X data sheet (dense matrix)"},
};

}  // namespace

const DeviceRoof* find_device_roof(std::string_view device_name) {
    for (const DeviceRoof& r : kRoofs)
        if (device_name.find(r.match) != std::string_view::npos) return &r;
    return nullptr;
}

double peak_tflops(const DeviceRoof& roof, const std::string& dtype) {
    if (dtype == "float") return roof.fp32_tflops;
    if (dtype == "c10::BFloat16" || dtype == "BFloat16") return roof.bf16_tflops;
    if (dtype == "c10::Half" || dtype == "Half") return roof.fp16_tflops;
    if (dtype.find("Float8") != std::string::npos) return roof.fp8_tflops;
    return 0;
}

double attainable_tflops(const DeviceRoof& roof, const std::string& dtype, double flops, double bytes) {
    const double peak = peak_tflops(roof, dtype);
    if (peak <= 0 || flops <= 0 || bytes <= 0) return 0;
    return std::min(peak, flops / bytes * roof.memory_tb_s);  // FLOP/byte x TB/s = TFLOP/s
}

}  // namespace awb
