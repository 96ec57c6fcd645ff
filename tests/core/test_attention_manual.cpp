// Attention written out as real models write it, in real PyTorch traces (tests/fixtures/traces/manual,
// made by tests/reference/make_manual_attention_fixtures.py; its README says how): CLIP's folded-head
// bmm, TimeSformer's matmul/mul/softmax/dropout/matmul, GPT-2's and Bloom's baddbmm with causal
// where / masked_fill, einsum, softmax in float32 cast back to bfloat16, log_softmax, Hugging Face's
// repeat_kv; forward and backward; and an MLP with bmm + softmax that is not attention. Then the
// advisor's finding on the scores those calls materialise.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/advisor.h"
#include "analysis/attention.h"
#include "io/trace_import.h"
#include "trace_builders.h"
#include "test_support.h"

using namespace awb;

namespace {

std::string manual_fixture(const std::string& name) { return test::trace_fixture("manual/" + name); }

struct Found {
    Trace trace;
    std::vector<AttentionInstance> forward, backward;
};

Found found_in(const std::string& name) {
    Found f{import_chrome_trace(manual_fixture(name)).trace, {}, {}};
    for (const AttentionInstance& a : attention_instances(f.trace)) (a.backward ? f.backward : f.forward).push_back(a);
    return f;
}

// What every manual call of a fixture must say: its shape, how its heads were read, its mask, its
// FLOPs from the shape (2 x pairs x (D + Dv) x B x H forward, every pair counted: no causal flag is
// claimed from a mask tensor; FlashAttention's 2.5x backward, flop_counter's 2x without the recompute).
struct Expect {
    AttentionShape shape;
    bool folded = false;
    int causal = 0;
    std::string dtype = "float";
    std::string op;  // the forward call's first product
};

bool is_product(const std::string& n) {
    return n == "aten::matmul" || n == "aten::bmm" || n == "aten::baddbmm" || n == "aten::einsum" || n == "aten::mm";
}

bool is_softmax(const std::string& n) { return n == "aten::softmax" || n == "aten::log_softmax"; }

// The forward call spans its first product's start to its last product's end, with the softmax between.
void expect_span(const Trace& trace, const AttentionInstance& a) {
    const auto& events = trace.events();
    const TraceEvent& first = events[size_t(a.event)];
    EXPECT_EQ(first.start_ns, a.start_ns);
    EXPECT_EQ(first.name.str(), a.op);
    int softmaxes = 0, last_products = 0;
    for (const TraceEvent& e : events) {
        if (e.thread != a.thread || e.kind != EventKind::CpuOp || e.start_ns < first.end_ns || e.end_ns > a.end_ns)
            continue;
        softmaxes += is_softmax(e.name.str());
        last_products += is_product(e.name.str()) && e.end_ns == a.end_ns;
    }
    EXPECT_EQ(softmaxes, 1) << a.op;
    EXPECT_EQ(last_products, 1) << a.op;
    EXPECT_GT(a.cpu_ns(), 0);
}

void expect_calls(const Found& f, const Expect& x, size_t forward, size_t backward) {
    ASSERT_EQ(f.forward.size(), forward);
    ASSERT_EQ(f.backward.size(), backward);
    const AttentionShape& s = x.shape;
    const double pairs = double(s.batch * s.heads_q * s.seq_q * s.seq_k);
    const double flops = 2.0 * pairs * double(s.head_dim + s.head_dim_v);
    for (const auto* calls : {&f.forward, &f.backward})
        for (const AttentionInstance& a : *calls) {
            SCOPED_TRACE(a.op + (a.backward ? " (backward)" : ""));
            EXPECT_EQ(a.backend, AttentionBackend::Manual);
            EXPECT_EQ(a.library, "manual");
            EXPECT_EQ(a.shape, s);
            EXPECT_EQ(a.heads_folded, x.folded);
            EXPECT_EQ(a.causal, x.causal);
            EXPECT_EQ(a.dtype, x.dtype);
            EXPECT_DOUBLE_EQ(a.pairs, pairs);
            EXPECT_DOUBLE_EQ(a.flops, a.backward ? 2.5 * flops : flops);
            EXPECT_EQ(a.device_ns, 0);  // CPU traces
            EXPECT_GT(a.cpu_ns(), 0);
            if (a.backward) {
                EXPECT_DOUBLE_EQ(a.flops_backward_no_recompute, 2.0 * flops);
                EXPECT_TRUE(a.op.starts_with("autograd::engine::evaluate_function: ")) << a.op;
            } else {
                EXPECT_EQ(a.op, x.op);
                expect_span(f.trace, a);
            }
        }
}

}  // namespace

