#include "engine/compat.h"

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

// The handler interface and its namespace changed between 1.13 and 2.x; the handler keeps each warning
// whole, so that replay() can hand it on unchanged.
#if AWB_TORCH2
namespace warning_api = c10::WarningUtils;
struct WarningCollector::Handler final : c10::WarningHandler {
    void process(const c10::Warning& w) override { held.push_back(w); }
    static const std::string& message(const c10::Warning& w) { return w.msg(); }
    void pass_on(c10::WarningHandler& to) const {
        for (const auto& w : held) to.process(w);
    }
    std::vector<c10::Warning> held;
};
#else
namespace warning_api = c10::Warning;
struct WarningCollector::Handler final : c10::WarningHandler {
    struct Held {
        c10::SourceLocation where;
        std::string msg;
        bool verbatim;
    };
    void process(const c10::SourceLocation& where, const std::string& msg, bool verbatim) override {
        held.push_back({where, msg, verbatim});
    }
    static const std::string& message(const Held& w) { return w.msg; }
    void pass_on(c10::WarningHandler& to) const {
        for (const auto& w : held) to.process(w.where, w.msg, w.verbatim);
    }
    std::vector<Held> held;
};
#endif

WarningCollector::WarningCollector()
    : handler_(std::make_unique<Handler>()), previous_(warning_api::get_warning_handler()) {
    warning_api::set_warning_handler(handler_.get());
}

WarningCollector::~WarningCollector() { warning_api::set_warning_handler(previous_); }

std::vector<std::string> WarningCollector::messages() const {
    std::vector<std::string> out;
    for (const auto& w : handler_->held) out.push_back(Handler::message(w));
    return out;
}

void WarningCollector::replay() {
    handler_->pass_on(*previous_);
    handler_->held.clear();
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
