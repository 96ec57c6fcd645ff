// The attention calls of a run or an imported trace (issue 17): scaled_dot_product_attention and its
// backends' ops, forward and backward, and the manual pattern (matmul, scale and mask, softmax, matmul
// with matching shapes). Each gets its shapes from the recorded input dims, its dtype, causal flag and
// backend, its CPU time and device time (the sum of the kernels its ops launched), and a cost model:
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
//                  the backward (grouped-query K and V at their own head count).
//   rates          FLOPs and bytes over the device time (or the CPU time where no kernel ran).
// The manual pattern's backward is matched as autograd runs it: the softmax's backward node between
// the two matmuls' backward nodes (grouped-query heads are not told apart there: Hkv = Hq).
// Pure C++ (no torch).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/attention_cost.h"
#include "model/device_roofs.h"
#include "model/trace.h"

namespace awb {

enum class AttentionBackend { Flash, MemEfficient, Cudnn, CpuFlash, Math, Manual, Unknown };
std::string to_string(AttentionBackend b);

struct AttentionInstance {
    int32_t event = -1;      // the call: its outermost attention op, or the manual pattern's first matmul
    std::string op;          // that op's name ("aten::scaled_dot_product_attention", "aten::matmul", ...)
    AttentionBackend backend = AttentionBackend::Unknown;
    bool backward = false;
    AttentionShape shape;
    std::string dtype;       // as the trace names it ("float", "c10::BFloat16")
    int causal = -1;         // 1: is_causal, 0: no mask, -1: a mask tensor or not recorded
    int64_t window = 0;      // > 0: our own run's sliding window (causal 1): query i sees keys i - window + 1 .. i
    double mean_keys = 0;    // > 0: our own run's padding: the mean key length over the batch (its pairs: Nq x this)
    int32_t rank = -1;
    uint64_t thread = 0;
    int64_t start_ns = 0, end_ns = 0;  // CPU span (the manual pattern: first matmul's start to last one's end)
    int64_t device_ns = 0;   // the sum of the kernels, copies and sets its ops launched
    int64_t kernels = 0;
    double pairs = 0;        // visible (query, key) pairs over all batches and query heads
    double flops = 0;        // the cost model above (backward: FlashAttention's 2.5x)
    double flops_backward_no_recompute = 0;  // backward only: torch.utils.flop_counter's 2x
    double bytes = 0;        // ideal bytes
    double bytes_scores = 0;   // the materialised-scores model's bytes (model/attention_cost.h)
    double bytes_chunked = 0;  // the chunked model's bytes (blocks of 128)
    int64_t cpu_ns() const { return end_ns - start_ns; }
    int64_t time_ns() const { return device_ns > 0 ? device_ns : cpu_ns(); }  // what the rates use
    double tflops_per_s() const { return time_ns() > 0 ? flops / double(time_ns()) / 1e3 : 0.0; }
    double gb_per_s() const { return time_ns() > 0 ? bytes / double(time_ns()) : 0.0; }
    bool operator==(const AttentionInstance&) const = default;
};

// AttentionInstance::causal as the tables show it: "yes", "bottom-right", "no", "-", "window 256",
// "padding".
std::string causal_text(const AttentionInstance& call);

// Every attention call of the trace, in start order. spec: our own run's, whose mask gives the causal
// flag of calls of its shape that the trace does not record.
std::vector<AttentionInstance> attention_instances(const Trace& trace, const RunSpec* spec = nullptr);

int64_t trace_dtype_bytes(const std::string& dtype);  // "float" 4, "c10::Half" 2, ...; 0 unknown

// Calls with the same backend, pass, shape, dtype and causal flag, summed.
struct AttentionGroup {
    AttentionInstance first;  // the group's first call: its backend, pass, shape, dtype, causal
    int64_t calls = 0, cpu_ns = 0, device_ns = 0, time_ns = 0;
    double flops = 0, bytes = 0, bytes_scores = 0, bytes_chunked = 0;
    void add(const AttentionInstance& call);  // one more call of the group
    double tflops_per_s() const { return time_ns > 0 ? flops / double(time_ns) / 1e3 : 0.0; }
    double gb_per_s() const { return time_ns > 0 ? bytes / double(time_ns) : 0.0; }
};
std::vector<AttentionGroup> group_attention(const std::vector<AttentionInstance>& instances);  // largest total time first

// The cost model's conventions in one sentence, printed with every table of calls.
std::string attention_conventions();
// How the "bytes model" column is chosen, in one sentence, printed with every table that has it.
std::string bytes_model_convention();

// The roofs that apply to a run's calls: the one measured in the run (our own runs), else the
// device table's for each dtype of the calls when the run names a GPU it lists; none otherwise.
std::vector<Roof> call_roofs(const Roof& measured, const std::string& device_name, const std::vector<AttentionInstance>& calls);

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
std::string format_attention(const std::vector<AttentionInstance>& instances, const std::vector<Roof>& roofs = {});

}  // namespace awb
