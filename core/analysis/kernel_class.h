// What a device kernel does, from its name and the op that launched it: GEMM, convolution, attention
// (FlashAttention, memory-efficient, cuDNN, or the math path's kernels), softmax, elementwise,
// reduction, normalization, embedding, communication (NCCL/RCCL), memcpy, memset, other. The rules
// (checked in this order):
//   - memcpy / memset by event kind, and ROCm's copy and fill kernels (__amd_rocclr_copyBuffer, ...);
//   - communication (is_communication_kernel): NCCL (ncclKernel_*, ncclDevKernel_*), RCCL, MSCCL, NVSHMEM,
//     the engines' custom all-reduce (vLLM's and SGLang's cross_device_reduce, quickreduce, TensorRT-LLM's
//     and FlashInfer's one/two-shot and Lamport kernels, torch's symmetric memory multimem_* and
//     one_shot_all_reduce), DeepEP's dispatch/combine: any name holding nccl, rccl, msccl, nvshmem,
//     cross_device_reduce, quickreduce, allreduce / all_reduce, allgather / all_gather, reduce_scatter,
//     alltoall / all_to_all, multimem, symm_mem, symmetric_memory, deep_ep, custom_ar, lamport or sendrecv;
//   - attention by the attention rules' kernel names (attention_rules.h): flash-attn's and CK's / aiter's
//     FMHA -> flash, xformers' -> memory-efficient, cuDNN's -> cuDNN, every other library's (vLLM, SGLang,
//     FlashInfer, TensorRT-LLM, Triton) -> attention (other);
//   - attention by name: flash_fwd/flash_bwd/pytorch_flash/flash:: -> flash; CK's FMHA (ck_tile, ck::)
//     -> flash (FlashAttention's algorithm); fmha/efficient_attention -> memory-efficient; cudnn with
//     sdpa/fmha/flash -> cuDNN;
//   - any other kernel launched under aten::_scaled_dot_product_attention_math -> attention (math), under
//     a library's attention op (the rules' op names) -> attention (other), under a convolution op
//     (aten::convolution, cudnn_/miopen_convolution, convolution_backward, conv2d...) -> convolution
//     (cuDNN's and MIOpen's GEMMs, transposes and offset kernels of a convolution are its work);
//   - by name: convolution (cuDNN's scudnn, winograd, dgrad/wgrad/fprop, implicit GEMM convolutions,
//     MIOpen's igemm_fwd/bwd/wrw, CK's grouped_conv) -> convolution; gemm, gemv, cutlass, xmma, nvjet,
//     cublas, Cijk_ (ROCm Tensile), triton_tem, triton_kernels' _matmul_ogs -> GEMM ("fbgemm" is not one: FBGEMM's kernels are
//     embeddings and sparse-feature shuffles); softmax -> softmax; layer_norm/layernorm, batch_norm, cuDNN's
//     bn_fw/bn_bw, rms_norm, group_norm -> normalization; embedding (not rotary) -> embedding; reduce,
//     triton_red/triton_per -> reduction; elementwise, triton_poi, fill/copy kernels, the fused
//     optimizers' multi_tensor_apply, rotary embeddings -> elementwise;
//   - else by the launching op (aten::mm/bmm/addmm/baddbmm/matmul/linear -> GEMM, softmax, norms and
//     their backward, embedding ops, sum/mean/amax -> reduction, add/mul/div/... -> elementwise); else other.
// Pure C++: no torch, no Qt.
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
    AttentionOther,  // an inference engine's or library's attention (vLLM, SGLang, FlashInfer, aiter, TensorRT-LLM, Triton)
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
KernelClass classify_kernel(std::string_view name, EventKind kind, std::string_view launching_op = {}, bool under_math_attention = false,
                            bool under_library_attention = false, bool under_convolution = false);
bool is_convolution_op(std::string_view op);  // aten::convolution, aten::cudnn_convolution, aten::conv2d, ...
bool is_communication_kernel(std::string_view name);  // a collective's or P2P transfer's kernel, by name (above)

// Every event's class (indexed like trace.events(); Other for CPU events): device events are linked
// to the op that launched them through their External id, on their rank.
std::vector<KernelClass> kernel_classes(const Trace& trace);

}  // namespace awb
