#include "engine/roof_probe.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <tuple>

#include "engine/cuda_support.h"
#include "engine/engine_guard.h"
#include "engine/thread_count_scope.h"
#include "engine/variants.h"
#include "model/printf_string.h"

namespace awb {

namespace {

// Best wall time of `repeats` calls of work, each synchronised with the device (ns).
template <typename Work>
double best_ns(const DeviceSpec& device, int repeats, Work&& work) {
    const bool cuda = device.kind == DeviceKind::CUDA;
    const int index = std::max(0, device.index);
    double best = 0;
    for (int i = 0; i < repeats; ++i) {
        if (cuda) cuda::synchronize(index);
        const auto t0 = std::chrono::steady_clock::now();
        work();
        if (cuda) cuda::synchronize(index);
        const double ns =
            double(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
        best = i == 0 ? ns : std::min(best, ns);
    }
    return std::max(best, 1.0);
}

// Doubles `size` until one run of the work make(size) returns lasts enough_ns or size reaches max (a
// first call warms each size up); then the best of `first` + `more` runs at that size.
template <typename Make>
double time_growing(const DeviceSpec& device, int64_t& size, int64_t max, double enough_ns, int first, int more,
                    Make&& make) {
    for (;;) {
        auto work = make(size);
        work();
        const double ns = best_ns(device, first, work);
        if (ns >= enough_ns || size >= max) return std::min(ns, best_ns(device, more, work));
        size *= 2;
    }
}

Roof measure_uncached(const DeviceSpec& device, Dtype dtype, int threads) {
    Roof roof;
    roof.dtype = trace_dtype_name(dtype);
    roof.measured = true;
    const bool cuda = device.kind == DeviceKind::CUDA;
    roof.device = cuda ? cuda::device_name(std::max(0, device.index)) : "CPU";
    translate_failures("measuring the roof of " + to_string(device), [&] {
        ThreadCountScope scope(threads);
        const auto options = at::TensorOptions().dtype(torch_dtype(dtype)).device(torch_device(device));

        // Peak: a square matmul grown until one product takes long enough to time well (the first
        // product of each size warms up BLAS threads and kernel selection).
        int64_t n = 256;
        double gemm_ns = 0;
        std::string gemm_failure;
        try {
            gemm_ns = time_growing(device, n, cuda ? 16384 : 4096, 50e6, 1, 3, [&](int64_t size) {
                return [a = at::randn({size, size}, options), b = at::randn({size, size}, options),
                        c = at::Tensor()]() mutable { c = at::mm(a, b); };
            });
        } catch (const c10::Error& e) {
            gemm_failure = e.what_without_backtrace();
            gemm_failure = gemm_failure.substr(0, gemm_failure.find('\n'));
        }

        // Bandwidth: a copy of a tensor well past the last-level cache, read once and written once.
        const int64_t element = element_size(dtype);
        int64_t bytes = int64_t(64) << 20;
        const double copy_ns = time_growing(device, bytes, int64_t(1) << 30, 10e6, 3, 2, [&](int64_t size) {
            at::Tensor src = at::ones({size / element}, options);
            return [src, dst = at::empty_like(src)]() mutable { dst.copy_(src); };
        });
        roof.memory_tb_s = 2.0 * double(bytes) / copy_ns / 1e3;  // bytes/ns = GB/s
        const std::string& where =
            roof.device;  // "CPU" (BLAS may run its own threads: no count claimed) or the GPU's name
        const std::string copy = printf_string("%lld MiB copy %.1f GB/s (read + write, best of 5)",
                                               (long long)(bytes >> 20), roof.memory_tb_s * 1e3);
        if (!gemm_failure.empty()) {
            roof.source = "measured in this run, " + where + ": " + to_string(dtype) + " matmul failed (" +
                          gemm_failure + "); " + copy;
            return;
        }
        roof.peak_tflops = 2.0 * double(n) * double(n) * double(n) / gemm_ns / 1e3;  // FLOP/ns = GFLOP/s
        roof.source =
            printf_string("measured in this run, %s: %lldx%lld %s matmul %.1f GFLOP/s (best of 4), ", where.c_str(),
                          (long long)n, (long long)n, to_string(dtype).c_str(), roof.peak_tflops * 1e3) +
            copy;
    });
    return roof;
}

}  // namespace

Roof measure_roof(const DeviceSpec& device, Dtype dtype, int threads) {
    static std::mutex mutex;
    static std::map<std::tuple<int, int, int, int>, Roof> cache;
    const std::lock_guard<std::mutex> lock(mutex);
    const auto key = std::make_tuple(int(device.kind), device.index, int(dtype), threads);
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, measure_uncached(device, dtype, threads)).first;
    return it->second;
}

Roof run_roof(const RunSpec& spec, const std::string& device_name) {
    if (spec.device.kind == DeviceKind::CUDA)
        if (const DeviceRoof* table = find_device_roof(device_name)) {
            Roof roof = datasheet_roof(*table, trace_dtype_name(spec.dtype));
            if (roof.known()) return roof;
        }
    return measure_roof(spec.device, spec.dtype, spec.threads);
}

}  // namespace awb
