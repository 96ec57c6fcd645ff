// Launch-to-kernel links of a trace (what Kineto's ac2g flows draw): for a selected event, the pairs
// (runtime launch, device event) it takes part in. A runtime call and its kernels share CUPTI's
// correlation id; an op reaches its launches through their External id (linked_correlation_id),
// and an op's launches include those of the ops nested under it. Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "model/trace.h"

namespace awb {

struct FlowLink {
    int32_t from = -1;  // the launch (a runtime call on a CPU thread)
    int32_t to = -1;    // the kernel, copy or set it started
    bool operator==(const FlowLink&) const = default;
};

std::vector<FlowLink> launch_flows(const Trace& trace, int32_t event);

}  // namespace awb
