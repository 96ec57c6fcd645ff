// Every validation rule of RunSpec and ProfileOptions, each on its own, plus names and estimates.
#include <gtest/gtest.h>

#include <algorithm>

#include "model/profile_options.h"
#include "model/run_spec.h"

using namespace awb;

namespace {

DeviceCaps cpu_caps() {
    DeviceCaps c;
    c.cpu_available_bytes = int64_t(8) << 30;
    return c;
}

DeviceCaps cuda_caps() {
    DeviceCaps c = cpu_caps();
    c.torch_version = "2.11.0";
    c.cuda_built = true;
    c.cuda_available = true;
    c.cuda_device_count = 2;
    c.cuda_bf16 = true;
    c.sdpa_backend_selectable = true;
    c.cpu_sdpa_backends = {"math", "flash"};
    c.cuda_sdpa_backends = {"math", "flash", "efficient", "cudnn"};
    c.cuda_free_bytes = {int64_t(80) << 30, int64_t(80) << 30};
    return c;
}

bool has_problem(const std::vector<SpecProblem>& ps, const std::string& field, const std::string& fragment) {
    return std::any_of(ps.begin(), ps.end(), [&](const SpecProblem& p) {
        return p.field == field && p.message.find(fragment) != std::string::npos;
    });
}

}  // namespace

TEST(RunSpec, ArticleDefaultsAreValid) {
    EXPECT_TRUE(validate(RunSpec{}, cpu_caps()).empty());
    EXPECT_TRUE(validate(article_spec(DeviceKind::CUDA), cuda_caps()).empty());
    EXPECT_EQ(article_spec(DeviceKind::CUDA).dtype, Dtype::Float16);
    EXPECT_EQ(RunSpec{}.dtype, Dtype::Float32);
    EXPECT_EQ(shape_string(RunSpec{}), "2x8x512x64");
}

TEST(RunSpec, UnknownVariantNamesTheKnownOnes) {
    RunSpec s;
    s.variant = "flashy";
    auto ps = validate(s, cpu_caps());
    ASSERT_EQ(ps.size(), 1u);
    EXPECT_TRUE(has_problem(ps, "variant", "'flashy'"));
    EXPECT_TRUE(has_problem(ps, "variant", "manual, sdpa"));
}

TEST(RunSpec, EverySizeMustBePositiveAndAllProblemsComeAtOnce) {
    RunSpec s;
    s.batch = 0;
    s.heads = -1;
    s.kv_heads = 0;
    s.seq_q = 0;
    s.seq_k = -5;
    s.head_dim = 0;
    auto ps = validate(s, cpu_caps());
    for (const char* f : {"batch", "heads", "kv_heads", "seq_q", "seq_k", "head_dim"})
        EXPECT_TRUE(has_problem(ps, f, "positive")) << f;
    EXPECT_TRUE(has_problem(ps, "seq_k", "-5"));
}

TEST(RunSpec, HeadsMustBeAMultipleOfKvHeads) {
    RunSpec s;
    s.heads = 8;
    s.kv_heads = 3;
    EXPECT_TRUE(has_problem(validate(s, cpu_caps()), "kv_heads", "does not divide heads = 8"));
    s.kv_heads = 2;
    EXPECT_TRUE(validate(s, cpu_caps()).empty());
}

TEST(RunSpec, CudaRequestedButAbsent) {
    RunSpec s;
    s.device = *parse_device("cuda");
    DeviceCaps debian = cpu_caps();  // Debian's 1.13: no CUDA in the build at all
    debian.torch_version = "1.13.1";
    auto ps = validate(s, debian);
    ASSERT_EQ(ps.size(), 1u);
    EXPECT_TRUE(has_problem(ps, "device", "LibTorch 1.13.1 was built without CUDA"));
    EXPECT_TRUE(has_problem(ps, "device", "scripts/build.sh --torch2"));
    DeviceCaps wheel_without_gpu = cuda_caps();  // the wheel's 2.11 on a machine without a GPU
    wheel_without_gpu.cuda_available = false;
    wheel_without_gpu.cuda_device_count = 0;
    wheel_without_gpu.cuda_free_bytes.clear();
    ps = validate(s, wheel_without_gpu);
    ASSERT_EQ(ps.size(), 1u);
    EXPECT_TRUE(has_problem(ps, "device", "no CUDA GPU is visible (LibTorch 2.11.0 has CUDA"));
}

