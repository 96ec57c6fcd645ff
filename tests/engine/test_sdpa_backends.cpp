// What scaled_dot_product_attention really runs on the CPU under each LibTorch build, measured from the
// profiled ops and the allocator's [memory] events, and the SDPA backend choice on LibTorch 2.x:
//   - 1.13 (Debian): aten::_scaled_dot_product_attention, the math path, materialises [B, H, Nq, Nk];
//   - 2.x (the wheel): aten::_scaled_dot_product_flash_attention_for_cpu, no [B, H, Nq, Nk] buffer in
//     the forward or the backward; backend "math" brings the materialised scores back;
//   - a backend that has no kernel for the spec is bad input on the sdpa_backend field, with LibTorch's
//     own reasons in the message.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/advisor.h"
#include "engine/compat.h"
#include "engine/device_caps.h"
#include "engine/profiler_session.h"
#include "engine/variants.h"
#include "test_support.h"

using namespace awb;

namespace {

bool torch2() { return query_device_caps().sdpa_backend_selectable; }

RunSpec sdpa_spec(SdpaBackend backend = SdpaBackend::Auto) {
    RunSpec s = test::small_spec();
    s.variant = "sdpa";
    s.seq_q = s.seq_k = 256;
    s.head_dim = 32;
    s.sdpa_backend = backend;
    return s;
}

bool has_op(const Trace& t, const std::string& name) {
    return std::any_of(t.events().begin(), t.events().end(), [&](const TraceEvent& e) { return e.name == name; });
}

// Allocations of exactly one [B, H, Nq, Nk] float32 buffer.
int score_allocations(const ProfileResult& r) {
    const int64_t bytes = r.spec.batch * r.spec.heads * r.spec.seq_q * r.spec.seq_k * element_size(r.spec.dtype);
    return int(std::count_if(r.trace.memory().begin(), r.trace.memory().end(),
                             [&](const MemoryEvent& m) { return m.bytes == bytes; }));
}

}  // namespace

TEST(SdpaOnThisLibTorch, AutoRunsWhatTheReadmeSays) {
    const ProfileResult r = profile_run(sdpa_spec(), ProfileOptions{});
    std::printf("torch %s: sdpa ops %s%s, %d score-sized allocations over 3 recorded steps\n",
                r.environment.torch_version.c_str(),
                has_op(r.trace, "aten::_scaled_dot_product_flash_attention_for_cpu") ? "flash_for_cpu " : "",
                has_op(r.trace, "aten::_scaled_dot_product_attention") ? "_scaled_dot_product_attention (math)" : "",
                score_allocations(r));
    if (torch2()) {
        EXPECT_TRUE(has_op(r.trace, "aten::scaled_dot_product_attention"));
        EXPECT_TRUE(has_op(r.trace, "aten::_scaled_dot_product_flash_attention_for_cpu"));
        EXPECT_TRUE(has_op(r.trace, "aten::_scaled_dot_product_flash_attention_for_cpu_backward"));
        EXPECT_FALSE(has_op(r.trace, "aten::_softmax"));
        EXPECT_EQ(score_allocations(r), 0) << "the fused CPU kernel holds no [B, H, N, N] buffer";
    } else {
        EXPECT_TRUE(has_op(r.trace, "aten::_scaled_dot_product_attention"));
        EXPECT_TRUE(has_op(r.trace, "aten::_softmax"));
        EXPECT_GE(score_allocations(r), 3 * 4) << "1.13's math path allocates the scores 4 times a step";
    }
}

TEST(SdpaOnThisLibTorch, MathBackendMaterialisesTheScores) {
    if (!torch2())
        GTEST_SKIP() << "LibTorch 1.13 has no backend selection (RunSpec.SdpaBackendRules checks the refusal)";
    const ProfileResult math = profile_run(sdpa_spec(SdpaBackend::Math), ProfileOptions{});
    EXPECT_TRUE(has_op(math.trace, "aten::_scaled_dot_product_attention_math"));
    EXPECT_FALSE(has_op(math.trace, "aten::_scaled_dot_product_flash_attention_for_cpu"));
    EXPECT_GE(score_allocations(math), 3 * 3);
    const auto found = advise({&math});
    auto score = std::find_if(found.begin(), found.end(), [](const Finding& f) { return f.rule == "score-matrix"; });
    ASSERT_NE(score, found.end()) << format_findings(found);
    EXPECT_NE(score->action.find("The math backend was forced"), std::string::npos) << score->action;
    const ProfileResult flash = profile_run(sdpa_spec(SdpaBackend::Flash), ProfileOptions{});
    EXPECT_TRUE(has_op(flash.trace, "aten::_scaled_dot_product_flash_attention_for_cpu"));
    EXPECT_EQ(score_allocations(flash), 0);
}

// The engine refuses "efficient" on the CPU before running (validation); the variant itself, asked
// anyway, turns LibTorch's "No available kernel" into bad input that carries LibTorch's reasons.
TEST(SdpaOnThisLibTorch, BackendWithoutAKernelIsBadInputWithLibTorchsReasons) {
    if (!torch2()) GTEST_SKIP() << "LibTorch 1.13 has no backend selection";
    const RunSpec spec = sdpa_spec(SdpaBackend::Efficient);
    try {
        profile_run(spec, ProfileOptions{});
        ADD_FAILURE() << "validation should refuse efficient on cpu";
    } catch (const InvalidInput& e) {
        EXPECT_NE(std::string(e.what()).find("sdpa_backend: 'efficient' is not available on cpu"), std::string::npos)
            << e.what();
    }
    auto variant = make_variant("sdpa");
    variant->prepare(spec);
    const AttentionInputs in = make_inputs(spec);
    try {
        variant->forward(in.q_view(), in.k_view(), in.v_view());
        ADD_FAILURE() << "no CPU kernel should run with only the efficient backend enabled";
    } catch (const InvalidInput& e) {
        ASSERT_EQ(e.problems().size(), 1u);
        EXPECT_EQ(e.problems()[0].field, "sdpa_backend");
        const std::string& m = e.problems()[0].message;
        EXPECT_NE(m.find("'efficient' cannot run 1x2x256x32 float32 on cpu"), std::string::npos) << m;
        EXPECT_NE(m.find("LibTorch says:"), std::string::npos) << m;
        EXPECT_NE(m.find("No viable backend for scaled_dot_product_attention"), std::string::npos)
            << "LibTorch's own reason is kept: " << m;
    }
    // The previous backend flags are back: auto runs the fused kernel again.
    variant = make_variant("sdpa");
    variant->prepare(sdpa_spec());
    EXPECT_NO_THROW(variant->forward(in.q_view(), in.k_view(), in.v_view()));
}

// LibTorch's warnings raised while a restricted backend runs are held, then handed on: none is lost.
TEST(SdpaOnThisLibTorch, WarningsAreHeldAndHandedOn) {
    compat::WarningCollector outer;
    {
        compat::WarningCollector inner;
        TORCH_WARN("first reason");
        TORCH_WARN("second reason");
        EXPECT_EQ(inner.messages(), (std::vector<std::string>{"first reason", "second reason"}));
        EXPECT_TRUE(outer.messages().empty());
        inner.replay();
        EXPECT_TRUE(inner.messages().empty());
    }
    EXPECT_EQ(outer.messages(), (std::vector<std::string>{"first reason", "second reason"}));
    TORCH_WARN("after the inner one");
    EXPECT_EQ(outer.messages().size(), 3u) << "the inner collector put the outer handler back";
}
