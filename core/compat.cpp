#include "compat.h"

namespace awb::compat {

std::vector<std::string> sdpa_backends(bool cuda) {
#if AWB_TORCH2
    if (cuda) return {"math", "flash", "efficient", "cudnn"};
    return {"math"};
#else
    (void)cuda;
    return {};
#endif
}

SdpaBackendScope::SdpaBackendScope(const std::string& backend) {
#if AWB_TORCH2
    if (backend == "auto") return;
    auto& ctx = at::globalContext();
    flash_ = ctx.userEnabledFlashSDP();
    efficient_ = ctx.userEnabledMemEfficientSDP();
    math_ = ctx.userEnabledMathSDP();
    cudnn_ = ctx.userEnabledCuDNNSDP();
    active_ = true;
    ctx.setSDPUseFlash(backend == "flash");
    ctx.setSDPUseMemEfficient(backend == "efficient");
    ctx.setSDPUseMath(backend == "math");
    ctx.setSDPUseCuDNN(backend == "cudnn");
#else
    (void)backend;
#endif
}

SdpaBackendScope::~SdpaBackendScope() {
#if AWB_TORCH2
    if (!active_) return;
    auto& ctx = at::globalContext();
    ctx.setSDPUseFlash(flash_);
    ctx.setSDPUseMemEfficient(efficient_);
    ctx.setSDPUseMath(math_);
    ctx.setSDPUseCuDNN(cudnn_);
#endif
}

}  // namespace awb::compat
