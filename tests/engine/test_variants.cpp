// Every variant against a float64 evaluation of the attention formula on the same inputs: output and
// q/k/v gradients, with each mask, both layouts and grouped-query attention.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <ostream>

#include "engine/variants.h"
#include "model/variant_catalog.h"

using namespace awb;

namespace variant_accuracy {

// Written independently of the variants: explicit exp/sum softmax, masks built by index arithmetic.
at::Tensor reference_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const RunSpec& s) {
    const int64_t group = s.heads / s.kv_heads;
    auto kk = k.repeat_interleave(group, 1), vv = v.repeat_interleave(group, 1);
    auto scores = at::matmul(q, kk.transpose(-1, -2)) / std::sqrt(double(s.head_dim));
    auto i = at::arange(s.seq_q, at::kLong).view({s.seq_q, 1});
    auto j = at::arange(s.seq_k, at::kLong).view({1, s.seq_k});
    at::Tensor allowed = at::ones({s.batch, 1, s.seq_q, s.seq_k}, at::kBool);
    if (s.mask == MaskKind::Causal) allowed = allowed & (j <= i);
    if (s.mask == MaskKind::Padding)
        allowed = allowed & (j.view({1, 1, 1, s.seq_k}) < at::tensor(s.key_lengths).view({s.batch, 1, 1, 1}));
    auto m = std::get<0>(scores.max(-1, true)).detach();
    auto e = (scores - m).exp() * allowed.to(at::kDouble);
    auto p = e / e.sum(-1, true);
    return at::matmul(p, vv);
}

struct Case {
    std::string variant;
    MaskKind mask;
    Layout layout;
    int64_t kv_heads;
    int64_t seq_q, seq_k;
    int64_t block = 128;  // chunked only
};

std::string describe(const Case& c) {
    return c.variant + "_" + to_string(c.mask) + "_" + to_string(c.layout) + "_kv" + std::to_string(c.kv_heads) + "_" +
           std::to_string(c.seq_q) + "x" + std::to_string(c.seq_k) +
           (c.variant == "chunked" ? "_block" + std::to_string(c.block) : "");
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) { return describe(info.param); }

// Readable test listings instead of a byte dump of the parameter (found by ADL, hence in this namespace).
[[maybe_unused]] void PrintTo(const Case& c, std::ostream* os) { *os << describe(c); }

class VariantAccuracy : public ::testing::TestWithParam<Case> {};

}  // namespace variant_accuracy

// A named namespace, not an anonymous one: in a unity build this file is included, and g++ warns of the
// test classes (outside it) deriving from a type inside an anonymous one (-Wsubobject-linkage).
using namespace variant_accuracy;

TEST_P(VariantAccuracy, MatchesFloat64Reference) {
    const Case& c = GetParam();
    RunSpec s;
    s.variant = c.variant;
    s.batch = 2;
    s.heads = 4;
    s.kv_heads = c.kv_heads;
    s.seq_q = c.seq_q;
    s.seq_k = c.seq_k;
    s.head_dim = 16;
    s.mask = c.mask;
    s.layout = c.layout;
    s.block_size = c.block;
    if (c.mask == MaskKind::Padding) s.key_lengths = {c.seq_k, c.seq_k / 3};
    s.mode = Mode::Train;

    auto variant = make_variant(s.variant);
    variant->prepare(s);
    const AttentionInputs in = make_inputs(s);
    auto out = variant->forward(in.q_view(), in.k_view(), in.v_view());
    ASSERT_EQ(out.sizes(), at::IntArrayRef({s.batch, s.heads, s.seq_q, s.head_dim}));
    out.square().mean().backward();

    auto leaf64 = [](const at::Tensor& t) { return t.detach().to(at::kDouble).set_requires_grad(true); };
    auto q64 = leaf64(in.q), k64 = leaf64(in.k), v64 = leaf64(in.v);
    auto view = [&](const at::Tensor& t) { return s.layout == Layout::BHND ? t : t.transpose(1, 2); };
    auto ref = reference_attention(view(q64), view(k64), view(v64), s);
    ref.square().mean().backward();

    // float32 tolerance: errors of a few ulp accumulated over D=16 and N<=64 terms.
    const double tol = 2e-5;
    EXPECT_LT((out.detach().to(at::kDouble) - ref.detach()).abs().max().item<double>(), tol) << "output";
    EXPECT_LT((in.q.grad().to(at::kDouble) - q64.grad()).abs().max().item<double>(), tol) << "dq";
    EXPECT_LT((in.k.grad().to(at::kDouble) - k64.grad()).abs().max().item<double>(), tol) << "dk";
    EXPECT_LT((in.v.grad().to(at::kDouble) - v64.grad()).abs().max().item<double>(), tol) << "dv";
    EXPECT_FALSE(out.isnan().any().item<bool>());
}

