// The kernel class rules (see the header): the table, and its text.
#include "analysis/kernel_class_rules.h"

#include <algorithm>
#include <utility>

#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

using B = KernelRuleBasis;
using K = KernelClass;

// A table, one rule a line (left as laid out by hand):
// clang-format off
std::vector<KernelClassRule> event_and_name_rules() {
    return {
        {K::Memcpy, B::EventKind, {}, {}, {}, {}, "a copy event (gpu_memcpy)"},
        {K::Memset, B::EventKind, {}, {}, {}, {}, "a set event (gpu_memset)"},
        {K::Memcpy, B::Name, {"__amd_rocclr_copy"}, {}, {}, {}, "ROCm's copy kernels"},
        {K::Memset, B::Name, {"__amd_rocclr_fill"}, {}, {}, {}, "ROCm's fill kernels"},
        {K::Communication, B::Name,
         {"nccl", "rccl", "msccl", "nvshmem", "cross_device_reduce", "quickreduce", "quick_reduce", "allreduce",
          "all_reduce", "allgather", "all_gather", "reduce_scatter", "reducescatter", "alltoall", "all_to_all",
          "multimem", "symm_mem", "symmetric_memory", "deep_ep", "custom_ar", "lamport", "sendrecv"},
         {}, {}, {},
         "NCCL (ncclKernel_*, ncclDevKernel_* of 2.19+), RCCL, MSCCL, NVSHMEM; the engines' custom all-reduce (vLLM's "
         "and SGLang's cross_device_reduce_*, quickreduce, TensorRT-LLM's and FlashInfer's one/two-shot and Lamport "
         "kernels), torch's symmetric memory (multimem_*, one_shot_all_reduce), DeepEP's dispatch/combine"},
        {K::AttentionOther, B::AttentionRules, {}, {}, {}, {},
         "a kernel of the attention rules (attnwb inspect --attention-rules): flash-attn's -> attention (flash), "
         "xformers' -> attention (memory-efficient), cuDNN's -> attention (cuDNN), CK's and aiter's FMHA -> attention "
         "(flash), every other library's and engine's (vLLM, SGLang, FlashInfer, TensorRT-LLM, Triton) -> attention "
         "(other)"},
        {K::AttentionCudnn, B::Name, {"sdpa", "fmha", "flash"}, {"cudnn"}, {}, {}, "cuDNN's fused attention"},
        {K::AttentionFlash, B::Name,
         {"flash_fwd", "flash_bwd", "pytorch_flash", "flash::", "flashattn", "flash_attn"}, {}, {}, {},
         "FlashAttention's kernels (PyTorch SDPA's pytorch_flash:: included)"},
        {K::AttentionFlash, B::Name, {"ck_tile", "ck::", "_zn2ck", "_zn7ck_tile"}, {"fmha"}, {}, {},
         "CK's FMHA (FlashAttention's algorithm)"},
        {K::AttentionMemEfficient, B::Name, {"fmha", "efficient_attention", "mem_eff"}, {}, {}, {},
         "PyTorch's memory-efficient attention (xformers' CUTLASS FMHA)"},
        {K::AttentionMath, B::OpAbove, {"aten::_scaled_dot_product_attention_math"}, {}, {}, {},
         "any other kernel launched under SDPA's math path"},
        {K::AttentionOther, B::OpAbove, {}, {}, {}, {},
         "any other kernel launched under a library's attention op (the attention rules' op names)"},
        {K::Convolution, B::OpAbove, {}, {}, {}, {},
         "any other kernel launched under (or by) a convolution op: an op whose name holds \"convolution\" "
         "(aten::convolution, cudnn_convolution, miopen_convolution, convolution_backward), or aten::conv* other than "
         "aten::convert* (cuDNN's GEMMs, transposes and offset kernels of a convolution are its work)"},
        {K::Convolution, B::Name,
         {"convolution", "conv2d", "conv3d", "grouped_conv", "_conv_", "scudnn", "winograd", "dgrad", "wgrad", "fprop",
          "implicit_gemm", "implicit_convolve", "igemm_fwd", "igemm_bwd", "igemm_wrw", "computeoffsetskernel",
          "computeboffsetskernel", "computewgradboffsetskernel"},
         {}, {}, {},
         "cuDNN's convolutions (scudnn, winograd, implicit GEMM, dgrad/wgrad/fprop), MIOpen's igemm_*, CK's "
         "grouped_conv"},
        {K::Convolution, B::Name, {"fft2d"}, {"cudnn"}, {}, {}, "cuDNN's FFT convolutions"},
        {K::Gemm, B::Name,
         {"gemm", "gemv", "cutlass", "xmma", "nvjet", "cublas", "cijk_", "triton_tem", "_matmul_ogs", "matmul_kernel"},
         {}, {}, "fbgemm",
         "cuBLAS, CUTLASS, nvjet, ROCm's Tensile (Cijk_), Triton templates, triton_kernels' MoE matmul (FBGEMM's are "
         "no GEMMs)"},
        {K::Softmax, B::Name, {"softmax"}, {}, {}, {}, "softmax kernels"},
        {K::Normalization, B::Name,
         {"layer_norm", "layernorm", "batch_norm", "batchnorm", "rms_norm", "rmsnorm", "group_norm", "groupnorm",
          "::bn_fw", "::bn_bw", "bn_fw_tr", "bn_fw_inf"},
         {}, {}, {}, "layer, batch, RMS and group norms, cuDNN's bn_fw/bn_bw"},
        {K::Embedding, B::Name, {"embedding"}, {}, {"rotary"}, {},
         "embedding lookups (FBGEMM's split_embedding_*), not rotary ones"},
        {K::Reduction, B::Name, {"reduce", "triton_red", "triton_per"}, {}, {}, {}, "reductions, Triton's reductions"},
        {K::Elementwise, B::Name,
         {"elementwise", "triton_poi", "fill_kernel", "catarraybatchedcopy", "multi_tensor_apply", "rotary_embedding"},
         {}, {}, {},
         "elementwise and Triton pointwise kernels, the fused optimizers' multi_tensor_apply, rotary embeddings"},
    };
}

