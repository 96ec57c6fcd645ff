// The one table of attention rules: which ops and kernels are attention, whose they are (PyTorch's
// SDPA, vLLM, SGLang, FlashInfer, flash-attn, xformers, aiter, TensorRT-LLM, cuDNN, FlexAttention,
// SageAttention, Triton kernels), the pass, and where an op's inputs hold Q, K, V, a paged KV cache,
// the sequence offsets and the causal flag. attention_rules.cpp lists them in the order they are
// tried (the first that matches wins); `attnwb inspect --attention-rules` prints them.
//
// An op rule matches a CPU op by its name; its call's shapes come from the op's recorded inputs. A
// kernel rule matches a kernel by its name (a substring) when no call's op launched it: the kernel is a
// call of its own (one per launching op; its shapes, if the rule gives a layout, from that op's inputs).
// What a kernel's name says (causal, sliding window, fp8, paged KV, head dim, tile, architecture) is
// read by name_facts and shown as coming from the name.
// Pure C++ (no torch).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/attention.h"

namespace awb {

enum class RuleOn : uint8_t { Op, Kernel };
enum class NameMatch : uint8_t { Exact, Prefix, Suffix, Contains };

// Where Q (and K, V when they are not a cache) are, and how they are laid out.
enum class QkvLayout : uint8_t {
    None,  // no shapes: the trace gives the op's inputs in no form we read
    BHND,  // [B, H, N, D] (SDPA's; [H, N, D] is batch 1)
    BNHD,  // [B, N, H, D] (flash-attn's, xformers', SDPA's kernels' own ops); with `seqs`, a 3-d Q is packed [T, H, D]
    THD,   // packed tokens [T, H, D] (varlen; the queries of a paged call)
};

// Where the keys and values come from.
enum class KvSource : uint8_t {
    Inputs,     // K and V are inputs in the Q layout
    BlockNHD,   // a paged cache [blocks, block size, Hkv, D] at k and v
    BlockHND,   // a paged cache [blocks, Hkv, block size, D]
    SplitK,     // vLLM's paged_attention: K [blocks, Hkv, D / x, block size, x], V [blocks, Hkv, D, block size]
    TokenPool,  // SGLang's token pool [slots, Hkv, D] (pages of one token)
    Opaque,     // a paged cache in a layout this table does not read (its heads unknown)
    Hidden,     // a cache the op does not take as an input (vLLM's forward context): K, V inputs are the new tokens
};

enum class CausalArg : uint8_t {
    None,
    Bool,
    MaskType
};  // is_causal "True"/"False"; xformers' 0 none, 1 top-left, 2 bottom-right

struct AttentionRule {
    RuleOn on = RuleOn::Op;
    NameMatch match = NameMatch::Exact;
    std::string_view pattern;
    std::string_view library;         // "PyTorch SDPA", "vLLM", ...
    std::string_view implementation;  // what the library calls it ("unified attention", "paged attention v2")
    AttentionBackend backend = AttentionBackend::Library;  // SDPA's ops: their backend (Unknown: named by an inner op)
    bool backward = false;
    QkvLayout layout = QkvLayout::None;
    int8_t q = -1, k = -1, v = -1;  // input positions
    KvSource kv = KvSource::Inputs;
    int8_t seqs = -1;  // an input whose length is the sequences + 1 (cu_seqlens_q, kv_indptr, qo_indptr), -1 none
    int8_t lens = -1;  // an input whose length is the sequences (seq_lens, context_lens), -1 none
    int8_t block_table = -1;  // an input that, when recorded, makes K and V a BlockNHD cache (flash-attn's block_table)
    CausalArg causal = CausalArg::None;
    int8_t causal_arg = -1;  // its position in "Concrete Inputs"
    int8_t mask_arg = -1;    // an attn_mask / bias tensor input: when recorded, the pairs it hides are data
    int8_t window_arg = -1;  // window_size_left in "Concrete Inputs" (-1 there: no window)
    int8_t layout_arg = -1;  // SageAttention's tensor_layout in "Concrete Inputs": 0 [B, N, H, D], 1 [B, H, N, D]
    std::string_view note;   // what the trace cannot say about these calls
};

// Every rule, in the order they are tried.
const std::vector<AttentionRule>& attention_rules();

// The first rule matching an op's or a kernel's name, null for none. Asked once per distinct name.
const AttentionRule* match_op_rule(std::string_view op_name);
const AttentionRule* match_kernel_rule(std::string_view kernel_name);

// What a kernel's name says: "causal", "sliding window", "fp8 e4m3", "paged KV", "head dim 64",
// "tile 128x64", "sm100a"... comma-separated, "" when nothing.
std::string name_facts(std::string_view kernel_name);

// Adds the comma-separated facts of `more` that `into` does not hold yet.
void merge_facts(std::string& into, std::string_view more);

// The table as text (library, pattern, pass, layout, note), for `attnwb inspect --attention-rules`.
std::string format_attention_rules();

}  // namespace awb
