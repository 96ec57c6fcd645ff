#include "engine/variants.h"

#include <ATen/ScalarOps.h>
#include <ATen/record_function.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/compat.h"
#include "model/run_observer.h"
#include "model/variant_catalog.h"

namespace awb {

at::Tensor AttentionInputs::q_view() const { return layout == Layout::BHND ? q : q.transpose(1, 2); }
at::Tensor AttentionInputs::k_view() const { return layout == Layout::BHND ? k : k.transpose(1, 2); }
at::Tensor AttentionInputs::v_view() const { return layout == Layout::BHND ? v : v.transpose(1, 2); }

at::Device torch_device(const DeviceSpec& d) {
    if (d.kind == DeviceKind::CUDA) return at::Device(at::kCUDA, d.index < 0 ? 0 : int8_t(d.index));
    return at::Device(at::kCPU);
}

at::ScalarType torch_dtype(Dtype d) {
    switch (d) {
        case Dtype::Float32: return at::kFloat;
        case Dtype::Float64: return at::kDouble;
        case Dtype::Float16: return at::kHalf;
        case Dtype::BFloat16: return at::kBFloat16;
    }
    return at::kFloat;
}

AttentionInputs make_inputs(const RunSpec& s) {
    at::manual_seed(s.seed);
    const auto options = at::TensorOptions().dtype(torch_dtype(s.dtype)).device(torch_device(s.device));
    const bool grad = s.mode == Mode::Train;
    auto leaf = [&](int64_t heads, int64_t n) {
        std::vector<int64_t> shape = s.layout == Layout::BHND ? std::vector<int64_t>{s.batch, heads, n, s.head_dim}
                                                              : std::vector<int64_t>{s.batch, n, heads, s.head_dim};
        return at::randn(shape, options).set_requires_grad(grad);
    };
    AttentionInputs in;
    in.q = leaf(s.heads, s.seq_q);
    in.k = leaf(s.kv_heads, s.seq_k);
    in.v = leaf(s.kv_heads, s.seq_k);
    in.layout = s.layout;
    return in;
}

at::Tensor expand_kv_heads(const at::Tensor& t, int64_t heads) {
    const int64_t kv_heads = t.size(1);
    if (kv_heads == heads) return t;
    return t.repeat_interleave(heads / kv_heads, 1);
}

at::Tensor key_lengths_tensor(const RunSpec& s) {
    return at::tensor(s.key_lengths, at::TensorOptions().dtype(at::kLong))
        .to(torch_device(s.device))
        .view({s.batch, 1, 1, 1});
}

at::Tensor masked_out_positions(const RunSpec& s) {
    const auto opts = at::TensorOptions().dtype(at::kBool).device(torch_device(s.device));
    if (s.mask == MaskKind::Causal) return at::ones({s.seq_q, s.seq_k}, opts).triu(1);
    if (s.mask == MaskKind::Window)  // after the query, or W or more keys before it
        return at::ones({s.seq_q, s.seq_k}, opts)
            .triu(1)
            .logical_or(at::ones({s.seq_q, s.seq_k}, opts).tril(-s.window));
    if (s.mask == MaskKind::Padding) {
        auto key_pos =
            at::arange(s.seq_k, at::TensorOptions().dtype(at::kLong).device(opts.device())).view({1, 1, 1, s.seq_k});
        return key_pos.ge(key_lengths_tensor(s));
    }
    return {};
}

namespace {

// The article's three lines; masked positions are filled with -inf before the softmax.
class ManualAttention final : public AttentionVariant {
public:
    std::string name() const override { return "manual"; }
    void prepare(const RunSpec& spec) override { masked_out_ = masked_out_positions(spec); }
    at::Tensor forward(const at::Tensor& q, const at::Tensor& k_in, const at::Tensor& v_in) const override {
        const auto k = expand_kv_heads(k_in, q.size(1));
        const auto v = expand_kv_heads(v_in, q.size(1));
        const double scale = 1.0 / std::sqrt(double(q.size(-1)));
        at::Tensor scores;
        {
            const auto qk = at::matmul(q, k.transpose(-2, -1));
            // Python's `tensor * float` wraps the float into a 0-dim tensor after evaluating the left
            // side and calls mul.Tensor (backward MulBackward0); C++'s `tensor * double` would call
            // mul.Scalar. The wrapped scalar dies before the matmul result, as in Python.
            scores = at::mul(qk, at::native::wrapped_scalar_tensor(scale));
        }
        if (masked_out_.defined()) scores = scores.masked_fill(masked_out_, -std::numeric_limits<double>::infinity());
        const auto probabilities = at::softmax(scores, -1);
        return at::matmul(probabilities, v);
    }

private:
    at::Tensor masked_out_;
};

// PyTorch's fused op; causal masks use its is_causal flag, padding and windows a boolean keep-mask.
class SdpaAttention final : public AttentionVariant {
public:
    std::string name() const override { return "sdpa"; }
    void prepare(const RunSpec& spec) override {
        causal_ = spec.mask == MaskKind::Causal;
        keep_.reset();
        if (spec.mask == MaskKind::Padding || spec.mask == MaskKind::Window)
            keep_ = masked_out_positions(spec).logical_not();
        backend_ = to_string(spec.sdpa_backend);
        what_ = shape_string(spec) + " " + to_string(spec.dtype) + " on " + to_string(spec.device) +
                (spec.mask == MaskKind::None ? "" : " with mask " + to_string(spec.mask));
    }
    at::Tensor forward(const at::Tensor& q, const at::Tensor& k_in, const at::Tensor& v_in) const override {
        const auto k = expand_kv_heads(k_in, q.size(1));
        const auto v = expand_kv_heads(v_in, q.size(1));
        compat::SdpaBackendScope scope(backend_);
        if (backend_ == "auto") return compat::sdpa(q, k, v, keep_, causal_);
        // Restricted to one backend, LibTorch may find no kernel for these inputs: it then warns why,
        // backend by backend, and fails with "No available kernel". That is bad input, named by field.
        compat::WarningCollector warnings;
        try {
            auto out = compat::sdpa(q, k, v, keep_, causal_);
            warnings.replay();
            return out;
        } catch (const c10::Error& e) {
            // CUDA and a rejected CPU flash kernel: "No available kernel" after the reasons; the CPU
            // with every backend it has switched off: "No viable backend"; LibTorch 2.11 on CUDA (the H200)
            // for flash with an attention mask: "Invalid backend".
            const std::string error = e.what_without_backtrace();
            if (error.find("No available kernel") == std::string::npos &&
                error.find("No viable backend") == std::string::npos &&
                error.find("Invalid backend") == std::string::npos)
                throw;
            std::string why;
            for (const auto& m : warnings.messages()) why += (why.empty() ? "" : " ") + m;
            if (why.empty()) why = error.substr(0, error.find('\n'));
            throw InvalidInput({{"sdpa_backend", "'" + backend_ + "' cannot run " + what_ + ": LibTorch says: " + why +
                                                     " Use auto or another backend."}});
        }
    }

private:
    std::optional<at::Tensor> keep_;
    bool causal_ = false;
    std::string backend_ = "auto";
    std::string what_;
};

}  // namespace

void run_step(const AttentionVariant& variant, const AttentionInputs& inputs, Mode mode, at::Tensor& out) {
    {
        at::RecordFunction region(at::RecordScope::USER_SCOPE);
        if (region.isActive()) region.before(variant.name());
        out = variant.forward_inputs(inputs);
    }
    if (mode == Mode::Train) {
        auto loss = out.square().mean();
        // Python's Tensor.backward() makes the seed gradient with ones_like(memory_format=preserve_format);
        // C++'s default would use the contiguous format.
        loss.backward(at::ones_like(loss, at::MemoryFormat::Preserve));
    }
}

std::unique_ptr<AttentionVariant> make_variant(const std::string& name) {
    if (name == "manual") return std::make_unique<ManualAttention>();
    if (name == "sdpa") return std::make_unique<SdpaAttention>();
    if (name == "chunked") return make_chunked_attention();
    throw std::invalid_argument("unknown variant '" + name + "' (known: " + variant_names() + ")");
}

}  // namespace awb
