// The attention calls of a run or an imported trace, as PyTorch, models and inference engines run
// them. The recognisers (attention_rules.h holds their one table):
//   - ops of scaled_dot_product_attention's backends, and of the libraries and engines (vLLM, SGLang,
//     FlashInfer, flash-attn 2/3, xformers, aiter, TensorRT-LLM, FlexAttention): the outermost
//     matching op is the call, inner ones name its backend;
//   - the manual pattern, as models write it (attention_manual.cpp): matmul/bmm/baddbmm/einsum, scale,
//     mask, softmax, dropout, matmul, with the heads folded into the batch or not, and its backward;
//   - attention kernels known by name (Triton, CUTLASS, CK, TensorRT-LLM's FMHA) that no call's op
//     launched: one call per launching op, or per kernel when none is recorded.
// Each gets its shapes from the recorded input dims (dense [B, H, N, D] or [B, N, H, D]; varlen
// [tokens, H, D]; a paged KV cache [blocks, block size, Hkv, D]), its dtype, causal flag and backend,
// its CPU time and device time (the sum of the kernels its ops launched), and a cost model:
//
//   visible pairs  per (batch, query head): Nq x Nk without a mask; causal is top-left aligned, as
//                  PyTorch's is_causal (query i sees keys 0..i, also when Nq != Nk):
//                  sum over i < Nq of min(i + 1, Nk). A mask tensor (padding, any pattern) is data the
//                  trace does not hold: such calls count all Nq x Nk pairs and say so (causal "-").
//   FLOPs forward  2 x pairs x (D + Dv) per (batch, query head): Q K^T and P V, a multiply and an add
//                  each (4 x pairs x D when Dv = D), as FlashAttention's benchmark counts.
//   FLOPs backward 2.5 x forward: FlashAttention's convention (dQ, dK, dV and the recomputed P: five
//                  matmuls against the forward's two). torch.utils.flop_counter counts the backward's
//                  four matmuls without the recompute: 2 x forward (`flops_backward_no_recompute`).
//   bytes (ideal)  each tensor once: Q, K, V, O forward; Q, K, V, O, dO read and dQ, dK, dV written in
//                  the backward (grouped-query K and V at their own head count; a KV cache at its own
//                  element size, fp8 one byte).
//   varlen, paged  the pairs need each sequence's lengths: a packed batch of one sequence has them
//                  (Nq = query tokens, Nk = key tokens); a decode (one query token per sequence:
//                  pairs = the sum of the KV lengths, FLOPs 2 x that x (D + Dv) x Hq), a chunked prefill
//                  or a prefill against a KV cache (query i of a sequence sees its cached keys and the
//                  new ones up to i) and a paged cache (bytes read: the KV lengths x Hkv x (D + Dv) at
//                  the cache's element size, fp8 one byte) need the KV lengths, which traces do not hold
//                  (they are tensor values). Then FLOPs (and, for a cache, bytes) are unknown, never
//                  guessed: `missing` says why. GQA/MQA: K and V at Hkv heads, the pairs at Hq.
//   rates          FLOPs and bytes over the device time (or the CPU time where no kernel ran).
// The manual pattern's backward is matched as autograd runs it: the softmax's backward node between
// the two matmuls' backward nodes; its heads, Hkv, mask and dtype come from the forward call with the
// same autograd sequence number (without one, from the gradient's shape: Hkv = Hq).
// Pure C++ (no torch).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/gpu_breakdown.h"
#include "model/attention_cost.h"
#include "model/device_roofs.h"
#include "model/trace.h"