TEST(RunSpec, CudaIndexOutOfRange) {
    RunSpec s = article_spec(DeviceKind::CUDA);
    s.device = *parse_device("cuda:5");
    EXPECT_TRUE(has_problem(validate(s, cuda_caps()), "device", "2 CUDA device(s)"));
    s.device = *parse_device("cuda:1");
    EXPECT_TRUE(validate(s, cuda_caps()).empty());
}

TEST(RunSpec, DtypeSupportPerDevice) {
    RunSpec s;
    s.dtype = Dtype::Float16;
    EXPECT_TRUE(has_problem(validate(s, cpu_caps()), "dtype", "float16 is not supported on cpu"));
    DeviceCaps torch2 = cpu_caps();
    torch2.cpu_float16 = true;
    EXPECT_TRUE(validate(s, torch2).empty());
    s.dtype = Dtype::BFloat16;
    EXPECT_TRUE(validate(s, cpu_caps()).empty());
    RunSpec g = article_spec(DeviceKind::CUDA);
    g.dtype = Dtype::BFloat16;
    DeviceCaps old_gpu = cuda_caps();
    old_gpu.cuda_bf16 = false;
    EXPECT_TRUE(has_problem(validate(g, old_gpu), "dtype", "bfloat16 is not supported by this GPU"));
}

TEST(RunSpec, PaddingNeedsOneValidLengthPerBatchEntry) {
    RunSpec s;
    s.mask = MaskKind::Padding;
    EXPECT_TRUE(has_problem(validate(s, cpu_caps()), "key_lengths", "got 0 for batch = 2"));
    s.key_lengths = {512, 0};
    EXPECT_TRUE(has_problem(validate(s, cpu_caps()), "key_lengths", "entry 1 = 0"));
    s.key_lengths = {513, 10};
    EXPECT_TRUE(has_problem(validate(s, cpu_caps()), "key_lengths", "entry 0 = 513"));
    s.key_lengths = {512, 10};
    EXPECT_TRUE(validate(s, cpu_caps()).empty());
    s.mask = MaskKind::Causal;
    EXPECT_TRUE(has_problem(validate(s, cpu_caps()), "key_lengths", "only apply to mask padding"));
}

TEST(RunSpec, ThreadsMustNotBeNegative) {
    RunSpec s;
    s.threads = -1;
    EXPECT_TRUE(has_problem(validate(s, cpu_caps()), "threads", ">= 0"));
}

TEST(RunSpec, SdpaBackendRules) {
    RunSpec s;
    s.sdpa_backend = SdpaBackend::Flash;
    EXPECT_TRUE(has_problem(validate(s, cpu_caps()), "sdpa_backend", "only applies to variant sdpa"));
    s.variant = "sdpa";
    EXPECT_TRUE(
        has_problem(validate(s, cpu_caps()), "sdpa_backend", "has no backend selection (it came with LibTorch 2.0)"));
    // LibTorch 2.x: the CPU has math and flash, CUDA all four; each device is judged by its own list.
    const DeviceCaps caps = cuda_caps();
    EXPECT_TRUE(validate(s, caps).empty());
    for (SdpaBackend cpu_less : {SdpaBackend::Efficient, SdpaBackend::CuDNN}) {
        s.sdpa_backend = cpu_less;
        EXPECT_TRUE(has_problem(validate(s, caps), "sdpa_backend", "is not available on cpu with LibTorch 2.11.0"));
        EXPECT_TRUE(has_problem(validate(s, caps), "sdpa_backend", "(available: auto, math, flash)"));
    }
    RunSpec g = with_variant(article_spec(DeviceKind::CUDA), "sdpa");
    for (SdpaBackend b : {SdpaBackend::Math, SdpaBackend::Flash, SdpaBackend::Efficient, SdpaBackend::CuDNN}) {
        g.sdpa_backend = b;
        EXPECT_TRUE(validate(g, caps).empty()) << to_string(b);
    }
    s.sdpa_backend = SdpaBackend::Math;
    EXPECT_TRUE(validate(s, caps).empty());
}

