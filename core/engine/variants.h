// Attention implementations behind one interface, and the inputs they run on. Includes ATen: for the
// core's own .cpp files and the tests, never for ui/ headers.
#pragma once

#include <ATen/ATen.h>

#include <memory>
#include <optional>
#include <string>

#include "model/run_spec.h"

namespace awb {

// The leaf tensors of a run (gradients accumulate here) and their [B,H,N,D] views for one step.
struct AttentionInputs {
    at::Tensor q, k, v;  // leaves, laid out as the spec says ([B,N,H,D] for layout bnhd)
    Layout layout = Layout::BHND;
    // Views as [B,H,N,D]: a transpose for bnhd, recorded by the profiler like a projection's.
    at::Tensor q_view() const;
    at::Tensor k_view() const;
    at::Tensor v_view() const;
};

at::Device torch_device(const DeviceSpec& d);
at::ScalarType torch_dtype(Dtype d);

// Fresh inputs: randn from the spec's seed, requires_grad in train mode.
AttentionInputs make_inputs(const RunSpec& spec);

class AttentionVariant {
public:
    virtual ~AttentionVariant() = default;
    virtual std::string name() const = 0;
    // Builds what the variant needs besides q/k/v (its mask form), outside any profiled step.
    virtual void prepare(const RunSpec& spec) = 0;
    // q: [B,H,Nq,D]; k, v: [B,KVH,Nk,D]. Returns [B,H,Nq,D].
    virtual at::Tensor forward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) const = 0;
    // One step's forward on the run's leaves: the built-ins take the [B,H,N,D] views; a user's module
    // takes the tensors in the spec's layout, as its calling convention says, and returns that layout.
    virtual at::Tensor forward_inputs(const AttentionInputs& in) const {
        return forward(in.q_view(), in.k_view(), in.v_view());
    }
};

// Throws std::invalid_argument for a name that variant_catalog() does not list.
std::unique_ptr<AttentionVariant> make_variant(const std::string& name);
// The spec's variant: its module (module_variant.h) when it has one, else the built-in of that name.
// Defined in module_variant.cpp, which knows both (variants.cpp does not depend on the modules).
std::unique_ptr<AttentionVariant> make_variant(const RunSpec& spec);

// One step of the article's loop: the forward inside a USER_SCOPE region named after the variant,
// then in train mode out.square().mean().backward(). out is assigned right after the forward, so the
// previous step's output dies there, as `output = attn(q, k, v)` does in the Python loop.
void run_step(const AttentionVariant& variant, const AttentionInputs& inputs, Mode mode, at::Tensor& out);

// The chunked variant (chunked_attention.cpp); make_variant("chunked") returns it.
std::unique_ptr<AttentionVariant> make_chunked_attention();

// GQA: repeat each K/V head heads/kv_heads times along dim 1.
at::Tensor expand_kv_heads(const at::Tensor& t, int64_t heads);

// The padding mask's key lengths as a [B,1,1,1] long tensor on the spec's device (a key at position j
// of batch entry b is visible when j < lengths[b]).
at::Tensor key_lengths_tensor(const RunSpec& spec);

// The boolean mask with True where a query must not see a key: [Nq,Nk] (causal, top-left aligned as
// in SDPA's is_causal; a window hides also the keys W or more before the query) or [B,1,1,Nk]
// (padding); undefined for no mask.
at::Tensor masked_out_positions(const RunSpec& spec);

}  // namespace awb
