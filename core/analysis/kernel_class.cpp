#include "analysis/kernel_class.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <utility>

#include "analysis/attention_rules.h"
#include "analysis/kernel_class_rules.h"
#include "analysis/trace_links.h"

namespace awb {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

}  // namespace

std::string to_string(KernelClass c) {
    switch (c) {
        case KernelClass::Gemm: return "GEMM";
        case KernelClass::Convolution: return "convolution";
        case KernelClass::AttentionFlash: return "attention (flash)";
        case KernelClass::AttentionMemEfficient: return "attention (memory-efficient)";
        case KernelClass::AttentionCudnn: return "attention (cuDNN)";
        case KernelClass::AttentionMath: return "attention (math)";
        case KernelClass::AttentionOther: return "attention (other)";
        case KernelClass::Softmax: return "softmax";
        case KernelClass::Normalization: return "normalization";
        case KernelClass::Reduction: return "reduction";
        case KernelClass::Elementwise: return "elementwise";
        case KernelClass::Embedding: return "embedding";
        case KernelClass::Communication: return "communication";
        case KernelClass::Memcpy: return "memcpy";
        case KernelClass::Memset: return "memset";
        case KernelClass::Other: break;
    }
    return "other";
}

std::string class_key(KernelClass c) {
    switch (c) {
        case KernelClass::AttentionFlash: return "attention_flash";
        case KernelClass::AttentionMemEfficient: return "attention_mem_efficient";
        case KernelClass::AttentionCudnn: return "attention_cudnn";
        case KernelClass::AttentionMath: return "attention_math";
        case KernelClass::AttentionOther: return "attention_other";
        default: return lower(to_string(c));
    }
}

bool is_computation(KernelClass c) {
    return c != KernelClass::Communication && c != KernelClass::Memcpy && c != KernelClass::Memset;
}

namespace {

// An attention kernel by the rules' kernel names: its class by the library (CK's FMHA: flash).
KernelClass by_attention_rule(std::string_view name) {
    const AttentionRule* rule = match_kernel_rule(name);
    if (!rule) return KernelClass::Other;
    if (rule->library == "flash-attn") return KernelClass::AttentionFlash;
    if (rule->library == "xformers") return KernelClass::AttentionMemEfficient;
    if (rule->library == "cuDNN") return KernelClass::AttentionCudnn;
    // CK's and aiter's FMHA (forward, backward, batch prefill) are FlashAttention's algorithm.
    if (rule->library == "aiter" &&
        (rule->implementation.find("FMHA") != std::string::npos || rule->implementation.rfind("CK ", 0) == 0))
        return KernelClass::AttentionFlash;
    return KernelClass::AttentionOther;
}

}  // namespace

bool is_communication_kernel(std::string_view raw_name) {
    static const KernelClassRule& rule = kernel_class_rule(KernelClass::Communication, KernelRuleBasis::Name);
    return name_rule_holds(rule, lower(raw_name));
}

bool is_convolution_op(std::string_view op) {
    if (op.find("convolution") != std::string_view::npos)
        return true;  // aten::convolution, aten::cudnn_convolution, ...
    return op.rfind("aten::conv", 0) == 0 && op.rfind("aten::convert", 0) != 0;  // aten::conv2d, aten::conv_transpose2d
}

namespace {

// Whether a rule on the event's kind, an op above it or its launching op holds.
bool context_rule_holds(const KernelClassRule& r, EventKind kind, std::string_view launching_op,
                        bool under_math_attention, bool under_library_attention, bool under_convolution) {
    switch (r.basis) {
        case KernelRuleBasis::EventKind:
            return (r.cls == KernelClass::Memcpy && kind == EventKind::Memcpy) ||
                   (r.cls == KernelClass::Memset && kind == EventKind::Memset);
        case KernelRuleBasis::OpAbove:
            if (r.cls == KernelClass::AttentionMath) return under_math_attention;
            if (r.cls == KernelClass::Convolution) return under_convolution || is_convolution_op(launching_op);
            return under_library_attention;
        case KernelRuleBasis::LaunchingOp: return std::find(r.any.begin(), r.any.end(), launching_op) != r.any.end();
        default: return false;
    }
}

}  // namespace