// The rules that look at the op that launched the kernel, checked after those above.
std::vector<KernelClassRule> launching_op_rules() {
    return {
        {K::Gemm, B::LaunchingOp,
         {"aten::mm", "aten::bmm", "aten::addmm", "aten::baddbmm", "aten::matmul", "aten::linear", "aten::addbmm"},
         {}, {}, {}, "launched by a matrix product op"},
        {K::Softmax, B::LaunchingOp, {"aten::_softmax", "aten::softmax", "aten::_softmax_backward_data"}, {}, {}, {},
         "launched by a softmax op"},
        {K::Normalization, B::LaunchingOp,
         {"aten::native_layer_norm", "aten::layer_norm", "aten::native_batch_norm", "aten::_fused_rms_norm",
          "aten::native_layer_norm_backward", "aten::native_batch_norm_backward", "aten::cudnn_batch_norm",
          "aten::cudnn_batch_norm_backward", "aten::miopen_batch_norm", "aten::miopen_batch_norm_backward",
          "aten::native_group_norm", "aten::native_group_norm_backward"},
         {}, {}, {}, "launched by a norm op or its backward"},
        {K::Embedding, B::LaunchingOp,
         {"aten::embedding", "aten::embedding_dense_backward", "aten::embedding_backward", "aten::_embedding_bag",
          "aten::_embedding_bag_backward"},
         {}, {}, {}, "launched by an embedding op"},
        {K::Reduction, B::LaunchingOp, {"aten::sum", "aten::mean", "aten::amax", "aten::max"}, {}, {}, {},
         "launched by a reduction op"},
        {K::Elementwise, B::LaunchingOp,
         {"aten::add", "aten::add_", "aten::mul", "aten::mul_", "aten::div", "aten::div_", "aten::sub", "aten::exp",
          "aten::fill_", "aten::copy_", "aten::masked_fill", "aten::where"},
         {}, {}, {}, "launched by an elementwise op"},
    };
}
// clang-format on

