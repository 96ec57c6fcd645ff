#include "model/device_roofs.h"

#include <algorithm>

namespace awb {

namespace {

// More specific names first: "H100 PCIe" before "H100". link_gb_s: half the datasheet's NVLink (H100/H200
// SXM 900 GB/s, H100 NVL 600, A100 SXM 600, B200/GB200 1.8 TB/s) or Infinity Fabric (MI300X 896) figure,
// which counts both directions.
const DeviceRoof kRoofs[] = {
    {"H100 PCIe", "H100 PCIe", 51.2, 378, 756, 756, 1513, 2.0, 0,
     "NVIDIA H100 Tensor Core GPU datasheet (PCIe column, dense)"},
    {"H100 NVL", "H100 NVL", 60, 418, 835, 835, 1671, 3.9, 300,
     "NVIDIA H100 Tensor Core GPU datasheet (NVL column, per GPU, dense)"},
    {"H100 SXM5", "H100", 67, 495, 989, 989, 1979, 3.35, 450,
     "NVIDIA H100 Tensor Core GPU datasheet (SXM column, dense)"},
    {"H200 SXM", "H200", 67, 495, 989, 989, 1979, 4.8, 450,
     "NVIDIA H200 Tensor Core GPU datasheet (SXM column, dense)"},
    {"A100 SXM4 80GB", "A100-SXM4-80GB", 19.5, 156, 312, 312, 0, 2.039, 300,
     "NVIDIA A100 Tensor Core GPU datasheet (80GB SXM, dense)"},
    {"L40S", "L40S", 91.6, 183, 362, 362, 733, 0.864, 0, "NVIDIA L40S datasheet (dense)"},
    {"GB200", "GB200", 90, 1250, 2500, 2500, 5000, 8.0, 900, "NVIDIA GB200 NVL72 datasheet (per GPU, dense; 1,200 W)"},
    {"B200", "B200", 80, 1100, 2250, 2250, 4500, 8.0, 900, "NVIDIA HGX B200 datasheet (per GPU, dense; 1,000 W)"},
    {"MI300X", "MI300X", 163.4, 653.7, 1307.4, 1307.4, 2614.9, 5.3, 448,
     "AMD Instinct MI300X data sheet (dense matrix)"},
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

double Roof::attainable_tflops(double flops, double bytes) const {
    if (!known() || flops <= 0 || bytes <= 0) return 0;
    return std::min(peak_tflops, flops / bytes * memory_tb_s);
}

Roof datasheet_roof(const DeviceRoof& table, const std::string& dtype) {
    Roof r;
    r.device = std::string(table.name);
    r.dtype = dtype;
    r.peak_tflops = peak_tflops(table, dtype);
    r.memory_tb_s = table.memory_tb_s;
    r.source = std::string(table.source);
    return r;
}

const Roof* find_roof(const std::vector<Roof>& roofs, const std::string& dtype) {
    for (const Roof& r : roofs)
        if (r.dtype == dtype && r.known()) return &r;
    return nullptr;
}

std::string trace_dtype_name(Dtype dtype) {
    switch (dtype) {
        case Dtype::Float32: return "float";
        case Dtype::Float64: return "double";
        case Dtype::Float16: return "c10::Half";
        case Dtype::BFloat16: return "c10::BFloat16";
    }
    return "?";
}

}  // namespace awb