KernelClass classify_kernel(std::string_view raw_name, EventKind kind, std::string_view launching_op,
                            bool under_math_attention, bool under_library_attention, bool under_convolution) {
    const std::string name = lower(raw_name);
    for (const KernelClassRule& r : kernel_class_rules()) {
        if (r.basis == KernelRuleBasis::Name) {
            if (name_rule_holds(r, name)) return r.cls;
        } else if (r.basis == KernelRuleBasis::AttentionRules) {
            if (kind != EventKind::Kernel) continue;
            if (const KernelClass c = by_attention_rule(raw_name); c != KernelClass::Other) return c;
        } else if (context_rule_holds(r, kind, launching_op, under_math_attention, under_library_attention,
                                      under_convolution)) {
            return r.cls;
        }
    }
    return KernelClass::Other;
}

std::vector<KernelClass> kernel_classes(const Trace& trace) {
    const auto& events = trace.events();
    std::vector<KernelClass> out(events.size(), KernelClass::Other);
    if (std::none_of(events.begin(), events.end(), is_device_work)) return out;  // a CPU run: no op index to build
    const LaunchingOps ops(trace);
    // A step launches the same few hundred kernels from the same ops: classify each combination once.
    // Names are interned (equal names, one pointer): keyed by pointer, not by hashing kernel names of
    // hundreds of characters once per launch.
    struct Seen {
        const char *name, *op;
        EventKind kind;
        bool math, library, conv;
        bool operator==(const Seen&) const = default;
    };
    struct SeenHash {
        size_t operator()(const Seen& s) const {
            const std::hash<const void*> h;
            return h(s.name) ^ (h(s.op) * 31) ^ (size_t(s.kind) << 3) ^ size_t(s.math) ^ (size_t(s.library) << 1) ^
                   (size_t(s.conv) << 2);
        }
    };
    std::unordered_map<Seen, KernelClass, SeenHash> seen;
    std::unordered_map<const char*, bool> library_op;  // per distinct (interned) op name: a library's attention op?
    auto is_library_op = [&library_op](const TraceEvent& op) {
        auto [it, added] = library_op.try_emplace(op.name.data(), false);
        if (added && op.kind == EventKind::CpuOp) {
            const AttentionRule* rule = match_op_rule(op.name.view());
            it->second = rule && rule->backend == AttentionBackend::Library;
        }
        return it->second;
    };
    std::unordered_map<const char*, bool> conv_op;  // per distinct op name: a convolution?
    auto is_conv_op = [&conv_op](const TraceEvent& op) {
        auto [it, added] = conv_op.try_emplace(op.name.data(), false);
        if (added) it->second = op.kind == EventKind::CpuOp && is_convolution_op(op.name.view());
        return it->second;
    };
    // What the chain from an op up to the first SDPA math op (or the top) holds: the math op, a library's
    // attention op, a convolution. Kept per op, so each op's chain is walked once however many kernels
    // its descendants launch (a Python-stack trace nests ops tens of frames deep).
    enum : uint8_t { kKnown = 1, kMath = 2, kLibrary = 4, kConv = 8 };
    static const std::string_view math_op = kernel_class_rule(KernelClass::AttentionMath, KernelRuleBasis::OpAbove)
                                                .any.front();  // aten::_scaled_dot_product_attention_math
    std::vector<uint8_t> chain(events.size(), 0);
    std::vector<int32_t> path;
    auto chain_of = [&](int32_t op) {
        for (int32_t a = op; a >= 0 && !(chain[size_t(a)] & kKnown); a = events[size_t(a)].parent) path.push_back(a);
        while (!path.empty()) {  // from the top down: each op's from its own and its parent's
            const int32_t a = path.back();
            path.pop_back();
            const TraceEvent& x = events[size_t(a)];
            uint8_t own = kKnown | (x.name == math_op ? kMath : 0) | (is_library_op(x) ? kLibrary : 0) |
                          (is_conv_op(x) ? kConv : 0);
            if (!(own & kMath) && x.parent >= 0) own |= chain[size_t(x.parent)];  // the walk stops at a math op
            chain[size_t(a)] = own;
        }
        return chain[size_t(op)];
    };
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& e = events[i];
        if (!is_device_work(e)) continue;
        const EventName* op = nullptr;
        bool math = false, library = false, conv = false;
        if (const int32_t launcher = ops.of(e); launcher >= 0) {
            op = &events[size_t(launcher)].name;
            const uint8_t flags = chain_of(launcher);
            math = flags & kMath;
            library = flags & kLibrary;
            conv = flags & kConv;
        }
        const auto [it, added] = seen.try_emplace(
            Seen{e.name.data(), op ? op->data() : nullptr, e.kind, math, library, conv}, KernelClass::Other);
        if (added)
            it->second = classify_kernel(e.name, e.kind, op ? op->view() : std::string_view(), math, library, conv);
        out[i] = it->second;
    }
    return out;
}

}  // namespace awb
