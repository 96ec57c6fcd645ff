#include "analysis/kernel_class.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <utility>

#include "analysis/attention_rules.h"
#include "analysis/trace_links.h"

namespace awb {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

bool has(const std::string& haystack, std::string_view needle) { return haystack.find(needle) != std::string::npos; }

template <size_t N>
bool has_any(const std::string& haystack, const std::string_view (&needles)[N]) {
    return std::any_of(std::begin(needles), std::end(needles), [&](std::string_view n) { return has(haystack, n); });
}

KernelClass by_op(std::string_view op) {
    static const std::pair<std::string_view, KernelClass> ops[] = {
        {"aten::mm", KernelClass::Gemm},           {"aten::bmm", KernelClass::Gemm},
        {"aten::addmm", KernelClass::Gemm},        {"aten::baddbmm", KernelClass::Gemm},
        {"aten::matmul", KernelClass::Gemm},       {"aten::linear", KernelClass::Gemm},
        {"aten::addbmm", KernelClass::Gemm},       {"aten::_softmax", KernelClass::Softmax},
        {"aten::softmax", KernelClass::Softmax},   {"aten::_softmax_backward_data", KernelClass::Softmax},
        {"aten::native_layer_norm", KernelClass::Normalization},
        {"aten::layer_norm", KernelClass::Normalization},
        {"aten::native_batch_norm", KernelClass::Normalization},
        {"aten::_fused_rms_norm", KernelClass::Normalization},
        {"aten::native_layer_norm_backward", KernelClass::Normalization},
        {"aten::native_batch_norm_backward", KernelClass::Normalization},
        {"aten::cudnn_batch_norm", KernelClass::Normalization},
        {"aten::cudnn_batch_norm_backward", KernelClass::Normalization},
        {"aten::miopen_batch_norm", KernelClass::Normalization},
        {"aten::miopen_batch_norm_backward", KernelClass::Normalization},
        {"aten::native_group_norm", KernelClass::Normalization},
        {"aten::native_group_norm_backward", KernelClass::Normalization},
        {"aten::embedding", KernelClass::Embedding},
        {"aten::embedding_dense_backward", KernelClass::Embedding},
        {"aten::embedding_backward", KernelClass::Embedding},
        {"aten::_embedding_bag", KernelClass::Embedding},
        {"aten::_embedding_bag_backward", KernelClass::Embedding},
        {"aten::sum", KernelClass::Reduction},     {"aten::mean", KernelClass::Reduction},
        {"aten::amax", KernelClass::Reduction},    {"aten::max", KernelClass::Reduction},
        {"aten::add", KernelClass::Elementwise},   {"aten::add_", KernelClass::Elementwise},
        {"aten::mul", KernelClass::Elementwise},   {"aten::mul_", KernelClass::Elementwise},
        {"aten::div", KernelClass::Elementwise},   {"aten::div_", KernelClass::Elementwise},
        {"aten::sub", KernelClass::Elementwise},   {"aten::exp", KernelClass::Elementwise},
        {"aten::fill_", KernelClass::Elementwise}, {"aten::copy_", KernelClass::Elementwise},
        {"aten::masked_fill", KernelClass::Elementwise}, {"aten::where", KernelClass::Elementwise},
    };
    for (const auto& [name, c] : ops)
        if (op == name) return c;
    return KernelClass::Other;
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
    if (rule->library == "aiter" && (rule->implementation.find("FMHA") != std::string::npos || rule->implementation.rfind("CK ", 0) == 0))
        return KernelClass::AttentionFlash;
    return KernelClass::AttentionOther;
}

}  // namespace

bool is_communication_kernel(std::string_view raw_name) {
    const std::string name = lower(raw_name);
    // NCCL (ncclKernel_*, ncclDevKernel_* of 2.19+), RCCL, MSCCL(++), NVSHMEM; the engines' custom
    // all-reduce: vLLM's and SGLang's cross_device_reduce_*, quickreduce, TensorRT-LLM's and FlashInfer's
    // one/two-shot and Lamport all-reduce, torch's symmetric memory (multimem_*, one_shot_all_reduce);
    // DeepEP's dispatch and combine.
    static const std::string_view comm[] = {"nccl", "rccl", "msccl", "nvshmem", "cross_device_reduce", "quickreduce", "quick_reduce",
                                            "allreduce", "all_reduce", "allgather", "all_gather", "reduce_scatter", "reducescatter",
                                            "alltoall", "all_to_all", "multimem", "symm_mem", "symmetric_memory", "deep_ep", "custom_ar",
                                            "lamport", "sendrecv"};
    return has_any(name, comm);
}

bool is_convolution_op(std::string_view op) {
    if (op.find("convolution") != std::string_view::npos) return true;  // aten::convolution, aten::cudnn_convolution, ...
    return op.rfind("aten::conv", 0) == 0 && op.rfind("aten::convert", 0) != 0;  // aten::conv2d, aten::conv_transpose2d
}

