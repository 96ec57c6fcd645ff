// Peak of the bytes a thread allocates, without the profiler: hooks the allocator's memory reporting
// (the channel torch.profiler's profile_memory listens to) for the lifetime of the object.
// Includes no torch: the tracker's state lives in the .cpp.
#pragma once

#include <cstdint>
#include <memory>

namespace awb {

class AllocationTracker {
public:
    AllocationTracker();   // starts tracking on the calling thread (and the work it dispatches)
    ~AllocationTracker();  // stops
    AllocationTracker(const AllocationTracker&) = delete;
    AllocationTracker& operator=(const AllocationTracker&) = delete;

    int64_t current_bytes() const;  // allocated minus freed since construction, CPU only
    int64_t peak_bytes() const;     // max of current_bytes() so far
    int64_t allocations() const;

private:
    struct State;
    std::shared_ptr<State> state_;
    struct Guard;
    std::unique_ptr<Guard> guard_;
};

}  // namespace awb
