#include "compat.h"

namespace awb::compat {

std::vector<std::string> sdpa_backends(bool cuda) {
#if AWB_TORCH2
    // CPU: the math path and the fused flash kernel (_scaled_dot_product_flash_attention_for_cpu).
    if (cuda) return {"math", "flash", "efficient", "cudnn"};
    return {"math", "flash"};
#else
    (void)cuda;
    return {};
#endif
}

#if AWB_TORCH2
namespace warning_api = c10::WarningUtils;
#else
namespace warning_api = c10::Warning;
#endif

#if AWB_TORCH2
struct WarningCollector::Handler final : c10::WarningHandler {
    void process(const c10::Warning& w) override {
        warnings.push_back(w);
        messages.push_back(w.msg());
    }
    std::vector<c10::Warning> warnings;
    std::vector<std::string> messages;
};
#else
struct WarningCollector::Handler final : c10::WarningHandler {
    void process(const c10::SourceLocation& where, const std::string& msg, bool verbatim) override {
        warnings.push_back({where, msg, verbatim});
        messages.push_back(msg);
    }
    struct Held {
        c10::SourceLocation where;
        std::string msg;
        bool verbatim;
    };
    std::vector<Held> warnings;
    std::vector<std::string> messages;
};
#endif

WarningCollector::WarningCollector()
    : handler_(std::make_unique<Handler>()), previous_(warning_api::get_warning_handler()) {
    warning_api::set_warning_handler(handler_.get());
}

WarningCollector::~WarningCollector() { warning_api::set_warning_handler(previous_); }

const std::vector<std::string>& WarningCollector::messages() const { return handler_->messages; }

void WarningCollector::replay() {
    warning_api::set_warning_handler(previous_);
    for (const auto& w : handler_->warnings) {
#if AWB_TORCH2
        previous_->process(w);
#else
        previous_->process(w.where, w.msg, w.verbatim);
#endif
    }
    handler_->warnings.clear();
    handler_->messages.clear();
    warning_api::set_warning_handler(handler_.get());
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
