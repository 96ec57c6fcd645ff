#include "analysis/attention_rules.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <mutex>
#include <unordered_map>

#include "model/printf_string.h"

namespace awb {

namespace {

using enum RuleOn;
using enum NameMatch;
using enum QkvLayout;
using enum KvSource;
using B = AttentionBackend;

constexpr std::string_view kSdpa = "PyTorch SDPA";
constexpr std::string_view kHiddenCache = "the KV cache is not an input of this op (vLLM keeps it in its forward context): KV lengths unknown";
constexpr std::string_view kPagedLengths = "the KV lengths of a paged cache are data (indptr / seq_lens values), not in the trace";
constexpr std::string_view kByName = "found by its kernel's name: shapes only where the launching op recorded them";

// Positions below are the ops' schemas (argument order), as each library registers them. Each rule
// names only the fields it sets; the rest keep their defaults (g++ 12 warns about designated
// initializers that leave members to their default initializers, which is what is meant here).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
const std::vector<AttentionRule> kRules = {
    // PyTorch's scaled_dot_product_attention and its backends' ops ("Concrete Inputs": torch 2.x).
    {.pattern = "aten::scaled_dot_product_attention", .library = kSdpa, .implementation = "sdpa", .backend = B::Unknown, .layout = BHND,
     .q = 0, .k = 1, .v = 2, .causal = CausalArg::Bool, .causal_arg = 5, .mask_arg = 3},
    {.pattern = "aten::_scaled_dot_product_attention", .library = kSdpa, .implementation = "sdpa (1.13)", .backend = B::Math, .layout = BHND,
     .q = 0, .k = 1, .v = 2, .causal = CausalArg::Bool, .causal_arg = 6, .mask_arg = 3},
    {.pattern = "aten::_scaled_dot_product_attention_math", .library = kSdpa, .implementation = "math", .backend = B::Math, .layout = BHND,
     .q = 0, .k = 1, .v = 2, .causal = CausalArg::Bool, .causal_arg = 5, .mask_arg = 3},
    {.pattern = "aten::_scaled_dot_product_flash_attention", .library = kSdpa, .implementation = "flash", .backend = B::Flash, .layout = BHND,
     .q = 0, .k = 1, .v = 2, .causal = CausalArg::Bool, .causal_arg = 4},
    {.pattern = "aten::_scaled_dot_product_efficient_attention", .library = kSdpa, .implementation = "memory-efficient", .backend = B::MemEfficient,
     .layout = BHND, .q = 0, .k = 1, .v = 2, .causal = CausalArg::Bool, .causal_arg = 6, .mask_arg = 3},
    {.pattern = "aten::_scaled_dot_product_cudnn_attention", .library = kSdpa, .implementation = "cuDNN", .backend = B::Cudnn, .layout = BHND,
     .q = 0, .k = 1, .v = 2, .causal = CausalArg::Bool, .causal_arg = 6, .mask_arg = 3},
    {.pattern = "aten::_scaled_dot_product_flash_attention_for_cpu", .library = kSdpa, .implementation = "CPU flash", .backend = B::CpuFlash,
     .layout = BHND, .q = 0, .k = 1, .v = 2, .causal = CausalArg::Bool, .causal_arg = 4, .mask_arg = 5},
    {.pattern = "aten::_flash_attention_forward", .library = kSdpa, .implementation = "flash", .backend = B::Flash, .layout = BNHD, .q = 0, .k = 1,
     .v = 2, .causal = CausalArg::Bool, .causal_arg = 8},
    {.pattern = "aten::_efficient_attention_forward", .library = kSdpa, .implementation = "memory-efficient", .backend = B::MemEfficient,
     .layout = BNHD, .q = 0, .k = 1, .v = 2, .causal = CausalArg::MaskType, .causal_arg = 9, .mask_arg = 3},
    {.pattern = "aten::_scaled_dot_product_flash_attention_backward", .library = kSdpa, .implementation = "flash", .backend = B::Flash,
     .backward = true, .layout = BHND, .q = 1, .k = 2, .v = 3, .causal = CausalArg::Bool, .causal_arg = 11},
    {.pattern = "aten::_scaled_dot_product_efficient_attention_backward", .library = kSdpa, .implementation = "memory-efficient",
     .backend = B::MemEfficient, .backward = true, .layout = BHND, .q = 1, .k = 2, .v = 3, .causal = CausalArg::Bool, .causal_arg = 11,
     .mask_arg = 4},
    {.pattern = "aten::_scaled_dot_product_cudnn_attention_backward", .library = kSdpa, .implementation = "cuDNN", .backend = B::Cudnn,
     .backward = true, .layout = BHND, .q = 1, .k = 2, .v = 3, .causal = CausalArg::Bool, .causal_arg = 14, .mask_arg = 8},
    {.pattern = "aten::_scaled_dot_product_flash_attention_for_cpu_backward", .library = kSdpa, .implementation = "CPU flash",
     .backend = B::CpuFlash, .backward = true, .layout = BHND, .q = 1, .k = 2, .v = 3, .causal = CausalArg::Bool, .causal_arg = 7, .mask_arg = 8},
    {.pattern = "aten::_flash_attention_backward", .library = kSdpa, .implementation = "flash", .backend = B::Flash, .backward = true,
     .layout = BNHD, .q = 1, .k = 2, .v = 3, .causal = CausalArg::Bool, .causal_arg = 11},
    {.pattern = "aten::_efficient_attention_backward", .library = kSdpa, .implementation = "memory-efficient", .backend = B::MemEfficient,
     .backward = true, .layout = BNHD, .q = 1, .k = 2, .v = 3, .causal = CausalArg::MaskType, .causal_arg = 14, .mask_arg = 4},

    // FlashAttention-3 (Hopper): q [B, N, H, D], or packed [T, H, D] with cu_seqlens_q; a page_table
    // makes K and V a paged cache. vLLM's copy keeps the argument order up to the window. Newer
    // releases wrap fwd and bwd in Python custom ops of the same name and order.
    {.pattern = "flash_attn_3::_flash_attn_forward", .library = "flash-attn", .implementation = "FlashAttention-3", .layout = BNHD, .q = 0,
     .k = 1, .v = 2, .seqs = 7},
    {.pattern = "flash_attn_3::_flash_attn_backward", .library = "flash-attn", .implementation = "FlashAttention-3", .backward = true,
     .layout = BNHD, .q = 1, .k = 2, .v = 3, .seqs = 9},
    // flash-attn 2 (torch.library custom ops since 2.6; "flash_attn::" in some releases, "flashattn::" in
    // others): q [B, N, H, D]; varlen q [T, H, D] with cu_seqlens; a block_table makes K and V a paged
    // cache [blocks, block size, Hkv, D]. flash_attn_with_kvcache is no op (its kernels are found by name).
    {.match = Suffix, .pattern = "::_flash_attn_forward", .library = "flash-attn", .implementation = "flash-attn 2", .layout = BNHD, .q = 0,
     .k = 1, .v = 2, .causal = CausalArg::Bool, .causal_arg = 5, .window_arg = 6},
    {.match = Suffix, .pattern = "::_flash_attn_backward", .library = "flash-attn", .implementation = "flash-attn 2", .backward = true,
     .layout = BNHD, .q = 1, .k = 2, .v = 3, .causal = CausalArg::Bool, .causal_arg = 11, .window_arg = 12},
    {.match = Suffix, .pattern = "::_flash_attn_varlen_forward", .library = "flash-attn", .implementation = "flash-attn 2 varlen", .layout = THD,
     .q = 0, .k = 1, .v = 2, .seqs = 3, .block_table = 15, .causal = CausalArg::Bool, .causal_arg = 9, .window_arg = 10},
    {.match = Suffix, .pattern = "::_flash_attn_varlen_backward", .library = "flash-attn", .implementation = "flash-attn 2 varlen",
     .backward = true, .layout = THD, .q = 1, .k = 2, .v = 3, .seqs = 9, .causal = CausalArg::Bool, .causal_arg = 15, .window_arg = 16},
    {.pattern = "flash_attn_3::fwd", .library = "flash-attn", .implementation = "FlashAttention-3", .layout = BNHD, .q = 0, .k = 1, .v = 2,
     .seqs = 7, .block_table = 14, .causal = CausalArg::Bool, .causal_arg = 24, .window_arg = 25},
    {.pattern = "flash_attn_3::bwd", .library = "flash-attn", .implementation = "FlashAttention-3", .backward = true, .layout = BNHD, .q = 1,
     .k = 2, .v = 3, .seqs = 9, .causal = CausalArg::Bool, .causal_arg = 16, .window_arg = 17},
    {.pattern = "_vllm_fa3_C::fwd", .library = "vLLM", .implementation = "vllm-flash-attn 3", .layout = BNHD, .q = 0, .k = 1, .v = 2, .seqs = 7,
     .block_table = 14, .causal = CausalArg::Bool, .causal_arg = 24, .window_arg = 25, .note = kPagedLengths},

    // vLLM: the layer's op (its backend's kernels, and any backend op, run inside), and the backends' own ops.
    {.pattern = "vllm::unified_attention_with_output", .library = "vLLM", .implementation = "unified attention", .layout = THD, .q = 0, .k = 1,
     .v = 2, .kv = Hidden, .note = kHiddenCache},
    {.pattern = "vllm::unified_attention", .library = "vLLM", .implementation = "unified attention", .layout = THD, .q = 0, .k = 1, .v = 2,
     .kv = Hidden, .note = kHiddenCache},
    {.match = Prefix, .pattern = "vllm::unified_mla_attention", .library = "vLLM", .implementation = "MLA attention", .layout = THD, .q = 0,
     .kv = Hidden, .note = "MLA: K and V come from the latent cache, not an input of this op"},
    {.pattern = "vllm::flash_attn_maxseqlen_wrapper", .library = "vLLM", .implementation = "vision encoder flash", .layout = BNHD, .q = 0,
     .k = 1, .v = 2},
    {.pattern = "_C::paged_attention_v1", .library = "vLLM", .implementation = "paged attention v1", .layout = THD, .q = 1, .k = 2, .v = 3,
     .kv = SplitK, .lens = 7, .note = kPagedLengths},
    {.pattern = "_C::paged_attention_v2", .library = "vLLM", .implementation = "paged attention v2", .layout = THD, .q = 4, .k = 5, .v = 6,
     .kv = SplitK, .lens = 10, .note = kPagedLengths},
    {.pattern = "_rocm_C::paged_attention", .library = "vLLM", .implementation = "ROCm paged attention", .layout = THD, .q = 4, .k = 5, .v = 6,
     .kv = SplitK, .lens = 10, .note = kPagedLengths},
    {.match = Prefix, .pattern = "_vllm_fa2_C::varlen_fwd", .library = "vLLM", .implementation = "vllm-flash-attn 2 varlen", .layout = THD,
     .q = 0, .k = 1, .v = 2, .seqs = 4, .block_table = 8, .causal = CausalArg::Bool, .causal_arg = 15, .window_arg = 16,
     .note = kPagedLengths},
    {.match = Prefix, .pattern = "_vllm_fa2_C::fwd_kvcache", .library = "vLLM", .implementation = "vllm-flash-attn 2 KV cache", .layout = BNHD,
     .q = 0, .k = 1, .v = 2, .kv = BlockNHD, .lens = 5, .causal = CausalArg::Bool, .causal_arg = 14, .window_arg = 15, .note = kPagedLengths},

    // SGLang: its own ops, and its kernel-shape profiler's, which wraps a backend function in an op
    // "sglang_profiler::<module>_<function>_<n>" whose inputs are the function's tensors only.
    {.pattern = "sglang::unified_attention_with_output", .library = "SGLang", .implementation = "unified attention", .layout = THD, .q = 0,
     .k = 1, .v = 2, .kv = Hidden, .note = "the KV cache is not an input of this op (SGLang's forward batch): KV lengths unknown"},
    {.match = Prefix, .pattern = "sglang_profiler::attention_paged_attention_ragged", .library = "SGLang",
     .implementation = "aiter paged attention ragged", .layout = THD, .q = 2, .k = 3, .v = 4, .kv = BlockNHD, .seqs = 5, .note = kPagedLengths},
    {.match = Prefix, .pattern = "sglang_profiler::decode_attention_decode_attention_fwd", .library = "SGLang", .implementation = "Triton decode",
     .layout = THD, .q = 0, .k = 1, .v = 2, .kv = TokenPool, .seqs = 4, .note = kPagedLengths},
    {.match = Prefix, .pattern = "sglang_profiler::extend_attention_extend_attention_fwd", .library = "SGLang", .implementation = "Triton extend",
     .layout = THD, .q = 0, .k = 4, .v = 5, .kv = TokenPool, .seqs = 6, .note = kPagedLengths},
    {.match = Prefix, .pattern = "sglang_profiler::prefill_attention_context_attention_fwd", .library = "SGLang", .implementation = "Triton prefill",
     .layout = THD, .q = 0, .k = 1, .v = 2, .lens = 5},

    // aiter (ROCm): CK and assembly attention ("aiter::" ops).
    {.match = Prefix, .pattern = "aiter::mha_batch_prefill", .library = "aiter", .implementation = "CK batch prefill (paged)", .layout = THD,
     .q = 0, .k = 1, .v = 2, .kv = BlockNHD, .seqs = 3, .causal = CausalArg::Bool, .causal_arg = 12, .window_arg = 13, .note = kPagedLengths},
    {.match = Prefix, .pattern = "aiter::mha_varlen_fwd", .library = "aiter", .implementation = "CK varlen", .layout = THD, .q = 0, .k = 1, .v = 2,
     .seqs = 3, .block_table = 19, .causal = CausalArg::Bool, .causal_arg = 12, .window_arg = 13},
    {.match = Prefix, .pattern = "aiter::mha_varlen_bwd", .library = "aiter", .implementation = "CK varlen", .backward = true, .layout = THD,
     .q = 1, .k = 2, .v = 3},
    {.match = Prefix, .pattern = "aiter::mha_fwd", .library = "aiter", .implementation = "CK", .layout = BNHD, .q = 0, .k = 1, .v = 2,
     .causal = CausalArg::Bool, .causal_arg = 5, .window_arg = 6},
    {.match = Prefix, .pattern = "aiter::fmha_v3_fwd", .library = "aiter", .implementation = "asm FMHA v3", .layout = BNHD, .q = 0, .k = 1,
     .v = 2, .causal = CausalArg::Bool, .causal_arg = 5, .window_arg = 6},
    {.match = Prefix, .pattern = "aiter::mha_bwd", .library = "aiter", .implementation = "CK", .backward = true, .layout = BNHD, .q = 1, .k = 2,
     .v = 3},
    {.match = Prefix, .pattern = "aiter::fmha_v3_bwd", .library = "aiter", .implementation = "asm FMHA v3", .backward = true, .layout = BNHD,
     .q = 1, .k = 2, .v = 3},
    {.match = Prefix, .pattern = "aiter::paged_attention_rocm", .library = "aiter", .implementation = "paged attention (ROCm)", .layout = THD,
     .q = 4, .k = 5, .v = 6, .kv = SplitK, .lens = 10, .note = kPagedLengths},
    {.match = Prefix, .pattern = "aiter::paged_attention_ragged", .library = "aiter", .implementation = "paged attention ragged", .layout = THD,
     .q = 2, .k = 3, .v = 4, .kv = BlockNHD, .seqs = 6, .note = kPagedLengths},
    {.match = Prefix, .pattern = "aiter::paged_attention", .library = "aiter", .implementation = "paged attention", .layout = THD, .q = 2,
     .k = 3, .v = 4, .kv = Opaque, .note = kPagedLengths},
    {.match = Prefix, .pattern = "aiter::_pa_", .library = "aiter", .implementation = "paged attention (asm)", .layout = THD, .q = 0, .k = 1,
     .v = 2, .kv = SplitK, .lens = 4, .note = kPagedLengths},
    {.match = Prefix, .pattern = "aiter::pa_", .library = "aiter", .implementation = "paged attention", .layout = THD, .q = 0, .k = 1, .v = 2,
     .kv = Opaque, .note = kPagedLengths},

    // xformers: [B, M, H, K]; custom_mask_type 0 none, 1 top-left causal, 2 bottom-right.
    {.match = Prefix, .pattern = "xformers::efficient_attention_forward_decoder", .library = "xformers", .implementation = "CK decoder",
     .layout = BNHD, .q = 0, .k = 1, .v = 2, .note = "the decoder's sequence positions are data: every key counted"},
    {.match = Prefix, .pattern = "xformers::efficient_attention_forward", .library = "xformers", .implementation = "memory-efficient",
     .layout = BNHD, .q = 0, .k = 1, .v = 2, .causal = CausalArg::MaskType, .causal_arg = 9, .mask_arg = 3},
    {.match = Prefix, .pattern = "xformers::efficient_attention_backward", .library = "xformers", .implementation = "memory-efficient",
     .backward = true, .layout = BNHD, .q = 1, .k = 2, .v = 3, .causal = CausalArg::MaskType, .causal_arg = 14, .mask_arg = 4},
    {.pattern = "xformers_flash::flash_fwd", .library = "xformers", .implementation = "flash", .layout = BNHD, .q = 0, .k = 1, .v = 2,
     .seqs = 3, .block_table = 14, .causal = CausalArg::Bool, .causal_arg = 10, .window_arg = 11},
    {.pattern = "xformers_flash::flash_bwd", .library = "xformers", .implementation = "flash", .backward = true, .layout = BNHD, .q = 2,
     .k = 3, .v = 4},

    // SageAttention's CUDA ops: int8 Q and K, tensor_layout in "Concrete Inputs".
    {.match = Prefix, .pattern = "sageattention_qattn_", .library = "SageAttention", .implementation = "SageAttention (CUDA)", .layout = BHND,
     .q = 0, .k = 1, .v = 2, .causal = CausalArg::Bool, .causal_arg = 7, .layout_arg = 6},

    // TensorRT-LLM's op takes a fused QKV and a KV cache through pool pointers; FlashInfer registers no
    // op (its functions are pybind or TVM FFI): their kernels' names say what they can.
    {.match = Prefix, .pattern = "trtllm::attention", .library = "TensorRT-LLM", .implementation = "attention op",
     .note = "fused QKV input and a KV cache through pool pointers: heads and lengths from the kernel's name only"},
    {.match = Prefix, .pattern = "flashinfer::", .library = "FlashInfer", .implementation = "FlashInfer", .note = kPagedLengths},
    {.match = Prefix, .pattern = "flex_attention", .library = "FlexAttention", .implementation = "flex attention", .layout = BHND, .q = 0,
     .k = 1, .v = 2, .note = "the block mask is data: every pair counted"},

    // Kernels known by name, for calls no op above owns (Triton, CUTLASS, CK, TensorRT-LLM, FlashInfer).
    // An Inductor or Triton kernel's launching op records its arguments: where the rule gives a layout,
    // the call's shapes come from there.
    {.on = Kernel, .match = Contains, .pattern = "kernel_unified_attention", .library = "vLLM", .implementation = "unified attention (Triton)",
     .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "sage_quant", .library = "SageAttention", .implementation = "quantise Q, K (Triton)",
     .note = "quantisation before the attention kernel: no attention FLOPs of its own"},
    {.on = Kernel, .match = Contains, .pattern = "sage_fwd", .library = "SageAttention", .implementation = "SAGE attention (Triton)", .layout = BHND,
     .q = 0, .k = 1, .v = 2, .note = "Q, K int8 and V fp8 as the kernel's op records them, [B, H, N, D] (SageAttention's HND layout)"},
    {.on = Kernel, .match = Contains, .pattern = "qk_int8_sv_", .library = "SageAttention", .implementation = "SageAttention (CUDA)", .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "mhaSm1", .library = "TensorRT-LLM", .implementation = "FMHA (trtllm-gen)", .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "fmha_v2", .library = "TensorRT-LLM", .implementation = "FMHA v2", .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "xqa_kernel", .library = "TensorRT-LLM", .implementation = "XQA decode", .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "masked_multihead_attention", .library = "TensorRT-LLM", .implementation = "masked MHA decode",
     .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "FmhaBatchPrefill", .library = "aiter", .implementation = "CK batch prefill (paged)", .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "FmhaFwd", .library = "aiter", .implementation = "CK FMHA", .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "FmhaBwd", .library = "aiter", .implementation = "CK FMHA", .backward = true, .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "BatchPrefillWithPagedKVCache", .library = "FlashInfer", .implementation = "batch prefill (paged)",
     .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "BatchPrefillWithRaggedKVCache", .library = "FlashInfer", .implementation = "batch prefill (ragged)",
     .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "BatchDecodeWithPagedKVCache", .library = "FlashInfer", .implementation = "batch decode (paged)",
     .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "BatchMLAPagedAttention", .library = "FlashInfer", .implementation = "MLA (paged)", .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "SinglePrefillWithKVCache", .library = "FlashInfer", .implementation = "single prefill",
     .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "SingleDecodeWithKVCache", .library = "FlashInfer", .implementation = "single decode",
     .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "FlashAttnFwdSm", .library = "flash-attn", .implementation = "FlashAttention-3", .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "FlashAttnBwd", .library = "flash-attn", .implementation = "FlashAttention-3", .backward = true,
     .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "FlashAttentionForward", .library = "flash-attn", .implementation = "FlashAttention-4 (CuTe)",
     .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "FlashAttentionBackward", .library = "flash-attn", .implementation = "FlashAttention-4 (CuTe)",
     .backward = true, .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "flash_fwd", .library = "flash-attn", .implementation = "flash-attn 2 kernel", .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "flash_bwd", .library = "flash-attn", .implementation = "flash-attn 2 kernel", .backward = true,
     .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "fmha_cutlassF", .library = "xformers", .implementation = "CUTLASS FMHA", .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "fmha_cutlassB", .library = "xformers", .implementation = "CUTLASS FMHA", .backward = true,
     .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "paged_attention", .library = "paged attention", .implementation = "paged attention kernel",
     .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "_flash_bprop_", .library = "cuDNN", .implementation = "cuDNN SDPA", .backward = true,
     .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "cudnn_generated_fort_native_sdpa", .library = "cuDNN", .implementation = "cuDNN SDPA",
     .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "flex_attention_backward", .library = "FlexAttention", .implementation = "flex attention (Triton)",
     .backward = true, .note = kByName},
    {.on = Kernel, .match = Contains, .pattern = "flex_attention", .library = "FlexAttention", .implementation = "flex attention (Triton)",
     .layout = BHND, .q = 0, .k = 1, .v = 2, .note = "Inductor's template: Q, K, V as its launch op records them; the block mask is data"},
    {.on = Kernel, .match = Contains, .pattern = "flex_decoding", .library = "FlexAttention", .implementation = "flex decoding (Triton)",
     .note = kByName},
    {.on = Kernel, .match = Prefix, .pattern = "_fwd_kernel_stage", .library = "SGLang", .implementation = "Triton decode", .note = kByName},
    {.on = Kernel, .match = Prefix, .pattern = "_fwd_grouped_kernel_stage", .library = "SGLang", .implementation = "Triton decode (grouped)",
     .note = kByName},
    {.on = Kernel, .match = Exact, .pattern = "_fwd_kernel", .library = "Triton", .implementation = "_fwd_kernel (prefill/extend)",
     .note = "SGLang's and vLLM's Triton prefill and extend attention are named so; found by its name"},
    {.on = Kernel, .match = Exact, .pattern = "attn_fwd", .library = "Triton", .implementation = "attn_fwd", .note = kByName},
    {.on = Kernel, .match = Exact, .pattern = "_attn_fwd", .library = "Triton", .implementation = "_attn_fwd", .note = kByName},
    {.on = Kernel, .match = Exact, .pattern = "_attn_bwd", .library = "Triton", .implementation = "_attn_bwd", .backward = true, .note = kByName},
    {.on = Kernel, .match = Exact, .pattern = "attn_bwd", .library = "Triton", .implementation = "attn_bwd", .backward = true, .note = kByName},
};
#pragma GCC diagnostic pop

bool matches(const AttentionRule& r, std::string_view name) {
    switch (r.match) {
        case Exact: return name == r.pattern;
        case Prefix: return name.starts_with(r.pattern);
        case Suffix: return name.ends_with(r.pattern);
        case Contains: return name.find(r.pattern) != std::string_view::npos;
    }
    return false;
}

// Names are looked up once each: a trace has a few thousand distinct names among millions of events.
const AttentionRule* match_rule(std::string_view name, RuleOn on) {
    static std::mutex mutex;
    static std::unordered_map<std::string, const AttentionRule*> seen[2];
    const std::lock_guard<std::mutex> lock(mutex);
    auto& cache = seen[int(on)];
    if (const auto it = cache.find(std::string(name)); it != cache.end()) return it->second;
    const AttentionRule* found = nullptr;
    for (const AttentionRule& r : kRules)
        if (r.on == on && matches(r, name)) {
            found = &r;
            break;
        }
    if (cache.size() < 100000) cache.emplace(std::string(name), found);
    return found;
}

bool has(std::string_view name, std::string_view token) { return name.find(token) != std::string_view::npos; }

// The number right after `prefix` in name (e.g. "H64" -> 64 for prefix "H" when followed by a
// non-digit), 0 when none.
int64_t number_after(std::string_view name, std::string_view prefix) {
    for (size_t at = name.find(prefix); at != std::string_view::npos; at = name.find(prefix, at + 1)) {
        size_t i = at + prefix.size(), n = 0;
        int64_t v = 0;
        while (i + n < name.size() && std::isdigit(static_cast<unsigned char>(name[i + n])) && n < 5) v = v * 10 + (name[i + n++] - '0');
        const bool ends = i + n >= name.size() || !std::isdigit(static_cast<unsigned char>(name[i + n]));
        if (n > 0 && ends) return v;
    }
    return 0;
}

void add_fact(std::string& out, const std::string& fact) {
    if (fact.empty() || out.find(fact) != std::string::npos) return;
    if (!out.empty()) out += ", ";
    out += fact;
}

std::string precision_fact(std::string_view n) {
    if (has(n, "QkvE4m3") || has(n, "QkvE4M3")) return "QKV fp8 e4m3";
    if (has(n, "KvE4m3") || has(n, "KvE4M3")) return "KV fp8 e4m3";
    if (has(n, "E4m3") || has(n, "e4m3") || has(n, "E4M3")) return "fp8 e4m3";
    if (has(n, "E5m2") || has(n, "e5m2")) return "fp8 e5m2";
    if (has(n, "fp8") || has(n, "Fp8") || has(n, "FP8")) return "fp8";
    return "";
}

std::string layout_facts(std::string_view n) {
    std::string out;
    if (has(n, "SlidingOrChunked")) add_fact(out, "sliding window or chunked causal");
    else if (has(n, "Sliding") || has(n, "sliding")) add_fact(out, "sliding window");
    if (has(n, "Causal") || has(n, "causal")) add_fact(out, "causal");
    if (has(n, "PagedKv") || has(n, "Paged") || has(n, "paged")) add_fact(out, "paged KV");
    if (has(n, "Ragged") || has(n, "varlen") || has(n, "Varlen")) add_fact(out, "varlen");
    if (has(n, "splitkv") || has(n, "SplitKv") || has(n, "split_kv")) add_fact(out, "split KV");
    return out;
}

std::string shape_facts(std::string_view n) {
    std::string out;
    // TensorRT-LLM's "...OBfloat16H64PagedKv...": head dim after 'H' following the output type.
    int64_t d = number_after(n, "OBfloat16H");
    if (!d) d = number_after(n, "OFp16H");
    if (!d) d = number_after(n, "HeadDim");
    if (!d) d = number_after(n, "head_dim_");
    if (!d) d = number_after(n, "hdim");
    if (!d) d = number_after(n, "Flash_fwd_kernel_traits<");
    if (!d) d = number_after(n, "Flash_bwd_kernel_traits<");
    if (d > 0) add_fact(out, printf_string("head dim %lld", (long long)d));
    for (std::string_view arch : {"Sm100a", "Sm100f", "Sm90a", "sm100", "sm90", "sm80", "Sm120"})
        if (has(n, arch)) {
            std::string a(arch);
            for (char& c : a) c = char(std::tolower(static_cast<unsigned char>(c)));
            add_fact(out, a);
            break;
        }
    return out;
}

}  // namespace

const std::vector<AttentionRule>& attention_rules() { return kRules; }

const AttentionRule* match_op_rule(std::string_view name) {
    // Every op rule's name has one of these: most op names are skipped at once.
    static constexpr std::string_view kAny[] = {"attn", "attention", "mha", "::pa_", "::_pa_", "_fa2_C::", "_fa3_C::", "xformers", "flashinfer::",
                                                "sglang_profiler::"};
    if (std::none_of(std::begin(kAny), std::end(kAny), [&](std::string_view k) { return has(name, k); })) return nullptr;
    return match_rule(name, RuleOn::Op);
}

const AttentionRule* match_kernel_rule(std::string_view name) { return match_rule(name, RuleOn::Kernel); }

std::string name_facts(std::string_view n) {
    std::string out;
    merge_facts(out, layout_facts(n));
    merge_facts(out, precision_fact(n));
    merge_facts(out, shape_facts(n));
    if (has(n, "OBfloat16")) add_fact(out, "O bf16");
    return out;
}

void merge_facts(std::string& into, std::string_view more) {
    while (!more.empty()) {
        const size_t comma = more.find(", ");
        add_fact(into, std::string(more.substr(0, comma)));
        more = comma == std::string_view::npos ? std::string_view() : more.substr(comma + 2);
    }
}

std::string format_attention_rules() {
    static const std::array<const char*, 4> layouts = {"-", "[B, H, N, D]", "[B, N, H, D]", "[T, H, D] packed"};
    static const std::array<const char*, 7> kv = {"inputs", "paged [blocks, block, Hkv, D]", "paged [blocks, Hkv, block, D]",
                                                  "paged (vLLM split K)", "token pool [slots, Hkv, D]", "paged (layout not read)",
                                                  "cache not an input"};
    std::string out = printf_string("%-6s %-8s %-58s %-14s %-32s %-4s %-17s %s\n", "on", "match", "pattern", "library", "implementation", "pass",
                                    "Q layout", "K, V");
    for (const AttentionRule& r : kRules) {
        out += printf_string("%-6s %-8s %-58.58s %-14.14s %-32.32s %-4s %-17s %s\n", r.on == Op ? "op" : "kernel",
                             r.match == Exact ? "exact" : r.match == Prefix ? "prefix" : r.match == Suffix ? "suffix" : "contains", std::string(r.pattern).c_str(),
                             std::string(r.library).c_str(), std::string(r.implementation).c_str(), r.backward ? "bwd" : "fwd",
                             layouts[size_t(r.layout)], r.layout == None ? "-" : kv[size_t(r.kv)]);
        if (!r.note.empty()) out += printf_string("%-6s %s\n", "", ("  " + std::string(r.note)).c_str());
    }
    return out;
}

}  // namespace awb
