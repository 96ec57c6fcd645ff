// The correctness check: every variant passes on real specs, and the comparison catches wrong,
// non-finite and out-of-tolerance results.
#include <gtest/gtest.h>

#include "engine/correctness.h"
#include "engine/device_caps.h"
#include "engine/variants.h"
#include "test_support.h"

using namespace awb;

namespace {

const VariantCheck& find(const CheckReport& r, const std::string& name) {
    for (const auto& v : r.variants)
        if (v.variant == name) return v;
    throw std::runtime_error("no " + name);
}

}  // namespace

TEST(Correctness, AllVariantsPassWithPaddingAndGqa) {
    RunSpec s = test::small_spec();
    s.batch = 2;
    s.heads = 4;
    s.kv_heads = 2;
    s.mask = MaskKind::Padding;
    s.key_lengths = {64, 23};
    s.block_size = 16;
    s.mode = Mode::Forward;  // the check compares gradients anyway
    const CheckReport r = check_variants(s, {"manual", "sdpa", "chunked"});
    EXPECT_TRUE(r.all_passed());
    EXPECT_EQ(r.spec.mode, Mode::Train);
    EXPECT_EQ(r.tolerance, default_tolerance(Dtype::Float32));
    ASSERT_EQ(r.variants.size(), 3u);
    for (const auto& v : r.variants) {
        EXPECT_TRUE(v.failure.empty()) << v.failure;
        ASSERT_EQ(v.tensors.size(), 4u);
        for (const auto& t : v.tensors) {
            EXPECT_TRUE(t.passed) << v.variant << " " << t.name << " error " << t.error;
            EXPECT_GT(t.ref_max_abs, 0);
            EXPECT_GT(t.max_abs_error, 0) << "float32 never equals float64 exactly";
        }
        ASSERT_EQ(v.mask_checks.size(), 2u);
        EXPECT_EQ(v.mask_checks[0].name, "padded keys get no gradient");
        EXPECT_TRUE(v.mask_checks[0].passed) << v.mask_checks[0].detail;
        EXPECT_TRUE(v.mask_checks[1].passed) << v.mask_checks[1].detail;
    }
    EXPECT_NE(find(r, "chunked").mask_checks[1].detail.find("NaN"), std::string::npos);
    // Rows that see no key: 1.13's sdpa (math path) gives NaN like manual; 2.11's CPU flash kernel zeros.
    const std::string& sdpa_rows = find(r, "sdpa").mask_checks[1].detail;
    const bool torch1 = r.environment.torch_version.rfind("1.", 0) == 0;
    EXPECT_NE(sdpa_rows.find(torch1 ? "gives NaN" : "gives zeros"), std::string::npos) << sdpa_rows;
}

TEST(Correctness, SlidingWindowAgreesWithTheReferenceInEveryVariant) {
    // Query i sees keys i - 2 .. i: on 4 x 5 the mask hides what is after the query or 3+ before it.
    RunSpec w = test::small_spec();
    w.seq_q = 4;
    w.seq_k = 5;
    w.mask = MaskKind::Window;
    w.window = 3;
    const at::Tensor hidden = masked_out_positions(w).to(at::kLong);
    const std::vector<int64_t> expected{0, 1, 1, 1, 1,  //
                                        0, 0, 1, 1, 1,  //
                                        0, 0, 0, 1, 1,  //
                                        1, 0, 0, 0, 1};
    EXPECT_TRUE(hidden.flatten().equal(at::tensor(expected, at::kLong)));
    EXPECT_DOUBLE_EQ(visible_pairs(4, 5, true, 3), 1 + 2 + 3 + 3);
    // Every variant against float64, with grouped heads, lengths that are not whole blocks and a window
    // that spans blocks (the chunked variant skips the key blocks wholly before it).
    RunSpec s = test::small_spec();
    s.heads = 4;
    s.kv_heads = 2;
    s.seq_q = s.seq_k = 70;
    s.block_size = 16;
    s.mask = MaskKind::Window;
    s.window = 20;
    const CheckReport r = check_variants(s, {"manual", "sdpa", "chunked"});
    EXPECT_TRUE(r.all_passed());
    for (const auto& v : r.variants)
        for (const auto& t : v.tensors) EXPECT_TRUE(t.passed) << v.variant << " " << t.name << " error " << t.error;
    // A window as long as the sequence is the causal mask.
    s.window = 70;
    RunSpec c = s;
    c.mask = MaskKind::Causal;
    c.window = 0;
    EXPECT_TRUE(masked_out_positions(s).equal(masked_out_positions(c)));
    EXPECT_DOUBLE_EQ(attention_flops(s), attention_flops(c));
}

