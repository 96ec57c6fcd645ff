#include "engine/allocation_tracker.h"

#include <c10/util/ThreadLocalDebugInfo.h>

#include <algorithm>
#include <atomic>

#include "engine/compat.h"

namespace awb {

struct AllocationTracker::State final : public c10::MemoryReportingInfoBase {
    void reportMemoryUsage(void*, int64_t alloc_size, compat::MemoryTotal, compat::MemoryTotal,
                           c10::Device device) override {
        if (device.type() != c10::DeviceType::CPU) return;
        const int64_t now = current.fetch_add(alloc_size) + alloc_size;
        if (alloc_size > 0) allocations.fetch_add(1);
        int64_t seen = peak.load();
        while (now > seen && !peak.compare_exchange_weak(seen, now)) {}
    }
    bool memoryProfilingEnabled() const override { return true; }

    std::atomic<int64_t> current{0};
    std::atomic<int64_t> peak{0};
    std::atomic<int64_t> allocations{0};
};

struct AllocationTracker::Guard {
    explicit Guard(std::shared_ptr<c10::DebugInfoBase> info)
        : guard(c10::DebugInfoKind::PROFILER_STATE, std::move(info)) {}
    c10::DebugInfoGuard guard;
};

AllocationTracker::AllocationTracker() : state_(std::make_shared<State>()), guard_(std::make_unique<Guard>(state_)) {}

AllocationTracker::~AllocationTracker() = default;

int64_t AllocationTracker::current_bytes() const { return state_->current.load(); }
int64_t AllocationTracker::peak_bytes() const { return state_->peak.load(); }
int64_t AllocationTracker::allocations() const { return state_->allocations.load(); }

}  // namespace awb