TEST(ManualAttention, ClipFoldedHeadsToldByTheViewsAroundForwardAndBackward) {
    // [B*H, N, D] = [8, 17, 16] bmm -> softmax -> dropout -> bmm, heads unfolded by the [2, 4, 17, 16]
    // views before the first bmm; with_stack: Python functions wrap every op.
    const Found f = found_in("clip_vision_train_stack.json.gz");
    expect_calls(f, {{2, 4, 4, 17, 17, 16, 16}, false, 0, "float", "aten::bmm"}, 4, 4);  // 2 layers x 2 steps
    EXPECT_DOUBLE_EQ(f.forward[0].flops, 147968);  // FlopCounterMode's count of the two bmm (README)
    for (const AttentionInstance& a : f.backward) EXPECT_EQ(a.op, "autograd::engine::evaluate_function: BmmBackward0");
}

TEST(ManualAttention, ClipTextCausalMaskAddedToAFourDimViewOfFoldedScores) {
    const Found f = found_in("clip_text_causal_forward.json.gz");
    expect_calls(f, {{2, 4, 4, 16, 16, 16, 16}, false, -1, "float", "aten::bmm"}, 4, 0);
    EXPECT_NE(format_attention(f.forward).find("-"), std::string::npos);
}

TEST(ManualAttention, FoldedHeadsThatNothingTellsStayFolded) {
    // OWLv2's shape class: [16, N, 64] made as such; B x H = 16, one "head" per batch entry.
    const Found f = found_in("folded_bmm_forward.json.gz");
    expect_calls(f, {{16, 1, 1, 40, 40, 64, 64}, true, 0, "float", "aten::bmm"}, 2, 0);
    EXPECT_DOUBLE_EQ(f.forward[0].flops, 6553600);  // FlopCounterMode's (README): the same as B, H told
    const std::string table = format_attention(f.forward);
    EXPECT_NE(table.find("BxH 16"), std::string::npos) << table;
}

TEST(ManualAttention, TimesformerMatmulMulSoftmaxDropoutMatmul) {
    const Found f = found_in("timesformer_train.json.gz");
    expect_calls(f, {{2, 4, 4, 33, 33, 16, 16}, false, 0, "float", "aten::matmul"}, 2, 2);
    EXPECT_DOUBLE_EQ(f.forward[0].flops, 557568);
    EXPECT_DOUBLE_EQ(f.backward[0].flops_backward_no_recompute, 1115136);  // FlopCounterMode's backward
}

TEST(ManualAttention, Gpt2BaddbmmWithACausalWhere) {
    // baddbmm(empty, q, k^T, beta=0, alpha) on [8, 24, 16]: scores from its inputs 1 and 2, reshaped to
    // [2, 4, 24, 24] before torch.where with the [1, 1, 24, 24] causal bias.
    const Found f = found_in("gpt2_baddbmm_train.json.gz");
    expect_calls(f, {{2, 4, 4, 24, 24, 16, 16}, false, -1, "float", "aten::baddbmm"}, 2, 2);
}

TEST(ManualAttention, BloomAlibiBaddbmmMaskedFillAndFloat32SoftmaxCastBackToBfloat16) {
    const Found f = found_in("bloom_bf16_train.json.gz");
    expect_calls(f, {{2, 4, 4, 20, 20, 16, 16}, false, -1, "c10::BFloat16", "aten::baddbmm"}, 2, 2);
    EXPECT_DOUBLE_EQ(f.forward[0].bytes, 2.0 * 4 * (2 * 4 * 20 * 16));  // bf16 Q, K, V, O
}

TEST(ManualAttention, EinsumThroughTheBmmItRuns) {
    const Found f = found_in("einsum_train.json.gz");
    expect_calls(f, {{2, 4, 4, 24, 24, 16, 16}, false, 0, "float", "aten::einsum"}, 2, 2);
}

TEST(ManualAttention, LlamaRepeatKvGivesTheKeyValueHeadsForwardAndBackward) {
    // 8 query heads over 2 KV heads repeated by expand + reshape; softmax(dtype=float32).to(bfloat16);
    // the causal mask's slice added. The backward takes Hkv, the mask and the dtype from its forward.
    const Found f = found_in("llama_gqa_bf16_train_stack.json.gz");
    expect_calls(f, {{2, 8, 2, 32, 32, 8, 8}, false, -1, "c10::BFloat16", "aten::matmul"}, 2, 2);
    EXPECT_DOUBLE_EQ(f.forward[0].bytes,
                     2.0 * (2 * 8 * 32 * 8 * 2 + 2 * 2 * 32 * 8 * 2));  // Q, O at 8 heads; K, V at 2
}