TEST(RunSpec, SpecLargerThanFreeMemoryIsRefused) {
    RunSpec s;
    s.seq_q = s.seq_k = 1 << 17;  // scores alone: 2*8*2^34*4 bytes = 1 TiB
    auto ps = validate(s, cpu_caps());
    EXPECT_TRUE(has_problem(ps, "memory", "exceeds the 8.00 GiB available on cpu"));
    DeviceCaps unknown = cpu_caps();
    unknown.cpu_available_bytes = -1;
    EXPECT_TRUE(validate(s, unknown).empty()) << "no refusal when free memory is unknown";
}

TEST(RunSpec, EstimateGrowsQuadraticallyInSequenceLength) {
    RunSpec s;
    s.seq_q = s.seq_k = 4096;
    const double a = double(estimate_peak_bytes(s));
    s.seq_q = s.seq_k = 8192;
    const double b = double(estimate_peak_bytes(s));
    EXPECT_GT(b / a, 3.5);
    EXPECT_LT(b / a, 4.01);
    s.seq_q = s.seq_k = int64_t(1) << 40;  // absurd: saturates, no overflow
    EXPECT_GT(estimate_peak_bytes(s), int64_t(1) << 62);
}

// On LibTorch 2.x sdpa runs a fused kernel (CPU flash; CUDA flash/efficient/cuDNN) whose memory is
// linear in N: a long sequence that manual cannot fit is not refused for sdpa, unless math is forced.
TEST(RunSpec, SdpaEstimateFollowsWhatTheLibTorchRuns) {
    RunSpec s;
    s.variant = "sdpa";
    s.seq_q = s.seq_k = 65536;  // manual's scores: 2*8*2^32*4 bytes = 128 GiB each
    const DeviceCaps torch2 = cuda_caps();
    EXPECT_FALSE(sdpa_holds_scores(s, torch2));
    EXPECT_TRUE(validate(s, torch2).empty()) << format_problems(validate(s, torch2));
    EXPECT_TRUE(has_problem(validate(with_variant(s, "manual"), torch2), "memory", "exceeds the 8.00 GiB"));
    EXPECT_TRUE(sdpa_holds_scores(s, cpu_caps()));  // LibTorch 1.13: the math path
    EXPECT_TRUE(has_problem(validate(s, cpu_caps()), "memory", "exceeds"));
    s.sdpa_backend = SdpaBackend::Math;
    EXPECT_TRUE(sdpa_holds_scores(s, torch2));
    EXPECT_TRUE(has_problem(validate(s, torch2), "memory", "exceeds"));
    RunSpec g = with_variant(article_spec(DeviceKind::CUDA), "sdpa");
    EXPECT_FALSE(sdpa_holds_scores(g, torch2));
    g.dtype = Dtype::Float64;
    EXPECT_TRUE(sdpa_holds_scores(g, torch2));
    EXPECT_LT(estimate_peak_bytes(s, true), estimate_peak_bytes(s, false) / 100);
}

TEST(RunSpec, ChunkedEstimateGrowsLinearlyAndBlockSizeIsChecked) {
    RunSpec s;
    s.variant = "chunked";
    s.seq_q = s.seq_k = 4096;
    const double a = double(estimate_peak_bytes(s));
    s.seq_q = s.seq_k = 8192;
    EXPECT_NEAR(double(estimate_peak_bytes(s)) / a, 2.0, 0.1);
    s.block_size = 0;
    EXPECT_TRUE(has_problem(validate(s, cpu_caps()), "block_size", "0 must be a positive integer"));
}

