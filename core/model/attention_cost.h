// The cost model of one attention call, shared by the calls found in traces
// (analysis/attention.h) and by our own benchmark runs (a RunSpec): FLOPs from the visible
// (query, key) pairs, and bytes moved under three models:
//
//   ideal     each tensor once: Q, K, V, O forward; Q, K, V, O, dO read and dQ, dK, dV written in
//             the backward (grouped-query K and V at their own head count).
//   scores    ideal plus the [B, Hq, Nq, Nk] scores at every pass that writes or reads them, as the
//             manual pattern and SDPA's math path run: forward 4 (S written by Q K^T, read by the
//             softmax, P written, read by P V), backward 7 (P read for dV, dP written, P and dP read
//             by the softmax's backward, dS written, read for dQ and for dK). A lower bound: a separate
//             scale or mask op adds two passes each.
//   chunked   FlashAttention-2's tiling in blocks of 128 (our chunked variant: its block size): the
//             forward reads Q and writes O once and reads K and V once per query block and query
//             head; the backward reads K, V and writes dK, dV once, reads O and dO once (the row
//             sums), and per key block reads Q and dO and reads and writes dQ.
//
// Pure C++ (no torch).
#pragma once

#include <cstdint>
#include <string>

#include "model/run_spec.h"

namespace awb {

struct AttentionShape {
    int64_t batch = -1, heads_q = -1, heads_kv = -1, seq_q = -1, seq_k = -1, head_dim = -1, head_dim_v = -1;
    bool known() const {
        return batch > 0 && heads_q > 0 && heads_kv > 0 && seq_q > 0 && seq_k > 0 && head_dim > 0 && head_dim_v > 0;
    }
    bool operator==(const AttentionShape&) const = default;
};

AttentionShape attention_shape(const RunSpec& spec);

// Bottom-right aligned causal (xformers' mask type 2, FlashAttention's own convention): query i sees
// keys 0..i + Nk - Nq.
double bottom_right_pairs(int64_t seq_q, int64_t seq_k);

// 2 x pairs x (D + Dv) per (batch, query head) forward; backward 2.5x (FlashAttention's convention).
double attention_flops(const AttentionShape& s, double pairs_per_head, bool backward);

enum class BytesModel { Ideal, Scores, Chunked };
inline constexpr BytesModel kBytesModels[] = {BytesModel::Ideal, BytesModel::Scores, BytesModel::Chunked};
std::string to_string(BytesModel m);  // "ideal", "scores", "chunked"

// Bytes one pass moves under a model (see above); block: the chunked model's block (FlashAttention's 128);
// kv_element_bytes: K's and V's element size when it differs (an fp8 KV cache), 0 for element_bytes.
double attention_bytes(const AttentionShape& s, int64_t element_bytes, bool backward, BytesModel model,
                       int64_t block = 128, int64_t kv_element_bytes = 0);

// Bytes of one iteration of a spec (forward, and in train mode its backward); the chunked model uses
// the spec's block size.
double attention_bytes(const RunSpec& spec, BytesModel model);

// The model whose roofline time, max(flops / peak, bytes / bandwidth), is nearest the measured time
// (in ratio). `tie` is set when the models' times differ by under 1% (compute-bound: the bytes
// cannot be told apart).
struct BytesFit {
    BytesModel model = BytesModel::Ideal;
    double predicted_ns[3] = {0, 0, 0};  // per model, in kBytesModels' order
    bool tie = false;
};
BytesFit fit_bytes_model(double flops, const double bytes[3], double measured_ns, double peak_tflops,
                         double memory_tb_s);

}  // namespace awb
