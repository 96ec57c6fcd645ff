#include "model/attention_cost.h"

#include <algorithm>
#include <cmath>

namespace awb {

AttentionShape attention_shape(const RunSpec& s) {
    return {s.batch, s.heads, s.kv_heads, s.seq_q, s.seq_k, s.head_dim, s.head_dim};
}

double bottom_right_pairs(int64_t seq_q, int64_t seq_k) {
    // With Nq <= Nk every query sees its row's count plus Nk - Nq; with Nq > Nk the first Nq - Nk
    // queries see none and the rest 1..Nk.
    const double q = double(seq_q), k = double(seq_k);
    return seq_q <= seq_k ? q * (q + 1) / 2 + (k - q) * q : k * (k + 1) / 2;
}

double attention_flops(const AttentionShape& s, double pairs_per_head, bool backward) {
    const double forward =
        2.0 * pairs_per_head * double(s.head_dim + s.head_dim_v) * double(s.batch) * double(s.heads_q);
    return backward ? 2.5 * forward : forward;
}

std::string to_string(BytesModel m) {
    switch (m) {
        case BytesModel::Ideal: return "ideal";
        case BytesModel::Scores: return "scores";
        case BytesModel::Chunked: return "chunked";
    }
    return "?";
}

double attention_bytes(const AttentionShape& s, int64_t element_bytes, bool backward, BytesModel model, int64_t block,
                       int64_t kv_element_bytes) {
    const double b = double(s.batch), hq = double(s.heads_q), hkv = double(s.heads_kv), nq = double(s.seq_q),
                 nk = double(s.seq_k);
    const double d = double(s.head_dim), dv = double(s.head_dim_v), e = double(element_bytes);
    const double ekv = kv_element_bytes > 0 ? double(kv_element_bytes) : e;
    // Q and O (and their gradients) at the element size, K and V at theirs.
    const double q = e * b * hq * nq * d, k = ekv * b * hkv * nk * d, v = ekv * b * hkv * nk * dv,
                 o = e * b * hq * nq * dv;
    const double ideal = (q + k + v + o) * (backward ? 2.0 : 1.0);  // backward: + dO, dQ, dK, dV
    switch (model) {
        case BytesModel::Ideal: return ideal;
        case BytesModel::Scores: return ideal + e * (backward ? 7.0 : 4.0) * b * hq * nq * nk;
        case BytesModel::Chunked: {
            const int64_t blk = std::max<int64_t>(1, block);
            if (!backward) {
                const double query_blocks = double((s.seq_q + blk - 1) / blk);
                return q + o + ekv * b * hq * query_blocks * nk * (d + dv);
            }
            const double key_blocks = double((s.seq_k + blk - 1) / blk);
            return 2.0 * (k + v) + 2.0 * o + e * b * hq * key_blocks * nq * (3.0 * d + dv);
        }
    }
    return 0;
}

double attention_bytes(const RunSpec& spec, BytesModel model) {
    const AttentionShape s = attention_shape(spec);
    const int64_t e = element_size(spec.dtype);
    const double forward = attention_bytes(s, e, false, model, spec.block_size);
    return spec.mode == Mode::Train ? forward + attention_bytes(s, e, true, model, spec.block_size) : forward;
}

BytesFit fit_bytes_model(double flops, const double bytes[3], double measured_ns, double peak_tflops,
                         double memory_tb_s) {
    BytesFit fit;
    if (measured_ns <= 0 || peak_tflops <= 0 || memory_tb_s <= 0) return fit;
    double best = 0, low = 0, high = 0;
    for (int m = 0; m < 3; ++m) {
        // TFLOP/s and TB/s are 1e3 FLOP and bytes per ns.
        const double t = std::max(flops / (peak_tflops * 1e3), bytes[m] / (memory_tb_s * 1e3));
        fit.predicted_ns[m] = t;
        const double miss = std::abs(std::log(std::max(t, 1e-9) / measured_ns));
        if (m == 0 || miss < best) {
            best = miss;
            fit.model = kBytesModels[m];
        }
        low = m == 0 ? t : std::min(low, t);
        high = m == 0 ? t : std::max(high, t);
    }
    fit.tie = high <= low * 1.01;
    return fit;
}

}  // namespace awb