TEST(RunSpec, AttentionFlops) {
    RunSpec s;  // 2x8x512x64 train: 3 * 4 * 2*8*512*512*64
    EXPECT_DOUBLE_EQ(attention_flops(s), 3.0 * 4 * 2 * 8 * 512.0 * 512 * 64);
    s.mode = Mode::Forward;
    EXPECT_DOUBLE_EQ(attention_flops(s), 4.0 * 2 * 8 * 512.0 * 512 * 64);
    s.mask = MaskKind::Causal;  // 512*513/2 visible pairs
    EXPECT_DOUBLE_EQ(attention_flops(s), 4.0 * 2 * 8 * (512.0 * 513 / 2) * 64);
    s.seq_q = 4;  // rows see 1, 2, 3, 4 keys
    s.seq_k = 3;  // ... capped at 3: 1 + 2 + 3 + 3
    EXPECT_DOUBLE_EQ(attention_flops(s), 4.0 * 2 * 8 * 9 * 64);
    s.mask = MaskKind::Padding;  // without key lengths: dense
    EXPECT_DOUBLE_EQ(attention_flops(s), 4.0 * 2 * 8 * 12 * 64);
    s.key_lengths = {3, 1};  // the keys each batch entry has: 4 x 3 + 4 x 1 pairs per head
    EXPECT_DOUBLE_EQ(attention_flops(s), 4.0 * 8 * (12 + 4) * 64);
    s.key_lengths.clear();
    s.mask = MaskKind::Window;  // rows see keys i - 1 .. i, capped at key 2: 1 + 2 + 2 + 1
    s.window = 2;
    EXPECT_DOUBLE_EQ(attention_flops(s), 4.0 * 2 * 8 * 6 * 64);
    EXPECT_DOUBLE_EQ(visible_pairs(5, 5, true, 2), 1 + 2 + 2 + 2 + 2);
    EXPECT_DOUBLE_EQ(visible_pairs(6, 4, true, 3), 1 + 2 + 3 + 3 + 2 + 1);
    EXPECT_DOUBLE_EQ(visible_pairs(512, 512, true, 512), 512.0 * 513 / 2);  // a window as long as N: causal
}

TEST(RunSpec, SlidingWindowNeedsItsLength) {
    RunSpec s;
    s.mask = MaskKind::Window;
    EXPECT_TRUE(has_problem(validate(s, cpu_caps()), "window", "needs the window's length"));
    s.window = 128;
    EXPECT_TRUE(validate(s, cpu_caps()).empty());
    s.mask = MaskKind::Causal;
    EXPECT_TRUE(has_problem(validate(s, cpu_caps()), "window", "only applies to mask window"));
    EXPECT_EQ(parse_mask("window"), MaskKind::Window);
}

TEST(RunSpec, WithVariantResetsVariantSpecificOptions) {
    RunSpec s;
    s.variant = "sdpa";
    s.sdpa_backend = SdpaBackend::Math;
    EXPECT_EQ(with_variant(s, "chunked").sdpa_backend, SdpaBackend::Auto);
    EXPECT_EQ(with_variant(s, "chunked").variant, "chunked");
    EXPECT_EQ(with_variant(s, "sdpa").sdpa_backend, SdpaBackend::Math);
}

TEST(RunSpec, NamesRoundTrip) {
    for (auto d : {Dtype::Float32, Dtype::Float64, Dtype::Float16, Dtype::BFloat16})
        EXPECT_EQ(parse_dtype(to_string(d)), d);
    for (auto m : {MaskKind::None, MaskKind::Causal, MaskKind::Padding}) EXPECT_EQ(parse_mask(to_string(m)), m);
    for (auto l : {Layout::BHND, Layout::BNHD}) EXPECT_EQ(parse_layout(to_string(l)), l);
    for (auto m : {Mode::Forward, Mode::Train}) EXPECT_EQ(parse_mode(to_string(m)), m);
    EXPECT_EQ(parse_dtype("fp16"), Dtype::Float16);
    EXPECT_EQ(parse_dtype("int8"), std::nullopt);
    EXPECT_EQ(to_string(*parse_device("cuda:3")), "cuda:3");
    EXPECT_EQ(parse_device("cuda:"), std::nullopt);
    EXPECT_EQ(parse_device("cuda:x"), std::nullopt);
    EXPECT_EQ(parse_device("tpu"), std::nullopt);
}

TEST(ProfileOptions, ScheduleFieldRules) {
    EXPECT_TRUE(validate(ProfileOptions{}).empty());
    ProfileOptions o;
    o.wait = -1;
    o.warmup = -2;
    o.active = 0;
    o.repeat = 0;
    auto ps = validate(o);
    EXPECT_TRUE(has_problem(ps, "wait", ">= 0"));
    EXPECT_TRUE(has_problem(ps, "warmup", ">= 0"));
    EXPECT_TRUE(has_problem(ps, "active", ">= 1"));
    EXPECT_TRUE(has_problem(ps, "repeat", ">= 1"));
}