TEST(ManualAttention, LogSoftmaxForwardAndBackward) {
    const Found f = found_in("log_softmax_train.json.gz");
    expect_calls(f, {{2, 2, 2, 16, 16, 16, 16}, false, 0, "float", "aten::matmul"}, 2, 2);
}

TEST(ManualAttention, AnMlpWithBmmAndSoftmaxIsNotAttention) {
    // Softmax over classes followed by pooling with the transposed probabilities, and a softmax over
    // dim 1: no product fits the softmax's shape on both sides.
    const Found f = found_in("mlp_softmax_forward.json.gz");
    EXPECT_TRUE(f.forward.empty());
    EXPECT_TRUE(f.backward.empty());
}

TEST(ManualAttention, Torch113TracesHoldNoShapesSoNothingIsMatched) {
    const Found f = found_in("clip_vision_train_torch113.json.gz");
    ASSERT_FALSE(f.trace.events().empty());
    EXPECT_TRUE(std::none_of(f.trace.events().begin(), f.trace.events().end(),
                             [](const TraceEvent& e) { return !e.shapes().empty(); }));
    EXPECT_TRUE(f.forward.empty());
    EXPECT_TRUE(f.backward.empty());
}

TEST(ManualAttention, BackwardWithoutItsForwardReadsTheGradientsShape) {
    // A trace that starts after the forward: the backward's folded [8, 17, 17] gradients say B x H only.
    const Found all = found_in("clip_vision_train_stack.json.gz");
    std::vector<TraceEvent> events;
    ASSERT_EQ(all.backward.size(), 4u);  // two layers in each of two steps: keep the first step's
    const int64_t from = all.backward[0].start_ns, to = all.backward[1].end_ns;
    for (const TraceEvent& e : all.trace.events())
        if (e.start_ns >= from && e.end_ns <= to) {
            TraceEvent copy = e;
            copy.parent = -1;
            events.push_back(copy);
        }
    const auto calls = attention_instances(Trace::build(std::move(events), {}, {}));
    ASSERT_EQ(calls.size(), 2u);
    for (const AttentionInstance& a : calls) {
        EXPECT_TRUE(a.backward);
        EXPECT_TRUE(a.heads_folded);
        EXPECT_EQ(a.shape, (AttentionShape{8, 1, 1, 17, 17, 16, 16}));
        EXPECT_DOUBLE_EQ(a.flops, 2.5 * 2.0 * 8 * 17 * 17 * 32);  // the same FLOPs as with B and H told
    }
}

// ---- the advisor on an imported trace ----

namespace {

const Finding* finding(const std::vector<Finding>& found, const std::string& rule) {
    const auto it = std::find_if(found.begin(), found.end(), [&](const Finding& f) { return f.rule == rule; });
    return it == found.end() ? nullptr : &*it;
}

ProfileResult imported(const std::string& name) {
    ProfileResult run;
    run.trace = import_chrome_trace(manual_fixture(name)).trace;
    run.spec_known = false;
    return run;
}

}  // namespace

TEST(ManualAttention, AdvisorSaysTheScoresAreMaterialisedInAnImportedTrace) {
    const ProfileResult run = imported("timesformer_train.json.gz");
    const auto found = advise({&run});
    const Finding* f = finding(found, "materialised-scores");
    ASSERT_TRUE(f) << format_findings(found);
    EXPECT_FALSE(finding(found, "score-matrix"));  // that one needs our own run's spec
    EXPECT_NE(f->title.find("[B, H, Nq, Nk] = [2, 4, 33, 33] float scores (34.0 KiB per call) in 2 forward call(s)"),
              std::string::npos)
        << f->title;
    EXPECT_NE(f->title.find("of the CPU op time"), std::string::npos) << f->title;  // a CPU trace
    ASSERT_EQ(f->evidence.size(), 3u) << format_findings(found);  // the shape's calls, all calls' time, the ops between
    EXPECT_NE(f->evidence[0].find("aten::matmul: 2 forward call(s)"), std::string::npos) << f->evidence[0];
    EXPECT_NE(f->evidence[2].find("aten::softmax"), std::string::npos) << f->evidence[2];
    EXPECT_NE(f->evidence[2].find("aten::dropout"), std::string::npos) << f->evidence[2];
    EXPECT_NE(f->action.find("scaled_dot_product_attention"), std::string::npos);
    EXPECT_GT(f->weight, 0.0);
    EXPECT_LT(f->weight, 1.0);
    // Folded heads: the scores' shape says so.
    const ProfileResult folded = imported("folded_bmm_forward.json.gz");
    const std::vector<Finding> folded_found = advise({&folded});  // kept: g points into it
    const Finding* g = finding(folded_found, "materialised-scores");
    ASSERT_TRUE(g);
    EXPECT_NE(g->title.find("[BxH, Nq, Nk] = [16, 40, 40] float scores (100.0 KiB per call)"), std::string::npos)
        << g->title;
    // Nothing to say without manual attention, nor for our own runs (the score-matrix rule's).
    const ProfileResult mlp = imported("mlp_softmax_forward.json.gz");
    EXPECT_FALSE(finding(advise({&mlp}), "materialised-scores"));
    ProfileResult ours = run;
    ours.spec_known = true;
    EXPECT_FALSE(finding(advise({&ours}), "materialised-scores"));
}