std::vector<KernelClassRule> make_rules() {
    std::vector<KernelClassRule> rules = event_and_name_rules();
    for (KernelClassRule& r : launching_op_rules()) rules.push_back(std::move(r));
    return rules;
}

bool holds(const std::string& name, std::string_view part) { return name.find(part) != std::string::npos; }

std::string basis_text(const KernelClassRule& r) {
    auto list = [](const std::vector<std::string_view>& parts, const char* join) {
        std::string out;
        for (std::string_view p : parts) out += (out.empty() ? "" : join) + std::string(p);
        return out;
    };
    switch (r.basis) {
        case B::EventKind: return "kind";
        case B::AttentionRules: return "attention rules";
        case B::OpAbove: return r.any.empty() ? "op above" : "op above: " + list(r.any, ", ");
        case B::LaunchingOp: return "launching op: " + list(r.any, ", ");
        case B::Name: break;
    }
    std::string text = "name holds " + list(r.any, " | ");
    if (!r.all.empty()) text += " and " + list(r.all, " and ");
    if (!r.none.empty()) text += ", not " + list(r.none, ", ");
    if (!r.strip.empty()) text += " (" + std::string(r.strip) + " aside)";
    return text;
}

}  // namespace

const std::vector<KernelClassRule>& kernel_class_rules() {
    static const std::vector<KernelClassRule> rules = make_rules();
    return rules;
}

const KernelClassRule& kernel_class_rule(KernelClass cls, KernelRuleBasis basis) {
    const auto& rules = kernel_class_rules();
    return *std::find_if(rules.begin(), rules.end(),
                         [&](const KernelClassRule& r) { return r.cls == cls && r.basis == basis; });
}

bool name_rule_holds(const KernelClassRule& rule, const std::string& lower_name) {
    std::string stripped;
    const std::string* name = &lower_name;
    if (!rule.strip.empty() && holds(lower_name, rule.strip)) {
        stripped = lower_name;
        for (size_t at; (at = stripped.find(rule.strip)) != std::string::npos;) stripped.erase(at, rule.strip.size());
        name = &stripped;
    }
    const auto in_name = [name](std::string_view part) { return holds(*name, part); };
    return std::any_of(rule.any.begin(), rule.any.end(), in_name) &&
           std::all_of(rule.all.begin(), rule.all.end(), in_name) &&
           std::none_of(rule.none.begin(), rule.none.end(), in_name);
}

namespace {

// text in lines of at most width characters (words kept whole), each after indent.
std::string wrapped(const std::string& text, size_t width, const std::string& indent) {
    std::string out, line;
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find(' ', at);
        if (end == std::string::npos) end = text.size();
        const std::string word = text.substr(at, end - at);
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            out += indent + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
        at = end + 1;
    }
    return line.empty() ? out : out + indent + line + "\n";
}

}  // namespace

std::string format_kernel_class_rules() {
    std::string out = "Each kernel, copy and set gets the class of the first rule that holds (else other):\n";
    int n = 0;
    for (const KernelClassRule& r : kernel_class_rules()) {
        const std::string cls = r.basis == B::AttentionRules ? std::string("attention (by library)") : to_string(r.cls);
        out += printf_string("%2d. %s\n", ++n, cls.c_str()) + wrapped(std::string(r.says), 96, "    ") +
               wrapped(basis_text(r), 96, "      ");
    }
    return out;
}

std::string kernel_class_names() {
    std::string out;
    for (int c = 0; c < kKernelClassCount; ++c) out += (c ? ", " : "") + to_string(KernelClass(c));
    return out;
}

}  // namespace awb
