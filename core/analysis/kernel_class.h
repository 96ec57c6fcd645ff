// What a device kernel does, from its name and the op that launched it: GEMM, convolution, attention
// (FlashAttention, memory-efficient, cuDNN, the math path's kernels, a library's), softmax, elementwise,
// reduction, normalization, embedding, communication (NCCL, RCCL, custom all-reduce), memcpy, memset,
// other. The rules, in the order they are checked, are one table: kernel_class_rules.h (`attnwb inspect
// --kernel-classes` prints it). Pure C++: no torch, no Qt.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace.h"

namespace awb {

enum class KernelClass : uint8_t {
    Gemm,
    Convolution,
    AttentionFlash,
    AttentionMemEfficient,
    AttentionCudnn,
    AttentionMath,
    // an inference engine's or library's attention (vLLM, SGLang, FlashInfer, aiter, TensorRT-LLM, Triton)
    AttentionOther,
    Softmax,
    Normalization,
    Reduction,
    Elementwise,
    Embedding,  // embedding lookups and their backward (FBGEMM's split_embedding_*, aten::embedding)
    Communication,
    Memcpy,
    Memset,
    Other,
};
inline constexpr int kKernelClassCount = int(KernelClass::Other) + 1;

std::string to_string(KernelClass c);  // "GEMM", "attention (flash)", ...
std::string class_key(KernelClass c);  // "gemm", "attention_flash", ... (JSON)
bool is_computation(KernelClass c);    // neither communication, memcpy nor memset

// One kernel by its name, kind, the op that launched it ("" when unknown) and whether that op runs
// inside the SDPA math path, inside a library's attention op or inside a convolution op.
KernelClass classify_kernel(std::string_view name, EventKind kind, std::string_view launching_op = {},
                            bool under_math_attention = false, bool under_library_attention = false,
                            bool under_convolution = false);
bool is_convolution_op(std::string_view op);  // aten::convolution, aten::cudnn_convolution, aten::conv2d, ...
bool is_communication_kernel(
    std::string_view name);  // a collective's or P2P transfer's kernel, by name (the rules' communication rule)

// Every event's class (indexed like trace.events(); Other for CPU events): device events are linked
// to the op that launched them through their External id, on their rank.
std::vector<KernelClass> kernel_classes(const Trace& trace);

}  // namespace awb