namespace awb {

// SDPA's backends, the manual pattern, and Library: a library's or engine's own op or kernel, named by
// AttentionInstance::library and ::implementation.
enum class AttentionBackend { Flash, MemEfficient, Cudnn, CpuFlash, Math, Manual, Unknown, Library };
std::string to_string(AttentionBackend b);

// How Q, K and V are laid out: dense [B, H, N, D] (or [B, N, H, D]); varlen: sequences packed into
// [tokens, H, D]; paged: varlen queries against a KV cache in blocks.
enum class AttentionLayout : uint8_t { Dense, Varlen, Paged };
std::string to_string(AttentionLayout l);  // "dense", "varlen", "paged"

struct AttentionInstance {
    int32_t event = -1;  // the call: its outermost attention op, or the manual pattern's first matmul
    std::string op;      // that op's name ("aten::scaled_dot_product_attention", "aten::matmul", ...), or the
                         // kernel's for a call found by its kernel alone
    AttentionBackend backend = AttentionBackend::Unknown;
    std::string library;         // who runs it: "PyTorch SDPA", "manual", "vLLM", "SGLang", "FlashInfer", ...
    std::string implementation;  // the library's op or kernel family ("unified attention", "paged attention ragged")
    bool backward = false;
    AttentionLayout layout = AttentionLayout::Dense;
    AttentionShape shape;       // -1 where the trace does not say (varlen: Nq and Nk per sequence; paged: Nk)
    int64_t query_tokens = -1;  // query rows in the call: B x Nq dense, the packed tokens varlen/paged
    int64_t key_tokens =
        -1;  // key rows the op takes as inputs (not a paged cache's): B x Nk dense, packed tokens varlen
    bool heads_folded = false;  // the manual pattern on [B x H, N, D] whose H cannot be told from the ops around it:
                                // shape.batch is B x H, shape.heads_q 1 (when H can be told: B and H as usual)
    bool decode = false;        // one query token per sequence
    std::string dtype;          // as the trace names it ("float", "c10::BFloat16")
    std::string kv_dtype;       // the KV cache's or K's, when it differs from the query's ("c10::Float8_e4m3fn")
    std::string
        name_facts;  // what the kernel's name adds ("causal, sliding window, fp8 KV, head dim 64"): from the name only
    std::string missing;       // why FLOPs (and bytes) are unknown, "" when known
    bool replayed = false;     // its ops were recorded while a CUDA graph was captured and its kernels replayed
                               // (graph_replay.h): no CPU time of its own here
    bool kernel_only = false;  // found by a kernel whose launch names no op: no CPU span (start, end: the kernel's)
    bool captured = false;  // called while a CUDA graph was being captured: its kernels were recorded into the graph,
                            // not run (a capture trace); a replay trace with --capture times them
    int causal = -1;        // 1: is_causal, 0: no mask, -1: a mask tensor or not recorded
    int64_t window = 0;     // > 0: our own run's sliding window (causal 1): query i sees keys i - window + 1 .. i
    double mean_keys = 0;   // > 0: our own run's padding: the mean key length over the batch (its pairs: Nq x this)
    int32_t rank = -1;
    uint64_t thread = 0;
    int64_t start_ns = 0, end_ns = 0;  // CPU span (the manual pattern: first matmul's start to last one's end)
    int64_t device_ns = 0;             // the sum of the kernels, copies and sets its ops launched
    int64_t kernels = 0;
    int device_index = -1;        // the device of its first kernel
    int64_t device_start_ns = 0;  // when its first kernel starts
    int64_t step_gpu_ns =
        0;             // busy time of that device in the call's step (or the whole trace): its share's denominator
    double pairs = 0;  // visible (query, key) pairs over all batches and query heads
    double flops = 0;  // the cost model above (backward: FlashAttention's 2.5x)
    double flops_backward_no_recompute = 0;  // backward only: torch.utils.flop_counter's 2x
    double bytes = 0;                        // ideal bytes
    double bytes_scores = 0;                 // the materialised-scores model's bytes (model/attention_cost.h)
    double bytes_chunked = 0;                // the chunked model's bytes (blocks of 128)
    int64_t cpu_ns() const { return replayed || kernel_only ? 0 : end_ns - start_ns; }
    bool costed() const { return flops > 0; }  // FLOPs known
    double step_share() const { return step_gpu_ns > 0 ? double(device_ns) / double(step_gpu_ns) : 0.0; }
    // What the rates use: the device time, else the CPU time (a CPU run); none for a captured call (its kernels did not
    // run).
    int64_t time_ns() const { return device_ns > 0 ? device_ns : captured ? 0 : cpu_ns(); }
    int64_t span_ns() const { return end_ns - start_ns; }  // on the timeline
    double tflops_per_s() const { return time_ns() > 0 ? flops / double(time_ns()) / 1e3 : 0.0; }
    double gb_per_s() const { return time_ns() > 0 ? bytes / double(time_ns()) : 0.0; }
    bool operator==(const AttentionInstance&) const = default;
};

// The backend column: SDPA's backend, "manual", or the library's implementation.
std::string backend_text(const AttentionInstance& call);

// AttentionInstance::causal as the tables show it: "yes", "bottom-right", "no", "-", "window 256",
// "padding".
std::string causal_text(const AttentionInstance& call);

// Every attention call of the trace, in start order. spec: our own run's, whose mask gives the causal
// flag of calls of its shape that the trace does not record.
std::vector<AttentionInstance> attention_instances(const Trace& trace, const RunSpec* spec = nullptr);

int64_t trace_dtype_bytes(const std::string& dtype);  // "float" 4, "c10::Half" 2, ...; 0 unknown

// The calls' device time set against the GPUs' busy time: each call's step_gpu_ns (from the GPU time
// breakdown of the same trace: the row of its rank and device for the step holding its start, else
// the whole trace's).
void set_step_gpu_time(std::vector<AttentionInstance>& calls, const std::vector<GpuBreakdown>& gpu);

// Totals over the calls for the summaries: device time, the part of it with a FLOP count, and the
// GPUs' busy time they are a share of (the whole-trace rows of the devices they ran on).
struct AttentionTotals {
    int64_t calls = 0, cpu_ns = 0, device_ns = 0, device_uncosted_ns = 0, uncosted_calls = 0, gpu_busy_ns = 0;
    double flops = 0;
    double covered() const { return device_ns > 0 ? 1.0 - double(device_uncosted_ns) / double(device_ns) : 0.0; }
    double gpu_share() const { return gpu_busy_ns > 0 ? double(device_ns) / double(gpu_busy_ns) : 0.0; }
};
AttentionTotals attention_totals(const std::vector<AttentionInstance>& calls, const std::vector<GpuBreakdown>& gpu);
// "24 calls, device 12.3 ms (31.2% of GPU busy time); 3.1 ms (25.2%) in 12 calls without a FLOP count"
std::string format_attention_totals(const AttentionTotals& t);

// Calls with the same backend, pass, shape, dtype and causal flag, summed.
struct AttentionGroup {
    AttentionInstance first;  // the group's first call: its backend, pass, shape, dtype, causal
    int64_t calls = 0, uncosted_calls = 0, cpu_ns = 0, device_ns = 0, time_ns = 0, kernels = 0;
    double flops = 0, bytes = 0, bytes_scores = 0, bytes_chunked = 0;
    void add(const AttentionInstance& call);                  // one more call of the group
    static AttentionGroup of(const AttentionInstance& call);  // a group of one call
    double tflops_per_s() const { return time_ns > 0 ? flops / double(time_ns) / 1e3 : 0.0; }
    double gb_per_s() const { return time_ns > 0 ? bytes / double(time_ns) : 0.0; }
};
std::vector<AttentionGroup> group_attention(
    const std::vector<AttentionInstance>& instances);  // largest total time first

// The cost model's conventions in one sentence, printed with every table of calls.
std::string attention_conventions();
// How the "bytes model" column is chosen, in one sentence, printed with every table that has it.
std::string bytes_model_convention();

// The roofs that apply to a run's calls: the one measured in the run (our own runs), else the
// device table's for each dtype of the calls when the run names a GPU it lists; none otherwise.
std::vector<Roof> call_roofs(const Roof& measured, const std::string& device_name,
                             const std::vector<AttentionInstance>& calls);

// A call's (or group's) place under its roof: the share of the attainable rate and the bytes model
// whose roofline time is nearest its measured time. Applies when the roof is a GPU's and the call ran
// kernels, or the roof is the CPU's measured one and the call ran on the CPU.
struct RoofFit {
    bool applies = false;
    double attainable_tflops = 0;  // min(peak, ideal intensity x bandwidth)
    double share = 0;              // achieved over attainable
    BytesFit bytes;
};
RoofFit roof_fit(const AttentionGroup& group, const Roof& roof);
RoofFit roof_fit(const AttentionInstance& call, const Roof& roof);  // a group of one

// The groups as a text table with the conventions: `attnwb inspect --attention`. With roofs, a
// "% of roof" column (achieved TFLOP/s over min(peak of the dtype, ideal bytes' intensity x memory
// bandwidth)) and the bytes model that fits the measured time best.
// A call's notes: why a number is unknown, the KV's dtype, what the kernel's name adds, a graph's
// replay or capture. (The table's cells: attention_columns.h.)
std::vector<std::string> attention_notes(const AttentionInstance& call);

// gpu: the trace's GPU time breakdown, for the attention's share of the GPUs' busy time.
std::string format_attention(const std::vector<AttentionInstance>& instances, const std::vector<Roof>& roofs = {},
                             const std::vector<GpuBreakdown>& gpu = {});

}  // namespace awb
