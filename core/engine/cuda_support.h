// The few CUDA calls the core needs, behind plain functions: compiled against the CUDA runtime when
// LibTorch has CUDA (AWB_WITH_CUDA), and answering "no CUDA" otherwise. A device index that is not
// there (every index on a machine without a GPU) gets the same answers: false, -1, "", nothing done.
#pragma once

#include <cstdint>
#include <string>

namespace awb::cuda {

// Whether this LibTorch was built with CUDA (what available() can say yes to at all).
#ifdef AWB_WITH_CUDA
inline constexpr bool kBuilt = true;
#else
inline constexpr bool kBuilt = false;
#endif

bool available();
int device_count();
bool supports_bf16(int device);
int64_t free_bytes(int device);   // -1 when unknown
int64_t total_bytes(int device);  // the device's memory, -1 when unknown
std::string device_name(int device);
std::string runtime_version();  // "13.0": the CUDA runtime linked, empty without CUDA
std::string driver_version();   // the CUDA version the driver supports, empty without a driver
void synchronize(int device);
void reset_peak_memory(int device);        // torch.cuda.reset_peak_memory_stats
int64_t max_memory_allocated(int device);  // torch.cuda.max_memory_allocated, -1 without CUDA
int64_t memory_allocated(int device);      // torch.cuda.memory_allocated, -1 without CUDA

// Times work queued on the device's current stream with CUDA events: start() and stop_ns() record
// an event each; stop_ns() waits for the second and returns the time between them (-1 without CUDA).
class EventTimer {
public:
    explicit EventTimer(int device);
    ~EventTimer();
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;
    void start();
    double stop_ns();

private:
    int device_;
    void* start_ = nullptr;  // cudaEvent_t
    void* stop_ = nullptr;
};

}  // namespace awb::cuda
