#include "engine/cuda_support.h"

#ifdef AWB_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>

#include "engine/compat.h"
#include "model/environment.h"
#endif

namespace awb::cuda {

#ifdef AWB_WITH_CUDA

bool available() { return at::cuda::is_available(); }
int device_count() { return int(at::cuda::device_count()); }
// Every query below answers "none" (false, -1, "") for a device that is not there, as on a machine
// without a GPU, instead of letting LibTorch assert. For a device that is there it first initialises
// CUDA as torch.cuda does: LibTorch 2.x sets its caching allocator up lazily, with the first CUDA tensor,
// and until then the allocator's statistics throw "Invalid device argument" (seen on the H200).
static bool has_device(int device) {
    if (device < 0 || !available() || device >= device_count()) return false;
#if TORCH_VERSION_MAJOR >= 2
    at::globalContext().lazyInitDevice(c10::DeviceType::CUDA);
#else
    at::globalContext().lazyInitCUDA();
#endif
    return true;
}

bool supports_bf16(int device) { return has_device(device) && at::cuda::getDeviceProperties(device)->major >= 8; }
int64_t free_bytes(int device) {
    if (!has_device(device)) return -1;
    size_t free = 0, total = 0;
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(device);
    const bool ok = cudaMemGetInfo(&free, &total) == cudaSuccess;
    cudaSetDevice(previous);
    if (!ok) return -1;
    // Memory PyTorch's caching allocator holds but does not use is free for a run too.
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device);
    const auto agg = compat::kAllocatorAggregate;
    return int64_t(free) + stats.reserved_bytes[agg].current - stats.allocated_bytes[agg].current;
}
int64_t total_bytes(int device) {
    return has_device(device) ? int64_t(at::cuda::getDeviceProperties(device)->totalGlobalMem) : -1;
}
std::string device_name(int device) { return has_device(device) ? at::cuda::getDeviceProperties(device)->name : ""; }
std::string runtime_version() {
    int v = 0;
    return cudaRuntimeGetVersion(&v) == cudaSuccess ? cuda_version_text(v) : std::string();
}
std::string driver_version() {  // the CUDA version the driver supports; 0 when no driver is installed
    int v = 0;
    return cudaDriverGetVersion(&v) == cudaSuccess && v > 0 ? cuda_version_text(v) : std::string();
}
void synchronize(int device) {
    if (!has_device(device)) return;
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(device);
    cudaDeviceSynchronize();
    cudaSetDevice(previous);
}
void reset_peak_memory(int device) {
    if (has_device(device)) c10::cuda::CUDACachingAllocator::resetPeakStats(device);
}
int64_t max_memory_allocated(int device) {
    if (!has_device(device)) return -1;
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device);
    return stats.allocated_bytes[compat::kAllocatorAggregate].peak;
}
int64_t memory_allocated(int device) {
    if (!has_device(device)) return -1;
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device);
    return stats.allocated_bytes[compat::kAllocatorAggregate].current;
}

EventTimer::EventTimer(int device) : device_(device) {
    if (!has_device(device)) return;  // start() and stop_ns() then do nothing and answer -1
    cudaEvent_t a = nullptr, b = nullptr;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    start_ = a;
    stop_ = b;
}
EventTimer::~EventTimer() {
    if (start_) cudaEventDestroy(static_cast<cudaEvent_t>(start_));
    if (stop_) cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
}
void EventTimer::start() {
    if (!start_) return;
    cudaEventRecord(static_cast<cudaEvent_t>(start_), at::cuda::getCurrentCUDAStream(device_).stream());
}
double EventTimer::stop_ns() {
    if (!stop_) return -1;
    cudaEventRecord(static_cast<cudaEvent_t>(stop_), at::cuda::getCurrentCUDAStream(device_).stream());
    if (cudaEventSynchronize(static_cast<cudaEvent_t>(stop_)) != cudaSuccess) return -1;
    float ms = 0;
    if (cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_), static_cast<cudaEvent_t>(stop_)) != cudaSuccess)
        return -1;
    return double(ms) * 1e6;
}

#else

EventTimer::EventTimer(int device) : device_(device) {}
EventTimer::~EventTimer() = default;
void EventTimer::start() {}
double EventTimer::stop_ns() { return -1; }

bool available() { return false; }
int device_count() { return 0; }
bool supports_bf16(int) { return false; }
int64_t free_bytes(int) { return -1; }
int64_t total_bytes(int) { return -1; }
std::string device_name(int) { return {}; }
std::string runtime_version() { return {}; }
std::string driver_version() { return {}; }
void synchronize(int) {}
void reset_peak_memory(int) {}
int64_t max_memory_allocated(int) { return -1; }
int64_t memory_allocated(int) { return -1; }

#endif

}  // namespace awb::cuda