TEST(Correctness, ToleranceBelowFloat32RoundingFails) {
    RunSpec s = test::small_spec();
    s.mask = MaskKind::Causal;
    const CheckReport r = check_variants(s, {"chunked"}, 1e-12);
    EXPECT_FALSE(r.all_passed());
    EXPECT_EQ(r.tolerance, 1e-12);
    EXPECT_FALSE(r.variants[0].tensors[0].passed);
    EXPECT_TRUE(r.variants[0].tensors[0].finite);
}

TEST(Correctness, Float64VariantsAgreeToRounding) {
    RunSpec s = test::small_spec();
    s.dtype = Dtype::Float64;
    const CheckReport r = check_variants(s, {"sdpa", "chunked"});
    EXPECT_TRUE(r.all_passed());
    for (const auto& v : r.variants)
        for (const auto& t : v.tensors) EXPECT_LT(t.error, 1e-12) << v.variant << " " << t.name;
}

TEST(Correctness, BFloat16UsesItsOwnTolerance) {
    RunSpec s = test::small_spec();
    s.dtype = Dtype::BFloat16;
    const CheckReport r = check_variants(s, {"manual", "chunked"});
    EXPECT_EQ(r.tolerance, default_tolerance(Dtype::BFloat16));
    EXPECT_TRUE(r.all_passed());
    // bfloat16 has 8 bits of mantissa: errors are far above float32's tolerance.
    EXPECT_GT(find(r, "manual").tensors[0].error, default_tolerance(Dtype::Float32));
}

// The backward is seeded with unit-scale gradients: with out.square().mean() every gradient of the
// article's shape is ~1e-7, below float16's normal range, and the check measured subnormal rounding
// (manual "out of tolerance" against its own float64 formula).
TEST(Correctness, Float16GradientsStayInTheNormalRange) {
    if (!query_device_caps().cpu_float16) GTEST_SKIP() << "LibTorch 1.13 has no float16 matmul on the CPU";
    RunSpec s = article_spec(DeviceKind::CPU);
    s.dtype = Dtype::Float16;
    s.heads = s.kv_heads = 2;
    const CheckReport r = check_variants(s, {"manual", "chunked"});
    EXPECT_TRUE(r.all_passed());
    for (const auto& v : r.variants)
        for (const auto& t : v.tensors) {
            EXPECT_LT(t.error, default_tolerance(Dtype::Float16)) << v.variant << " " << t.name;
            EXPECT_GT(t.ref_max_abs, 1e-2) << t.name << ": gradients far from float16's subnormals";
        }
}

TEST(Correctness, RefusesUnknownVariantsAndBadSpecs) {
    RunSpec s = test::small_spec();
    s.seq_k = 0;
    try {
        check_variants(s, {"manual", "flash9"});
        FAIL() << "expected InvalidInput";
    } catch (const InvalidInput& e) {
        std::string fields;
        for (const auto& p : e.problems()) fields += p.field + " ";
        EXPECT_NE(fields.find("seq_k"), std::string::npos) << fields;
        EXPECT_NE(fields.find("variant"), std::string::npos) << fields;
    }
    EXPECT_THROW(check_variants(test::small_spec(), {}), InvalidInput);
}