namespace {

// Attention by name alone (no rule matched): FlashAttention's, CK's FMHA (FlashAttention's algorithm),
// PyTorch's memory-efficient (xformers' CUTLASS FMHA), cuDNN's.
KernelClass attention_by_name(const std::string& name) {
    if (has(name, "cudnn") && (has(name, "sdpa") || has(name, "fmha") || has(name, "flash"))) return KernelClass::AttentionCudnn;
    static const std::string_view flash[] = {"flash_fwd", "flash_bwd", "pytorch_flash", "flash::", "flashattn", "flash_attn"};
    if (has_any(name, flash)) return KernelClass::AttentionFlash;
    static const std::string_view ck[] = {"ck_tile", "ck::", "_zn2ck", "_zn7ck_tile"};
    if (has(name, "fmha") && has_any(name, ck)) return KernelClass::AttentionFlash;
    static const std::string_view efficient[] = {"fmha", "efficient_attention", "mem_eff"};
    if (has_any(name, efficient)) return KernelClass::AttentionMemEfficient;
    return KernelClass::Other;
}

// Convolutions by name: cuDNN's (scudnn, winograd, FFT, implicit GEMM, dgrad/wgrad/fprop kernels and
// their offset helpers), MIOpen's implicit GEMMs (igemm_fwd/bwd/wrw), CK's grouped convolutions.
bool convolution_by_name(const std::string& name) {
    static const std::string_view conv[] = {"convolution", "conv2d", "conv3d", "grouped_conv", "_conv_", "scudnn", "winograd", "dgrad",
                                            "wgrad", "fprop", "implicit_gemm", "implicit_convolve", "igemm_fwd", "igemm_bwd", "igemm_wrw",
                                            "computeoffsetskernel", "computeboffsetskernel", "computewgradboffsetskernel"};
    return has_any(name, conv) || (has(name, "fft2d") && has(name, "cudnn"));
}

// By name, after attention: convolution, GEMM, softmax, normalization, embedding, reduction, elementwise.
KernelClass work_by_name(const std::string& name) {
    if (convolution_by_name(name)) return KernelClass::Convolution;
    std::string gemm_name = name;  // FBGEMM is a library's name, not a GEMM
    for (size_t at; (at = gemm_name.find("fbgemm")) != std::string::npos;) gemm_name.erase(at, 6);
    static const std::string_view gemm[] = {"gemm", "gemv", "cutlass", "xmma", "nvjet", "cublas", "cijk_", "triton_tem", "_matmul_ogs", "matmul_kernel"};
    if (has_any(gemm_name, gemm)) return KernelClass::Gemm;  // _matmul_ogs: triton_kernels' MoE matmul (vLLM)
    if (has(name, "softmax")) return KernelClass::Softmax;
    static const std::string_view norm[] = {"layer_norm", "layernorm", "batch_norm", "batchnorm", "rms_norm", "rmsnorm",
                                            "group_norm", "groupnorm", "::bn_fw", "::bn_bw", "bn_fw_tr", "bn_fw_inf"};
    if (has_any(name, norm)) return KernelClass::Normalization;
    if (has(name, "embedding") && !has(name, "rotary")) return KernelClass::Embedding;
    static const std::string_view reduce[] = {"reduce", "triton_red", "triton_per"};
    if (has_any(name, reduce)) return KernelClass::Reduction;
    // multi_tensor_apply: the fused optimizers' (Adam's) update, elementwise over lists of tensors; rotary embeddings.
    static const std::string_view elementwise[] = {"elementwise", "triton_poi", "fill_kernel", "catarraybatchedcopy", "multi_tensor_apply",
                                                   "rotary_embedding"};
    if (has_any(name, elementwise)) return KernelClass::Elementwise;
    return KernelClass::Other;
}

}  // namespace

KernelClass classify_kernel(std::string_view raw_name, EventKind kind, std::string_view launching_op, bool under_math_attention,
                            bool under_library_attention, bool under_convolution) {
    const std::string name = lower(raw_name);
    if (kind == EventKind::Memcpy) return KernelClass::Memcpy;
    if (kind == EventKind::Memset) return KernelClass::Memset;
    if (has(name, "__amd_rocclr_copy")) return KernelClass::Memcpy;  // ROCm's copy kernels
    if (has(name, "__amd_rocclr_fill")) return KernelClass::Memset;
    if (is_communication_kernel(name)) return KernelClass::Communication;
    if (kind == EventKind::Kernel)
        if (const KernelClass c = by_attention_rule(raw_name); c != KernelClass::Other) return c;
    if (const KernelClass c = attention_by_name(name); c != KernelClass::Other) return c;
    if (under_math_attention) return KernelClass::AttentionMath;
    if (under_library_attention) return KernelClass::AttentionOther;
    if (under_convolution || is_convolution_op(launching_op)) return KernelClass::Convolution;
    if (const KernelClass c = work_by_name(name); c != KernelClass::Other) return c;
    return by_op(launching_op);
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
            return h(s.name) ^ (h(s.op) * 31) ^ (size_t(s.kind) << 3) ^ size_t(s.math) ^ (size_t(s.library) << 1) ^ (size_t(s.conv) << 2);
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
    std::vector<uint8_t> chain(events.size(), 0);
    std::vector<int32_t> path;
    auto chain_of = [&](int32_t op) {
        for (int32_t a = op; a >= 0 && !(chain[size_t(a)] & kKnown); a = events[size_t(a)].parent) path.push_back(a);
        while (!path.empty()) {  // from the top down: each op's from its own and its parent's
            const int32_t a = path.back();
            path.pop_back();
            const TraceEvent& x = events[size_t(a)];
            uint8_t own = kKnown | (x.name == "aten::_scaled_dot_product_attention_math" ? kMath : 0) |
                          (is_library_op(x) ? kLibrary : 0) | (is_conv_op(x) ? kConv : 0);
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
        const auto [it, added] = seen.try_emplace(Seen{e.name.data(), op ? op->data() : nullptr, e.kind, math, library, conv}, KernelClass::Other);
        if (added) it->second = classify_kernel(e.name, e.kind, op ? op->view() : std::string_view(), math, library, conv);
        out[i] = it->second;
    }
    return out;
}

}  // namespace awb
