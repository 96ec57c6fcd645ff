// The chunked variant: attention over query blocks x key blocks with an online softmax (running max
// and sum), so that only [B,H,block,block] scores exist at a time. Its backward is FlashAttention's:
// each block's probabilities are recomputed from the saved log-sum-exp, so training memory also grows
// linearly in N (plain autograd over the forward loop would keep every block alive: N^2 again).
#include <torch/csrc/autograd/custom_function.h>

#include <cmath>
#include <limits>

#include "engine/variants.h"

namespace awb {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct ChunkParams {
    int64_t block = 128;
    double scale = 1.0;
    bool causal = false;
    int64_t window = 0;      // > 0: a sliding window (causal too): keys i - window + 1 .. i
    at::Tensor key_lengths;  // [B,1,1,1] long with padding, else undefined
};

// Which of block rows [i0, i0+rows) x keys [j0, j0+cols) must be hidden: a bool tensor broadcastable
// to [B,H,rows,cols], or undefined when every pair in the block is visible.
at::Tensor hidden_in_block(const ChunkParams& p, int64_t i0, int64_t rows, int64_t j0, int64_t cols,
                           const at::Device& device) {
    at::Tensor hidden;
    const auto longs = at::TensorOptions().dtype(at::kLong).device(device);
    const bool after = p.causal && j0 + cols - 1 > i0;  // some key lies after some query (top-left aligned)
    const bool before = p.window > 0 && j0 <= i0 + rows - 1 - p.window;  // some key lies W or more before some query
    if (after || before) {
        const auto qpos = at::arange(i0, i0 + rows, longs).view({rows, 1});
        const auto kpos = at::arange(j0, j0 + cols, longs).view({1, cols});
        hidden = kpos.gt(qpos);
        if (before) hidden.logical_or_(kpos.le(qpos - p.window));
    }
    if (p.key_lengths.defined()) {
        const auto kpos = at::arange(j0, j0 + cols, longs).view({1, 1, 1, cols});
        const auto padded = kpos.ge(p.key_lengths);
        hidden = hidden.defined() ? hidden.logical_or(padded) : padded;
    }
    return hidden;
}

// Key blocks at or after this one are entirely hidden from query rows [i0, i0+rows) under a causal mask.
int64_t key_end(const ChunkParams& p, int64_t i0, int64_t rows, int64_t nk) {
    return p.causal ? std::min(nk, i0 + rows) : nk;
}

// Key blocks before this one are entirely hidden from query rows from i0 on under a sliding window
// (the first key row i0 sees is i0 - window + 1), rounded down to a block start.
int64_t key_begin(const ChunkParams& p, int64_t i0, int64_t block) {
    return p.window > 0 ? std::max<int64_t>(0, i0 - p.window + 1) / block * block : 0;
}

at::ScalarType accumulate_type(const at::Tensor& t) {
    const auto d = t.scalar_type();
    return d == at::kHalf || d == at::kBFloat16 ? at::kFloat : d;
}

// Scaled, masked scores of one block in the accumulation type.
at::Tensor block_scores(const at::Tensor& qi, const at::Tensor& kj, const ChunkParams& p, int64_t i0, int64_t j0) {
    auto s = at::matmul(qi, kj.transpose(-2, -1)).to(accumulate_type(qi)).mul_(p.scale);
    const auto hidden = hidden_in_block(p, i0, qi.size(2), j0, kj.size(2), qi.device());
    if (hidden.defined()) s.masked_fill_(hidden, -kInf);
    return s;
}

class ChunkedAttentionFunction : public torch::autograd::Function<ChunkedAttentionFunction> {
public:
    // q [B,H,Nq,D]; k, v [B,H,Nk,D] (GQA already expanded). Returns [B,H,Nq,D].
    static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& q, const at::Tensor& k,
                              const at::Tensor& v, const ChunkParams& p) {
        const int64_t nq = q.size(2), nk = k.size(2), b = p.block;
        const auto acc_type = accumulate_type(q);
        auto out = at::empty_like(q, at::MemoryFormat::Contiguous);
        auto lse = at::empty({q.size(0), q.size(1), nq, 1}, q.options().dtype(acc_type));
        for (int64_t i0 = 0; i0 < nq; i0 += b) {
            const int64_t rows = std::min(b, nq - i0);
            const auto qi = q.narrow(2, i0, rows);
            auto m = at::full({q.size(0), q.size(1), rows, 1}, -kInf, lse.options());
            auto l = at::zeros_like(m);
            auto acc = at::zeros({q.size(0), q.size(1), rows, q.size(3)}, lse.options());
            for (int64_t j0 = key_begin(p, i0, b); j0 < key_end(p, i0, rows, nk); j0 += b) {
                const int64_t cols = std::min(b, nk - j0);
                const auto s = block_scores(qi, k.narrow(2, j0, cols), p, i0, j0);
                const auto m_new = at::maximum(m, std::get<0>(s.max(-1, true)));
                // A row with nothing visible yet keeps max -inf; shift it by 0 so exp gives 0, not NaN.
                const auto shift = m_new.masked_fill(m_new.isneginf(), 0.0);
                const auto probs = (s - shift).exp_();
                const auto rescale = (m - shift).exp_();
                l = l.mul_(rescale).add_(probs.sum(-1, true));
                acc = acc.mul_(rescale).add_(at::matmul(probs.to(v.scalar_type()), v.narrow(2, j0, cols)).to(acc_type));
                m = m_new;
            }
            // Rows with no visible key: l = 0 and acc = 0, so 0/0 = NaN, as softmax over all -inf gives.
            out.narrow(2, i0, rows).copy_(acc.div_(l));
            lse.narrow(2, i0, rows).copy_(m.masked_fill(m.isneginf(), 0.0).add_(l.log()));
        }
        ctx->save_for_backward({q, k, v, out, lse});
        ctx->saved_data["block"] = p.block;
        ctx->saved_data["scale"] = p.scale;
        ctx->saved_data["causal"] = p.causal;
        ctx->saved_data["window"] = p.window;
        if (p.key_lengths.defined()) ctx->saved_data["key_lengths"] = p.key_lengths;
        return out;
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads) {
        const auto saved = ctx->get_saved_variables();
        const auto &q = saved[0], &k = saved[1], &v = saved[2], &out = saved[3], &lse = saved[4];
        ChunkParams p;
        p.block = ctx->saved_data["block"].toInt();
        p.scale = ctx->saved_data["scale"].toDouble();
        p.causal = ctx->saved_data["causal"].toBool();
        p.window = ctx->saved_data["window"].toInt();
        if (ctx->saved_data.count("key_lengths")) p.key_lengths = ctx->saved_data["key_lengths"].toTensor();

        const auto acc_type = accumulate_type(q);
        const auto dout = grads[0];
        const int64_t nq = q.size(2), nk = k.size(2), b = p.block;
        // D_i = rowsum(dO * O): the softmax backward's correction term.
        const auto delta = (dout.to(acc_type) * out.to(acc_type)).sum(-1, true);
        // Rows that saw no key (lse = -inf) get probability 0 everywhere instead of NaN.
        const auto lse_safe = lse.masked_fill(lse.isneginf(), kInf);
        auto dq = at::zeros(q.sizes(), q.options().dtype(acc_type));
        auto dk = at::zeros(k.sizes(), k.options().dtype(acc_type));
        auto dv = at::zeros(v.sizes(), v.options().dtype(acc_type));
        for (int64_t i0 = 0; i0 < nq; i0 += b) {
            const int64_t rows = std::min(b, nq - i0);
            const auto qi = q.narrow(2, i0, rows);
            const auto doi = dout.narrow(2, i0, rows);
            const auto lse_i = lse_safe.narrow(2, i0, rows);
            const auto delta_i = delta.narrow(2, i0, rows);
            auto dqi = dq.narrow(2, i0, rows);
            for (int64_t j0 = key_begin(p, i0, b); j0 < key_end(p, i0, rows, nk); j0 += b) {
                const int64_t cols = std::min(b, nk - j0);
                const auto kj = k.narrow(2, j0, cols);
                const auto vj = v.narrow(2, j0, cols);
                const auto probs = block_scores(qi, kj, p, i0, j0).sub_(lse_i).exp_();
                dv.narrow(2, j0, cols).add_(at::matmul(probs.transpose(-2, -1).to(q.scalar_type()), doi).to(acc_type));
                const auto dprobs = at::matmul(doi, vj.transpose(-2, -1)).to(acc_type);
                const auto dscores = probs.mul_(dprobs.sub_(delta_i)).to(q.scalar_type());
                dqi.add_(at::matmul(dscores, kj).to(acc_type), p.scale);
                dk.narrow(2, j0, cols).add_(at::matmul(dscores.transpose(-2, -1), qi).to(acc_type), p.scale);
            }
        }
        return {dq.to(q.scalar_type()), dk.to(k.scalar_type()), dv.to(v.scalar_type()), at::Tensor()};
    }
};

class ChunkedAttention final : public AttentionVariant {
public:
    std::string name() const override { return "chunked"; }
    void prepare(const RunSpec& spec) override {
        params_ = ChunkParams{};
        params_.block = spec.block_size;
        params_.causal = spec.mask == MaskKind::Causal || spec.mask == MaskKind::Window;
        params_.window = spec.mask == MaskKind::Window ? spec.window : 0;
        if (spec.mask == MaskKind::Padding) params_.key_lengths = key_lengths_tensor(spec);
    }
    at::Tensor forward(const at::Tensor& q, const at::Tensor& k_in, const at::Tensor& v_in) const override {
        ChunkParams p = params_;
        p.scale = 1.0 / std::sqrt(double(q.size(-1)));
        return ChunkedAttentionFunction::apply(q, expand_kv_heads(k_in, q.size(1)), expand_kv_heads(v_in, q.size(1)),
                                               p);
    }

private:
    ChunkParams params_;
};

}  // namespace

std::unique_ptr<AttentionVariant> make_chunked_attention() { return std::make_unique<ChunkedAttention>(); }

}  // namespace awb