INSTANTIATE_TEST_SUITE_P(
    AllVariants, VariantAccuracy,
    ::testing::Values(Case{"manual", MaskKind::None, Layout::BHND, 4, 32, 32},
                      Case{"sdpa", MaskKind::None, Layout::BHND, 4, 32, 32},
                      Case{"manual", MaskKind::Causal, Layout::BHND, 4, 32, 32},
                      Case{"sdpa", MaskKind::Causal, Layout::BHND, 4, 32, 32},
                      Case{"manual", MaskKind::Causal, Layout::BHND, 4, 48, 24},
                      Case{"sdpa", MaskKind::Causal, Layout::BHND, 4, 48, 24},
                      Case{"manual", MaskKind::Padding, Layout::BHND, 4, 32, 64},
                      Case{"sdpa", MaskKind::Padding, Layout::BHND, 4, 32, 64},
                      Case{"manual", MaskKind::None, Layout::BNHD, 2, 32, 32},
                      Case{"sdpa", MaskKind::Padding, Layout::BNHD, 1, 24, 40},
                      // chunked: blocks that divide N, that do not (7), a single block, and every mask
                      Case{"chunked", MaskKind::None, Layout::BHND, 4, 32, 32, 8},
                      Case{"chunked", MaskKind::None, Layout::BHND, 4, 32, 32, 7},
                      Case{"chunked", MaskKind::None, Layout::BHND, 4, 32, 32, 128},
                      Case{"chunked", MaskKind::Causal, Layout::BHND, 4, 32, 32, 8},
                      Case{"chunked", MaskKind::Causal, Layout::BHND, 4, 48, 24, 7},
                      Case{"chunked", MaskKind::Causal, Layout::BHND, 4, 24, 48, 5},
                      Case{"chunked", MaskKind::Padding, Layout::BHND, 4, 32, 64, 8},
                      Case{"chunked", MaskKind::Padding, Layout::BNHD, 1, 24, 40, 16},
                      Case{"chunked", MaskKind::None, Layout::BNHD, 2, 32, 32, 8}),
    case_name);

TEST(Variants, CatalogAndFactoryAgree) {
    for (const auto& info : variant_catalog()) {
        auto v = make_variant(info.name);
        ASSERT_TRUE(v);
        EXPECT_EQ(v->name(), info.name);
    }
    EXPECT_THROW(make_variant("nope"), std::invalid_argument);
}

TEST(Variants, BnhdInputsAreTransposedViews) {
    RunSpec s;
    s.layout = Layout::BNHD;
    s.seq_q = s.seq_k = 16;
    const AttentionInputs in = make_inputs(s);
    EXPECT_EQ(in.q.sizes(), at::IntArrayRef({2, 16, 8, 64}));
    EXPECT_EQ(in.q_view().sizes(), at::IntArrayRef({2, 8, 16, 64}));
    EXPECT_FALSE(in.q_view().is_contiguous());
}

TEST(Variants, SameSeedSameInputs) {
    RunSpec s;
    s.seq_q = s.seq_k = 8;
    EXPECT_TRUE(at::equal(make_inputs(s).q, make_inputs(s).q));
    RunSpec t = s;
    t.seed = 8;
    EXPECT_FALSE(at::equal(make_inputs(s).q, make_inputs(t).q));
}