namespace {

TraceEvent half_op(const std::string& name, int64_t start_us, int64_t end_us, int64_t id,
                   std::vector<std::vector<int64_t>> shapes = {}) {
    const bool inputs = !shapes.empty();
    return test_traces::cpu_op(
        name, start_us, end_us, id,
        inputs ? EventInputs{std::move(shapes), {"c10::Half", "c10::Half"}, {}, {}, {}} : EventInputs{});
}

using test_traces::gpu_kernel;

}  // namespace

TEST(ManualAttention, AdvisorSharesOfTheDeviceTimeBetweenTheMatmuls) {
    // OWLv2's vision tower in miniature: bmm -> softmax -> bmm on [16, 5185, 64] fp16, heads folded;
    // kernels 100 + 460 + 100 us, and 340 us of other work: the softmax is 46% of the device time.
    const int64_t bh = 16, n = 5185, d = 64;
    std::vector<TraceEvent> events{
        half_op("aten::bmm", 0, 10, 1, {{bh, n, d}, {bh, d, n}}),
        half_op("aten::softmax", 10, 20, 2, {{bh, n, n}, {}, {}}),
        half_op("aten::_softmax", 11, 19, 3, {{bh, n, n}, {}, {}}),
        half_op("aten::bmm", 20, 30, 4, {{bh, n, n}, {bh, n, d}}),
        half_op("aten::linear", 40, 50, 5, {{1, n, 768}, {768, 768}}),
        gpu_kernel("ampere_fp16_s16816gemm", 100, 200, 1),
        gpu_kernel("cunn_SoftMaxForward", 200, 660, 3),
        gpu_kernel("ampere_fp16_s16816gemm", 660, 760, 4),
        gpu_kernel("ampere_fp16_s16816gemm", 800, 1140, 5),
    };
    ProfileResult run;
    run.trace = Trace::build(std::move(events), {}, {});
    run.spec_known = false;
    const auto found = advise({&run});
    const Finding* f = finding(found, "materialised-scores");
    ASSERT_TRUE(f) << format_findings(found);
    EXPECT_DOUBLE_EQ(f->weight, 0.46);
    EXPECT_NE(f->title.find("[BxH, Nq, Nk] = [16, 5185, 5185] c10::Half scores (820.4 MiB per call)"),
              std::string::npos)
        << f->title;
    EXPECT_NE(f->title.find("46.0% of the device time"), std::string::npos) << f->title;
    ASSERT_EQ(f->evidence.size(), 3u) << format_findings(found);
    EXPECT_EQ(
        f->evidence[1],
        "the 1 forward call(s): 660.0 us (66.0% of the device time), the matmuls and layout ops 200.0 us, the ops "
        "between 460.0 us");
    EXPECT_NE(f->evidence[2].find("46.0% of the trace's device time): aten::softmax 460.0 us"), std::string::npos)
        << f->evidence[2];
}
TEST(ManualAttention, AnInnerSoftmaxEndingAMicrosecondLateIsStillTheSoftmaxs) {
    // Whole-microsecond clocks (LibTorch's own traces) can end _softmax 1 us after its softmax: it is
    // then the softmax's sibling, not its child, and the walk to P V passes it.
    std::vector<TraceEvent> events{
        half_op("aten::matmul", 0, 10, 1, {{1, 2, 64, 16}, {1, 2, 16, 64}}),
        half_op("aten::softmax", 12, 20, 2, {{1, 2, 64, 64}, {}, {}}),
        half_op("aten::_softmax", 13, 21, 3, {{1, 2, 64, 64}, {}, {}}),
        half_op("aten::matmul", 22, 30, 4, {{1, 2, 64, 64}, {1, 2, 64, 16}}),
    };
    const auto calls = attention_instances(Trace::build(std::move(events), {}, {}));
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].shape, (AttentionShape{1, 2, 2, 64, 64, 16, 16}));
    EXPECT_EQ(calls[0].end_ns, 30'000);
}
