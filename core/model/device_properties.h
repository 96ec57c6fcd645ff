// A GPU as a trace describes it (Kineto's top-level "deviceProperties": one object per device), read
// once by the importer; what the workbench shows of it and matches the roofline's device table against.
// Pure C++.
#pragma once

#include <cstdint>
#include <string>

namespace awb {

struct DeviceProperties {
    int id = -1;                    // "id": the device index the trace's events name
    std::string name;               // "name": "NVIDIA H100 80GB HBM3"
    int64_t total_global_mem = -1;  // "totalGlobalMem", bytes; -1 when not given
    int compute_major = -1;         // "computeMajor" / "computeMinor": compute capability; -1 when not given
    int compute_minor = 0;
    int num_sms = -1;  // "numSms"; -1 when not given
    bool operator==(const DeviceProperties&) const = default;
};

// "NVIDIA H100 80GB HBM3 (79.1 GiB, compute 9.0, 132 SMs)", each fact only when given; "unnamed GPU
// (192.0 GiB, compute 9.4, 304 SMs)" without a name; "" when nothing is given.
std::string device_text(const DeviceProperties& d);

}  // namespace awb
