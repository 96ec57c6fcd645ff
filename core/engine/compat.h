// Every difference between LibTorch 1.13 (Debian 12) and 2.x (Debian 13, the PyTorch wheels) that
// the core depends on, in one place. Only .cpp files of the core include this (it pulls in torch).
#pragma once

#include <ATen/ATen.h>
#include <c10/core/Allocator.h>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/version.h>
#ifdef AWB_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#if TORCH_VERSION_MAJOR >= 2
#define AWB_TORCH2 1
#else
#define AWB_TORCH2 0
#endif

// Declared in torch/csrc/profiler/kineto_shim.h (1.13 and 2.x alike), a header that includes Kineto's
// ActivityType.h, which Debian 12's libtorch-dev does not ship; the symbol is exported by libtorch_cpu.
namespace torch::autograd::profiler {
TORCH_API void profilerStep();
}  // namespace torch::autograd::profiler

namespace awb::compat {

inline constexpr bool kTorch2 = AWB_TORCH2;

namespace prof = torch::autograd::profiler;

// Event times: 1.13 reports whole microseconds, 2.x nanoseconds.
inline constexpr int64_t kClockResolutionNs = AWB_TORCH2 ? 1 : 1000;

inline int64_t start_ns(const prof::KinetoEvent& e) {
#if AWB_TORCH2
    return int64_t(e.startNs());
#else
    return int64_t(e.startUs()) * 1000;
#endif
}

inline int64_t duration_ns(const prof::KinetoEvent& e) {
#if AWB_TORCH2
    return int64_t(e.durationNs());
#else
    return int64_t(e.durationUs()) * 1000;
#endif
}

inline int64_t trace_start_ns(const prof::ProfilerResult& r) {
#if AWB_TORCH2
    return int64_t(r.trace_start_ns());
#else
    return int64_t(r.trace_start_us()) * 1000;
#endif
}

inline prof::ProfilerConfig profiler_config(bool record_shapes, bool profile_memory, bool with_stack) {
    return prof::ProfilerConfig(prof::ProfilerState::KINETO, record_shapes, profile_memory, with_stack,
                                /*with_flops=*/false, /*with_modules=*/false);
}

// Kineto, the profiler's activity library with its own chrome-trace writer: the PyTorch wheels (2.x)
// are built with it, Debian's 1.13 without (its ProfilerResult::save() throws). No header says so to
// a consumer (USE_KINETO is not exported), so this is a property of the two builds we support.
inline constexpr bool kKineto = AWB_TORCH2;

// Kineto's own chrome trace of one profiler window (torch.profiler's export_chrome_trace).
inline void save_kineto_trace(prof::ProfilerResult& result, const std::string& path) { result.save(path); }

// torch.autograd._kineto_step(), called by torch.profiler.profile.step().
inline void profiler_step() { torch::autograd::profiler::profilerStep(); }

// The fused attention op. 1.13: aten::_scaled_dot_product_attention (returns (out, weights)), with a
// boolean mask meaning "attend"; 2.x: aten::scaled_dot_product_attention, same mask meaning.
inline at::Tensor sdpa(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                       const std::optional<at::Tensor>& keep_mask, bool is_causal) {
    c10::optional<at::Tensor> mask;
    if (keep_mask) mask = *keep_mask;
#if AWB_TORCH2
    return at::scaled_dot_product_attention(q, k, v, mask, 0.0, is_causal);
#else
    return std::get<0>(at::_scaled_dot_product_attention(q, k, v, mask, 0.0, false, is_causal));
#endif
}

// The type of the running totals in c10::MemoryReportingInfoBase::reportMemoryUsage: int64_t in 1.13,
// size_t in later releases; read off the declaration itself rather than guessed from the version.
template <typename F>
struct ThirdParameter;
template <typename C, typename R, typename A0, typename A1, typename A2, typename A3, typename A4>
struct ThirdParameter<R (C::*)(A0, A1, A2, A3, A4)> {
    using type = A2;
};
using MemoryTotal = ThirdParameter<decltype(&c10::MemoryReportingInfoBase::reportMemoryUsage)>::type;

#ifdef AWB_WITH_CUDA
// Index of the all-pools entry in the CUDA caching allocator's statistics arrays: the enum moved from
// c10::cuda::CUDACachingAllocator (1.13) to c10::CachingAllocator (2.x, shared by every device).
#if AWB_TORCH2
inline constexpr size_t kAllocatorAggregate = size_t(c10::CachingAllocator::StatType::AGGREGATE);
#else
inline constexpr size_t kAllocatorAggregate = size_t(c10::cuda::CUDACachingAllocator::StatType::AGGREGATE);
#endif
#endif

// Collects LibTorch's warnings (TORCH_WARN) raised on this thread while alive instead of printing
// them; the handler interface changed between 1.13 (source, message, verbatim) and 2.x (a Warning).
// replay() hands the collected ones to the handler that was there before.
class WarningCollector {
public:
    WarningCollector();
    ~WarningCollector();
    WarningCollector(const WarningCollector&) = delete;
    WarningCollector& operator=(const WarningCollector&) = delete;
    std::vector<std::string> messages() const;
    void replay();

private:
    struct Handler;
    std::unique_ptr<Handler> handler_;
    c10::WarningHandler* previous_ = nullptr;
};

// SDPA backend names this build can restrict itself to (besides "auto"); empty on 1.13.
std::vector<std::string> sdpa_backends(bool cuda);

// Restricts SDPA to one backend while alive (like torch.nn.attention.sdpa_kernel), restoring the
// previous flags after. "auto" and 1.13 leave everything as it is.
class SdpaBackendScope {
public:
    explicit SdpaBackendScope(const std::string& backend);
    ~SdpaBackendScope();
    SdpaBackendScope(const SdpaBackendScope&) = delete;
    SdpaBackendScope& operator=(const SdpaBackendScope&) = delete;

private:
    bool active_ = false;
    bool flash_ = false, efficient_ = false, math_ = false, cudnn_ = false;
};

}  // namespace awb::compat
