// Launch-to-kernel links of a trace (what Kineto's ac2g flows draw): for a selected event, the pairs
// (runtime launch, device event) it takes part in. A runtime call and its kernels share CUPTI's
// correlation id; an op reaches its launches through their External id (linked_correlation_id),
// and an op's launches include those of the ops nested under it; and for a device event, the op (by
// External id) or the runtime call (by correlation) that launched it. Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/mixed_hash.h"
#include "model/trace.h"

namespace awb {

struct FlowLink {
    int32_t from = -1;  // the launch (a runtime call on a CPU thread)
    int32_t to = -1;    // the kernel, copy or set it started
    bool operator==(const FlowLink&) const = default;
};

std::vector<FlowLink> launch_flows(const Trace& trace, int32_t event);

// The CPU op each kernel, copy or set was launched from: the op whose id (correlation_id) is the
// device event's External id (linked_correlation_id), within its rank. Built once per trace, then
// asked per device event (the kernel classes, the attention calls).
class LaunchingOps {
public:
    explicit LaunchingOps(const Trace& trace);
    int32_t of(const TraceEvent& device_event) const;  // index into the trace's events, -1 when unlinked

private:
    MixedMap<int32_t> ops_;  // link_key(rank, id) -> op
};

// The runtime call that launched each kernel, copy or set: the one with its CUPTI correlation id, on its
// rank. Built once per trace (the GPU time breakdown, the collectives and their overlap ask it per
// device event), then asked per device event.
class LaunchCalls {
public:
    explicit LaunchCalls(const Trace& trace);
    int32_t of(const TraceEvent& device_event) const;  // index into the trace's events, -1 when not in the trace
    // When the device event was launched: its launch's start, or its own start without one.
    int64_t launched_at(const TraceEvent& device_event) const;

private:
    const std::vector<TraceEvent>* events_;
    MixedMap<int32_t> calls_;  // link_key(rank, correlation) -> runtime call
};

}  // namespace awb
