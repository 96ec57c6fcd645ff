// Attention as libraries and inference engines run it: on fixtures cut from public traces (vLLM's
// unified attention, SGLang's paged decode under graph capture, xDiT's SAGE attention Triton ops) and
// on hand-made traces with the op and kernel names and argument orders the libraries use (flash-attn
// 2 and 3, vLLM's paged attention and flash-attn backends, TensorRT-LLM, FlashInfer, Triton kernels
// with no op, kernels replayed from a graph). Shapes from what the trace holds, never guessed; device
// time the sum of the call's kernels; the kernel classes; the JSON.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "analysis/attention.h"
#include "analysis/attention_rules.h"
#include "analysis/kernel_class.h"
#include "analysis/run_analysis.h"
#include "io/trace_import.h"
#include "results/run_json.h"
#include "trace_builders.h"
#include "test_support.h"

using namespace awb;

namespace {

std::string library_fixture(const std::string& name) { return test::trace_fixture("libraries/" + name); }

struct Op {
    std::string name;
    int64_t start_us, end_us, id;
    std::vector<std::vector<int64_t>> shapes;
    std::vector<std::string> dtypes;
    std::vector<std::string> concrete;
};

TraceEvent op(const Op& o) {
    std::vector<std::string> dtypes = o.dtypes;
    if (dtypes.empty()) dtypes.assign(o.shapes.size(), "c10::BFloat16");
    return test_traces::cpu_op(o.name, o.start_us, o.end_us, o.id, {o.shapes, dtypes, {}, o.concrete, {}});
}

using test_traces::gpu_kernel;
using test_traces::runtime_call;

std::vector<AttentionInstance> calls_of(std::vector<TraceEvent> events) {
    return attention_instances(Trace::build(std::move(events), {}, {}));
}

std::vector<std::string> concrete_at(size_t n, std::map<size_t, std::string> values) {
    std::vector<std::string> c(n);
    for (const auto& [i, v] : values) c[i] = v;
    return c;
}

// The sum of the kernels each op launched (by External id), from the trace itself.
std::map<int64_t, int64_t> kernel_ns_by_op(const Trace& trace) {
    std::map<int64_t, int64_t> out;
    for (const TraceEvent& e : trace.events())
        if (e.kind == EventKind::Kernel) out[e.linked_correlation_id] += e.duration_ns();
    return out;
}

}  // namespace

TEST(AttentionLibraries, VllmUnifiedAttentionOfAPublicTrace) {
    const ImportedTrace t = import_chrome_trace(library_fixture("vllm_unified_attention.json.gz"));
    const RunAnalysis analysis = analyze_run(t.trace);
    const auto& calls = analysis.attention;
    ASSERT_EQ(calls.size(), 3u);
    const auto by_op = kernel_ns_by_op(t.trace);
    for (const AttentionInstance& a : calls) {
        EXPECT_EQ(a.library, "vLLM");
        EXPECT_EQ(a.implementation, "unified attention");
        EXPECT_EQ(a.op, "vllm::unified_attention_with_output");
        EXPECT_EQ(a.layout, AttentionLayout::Paged);
        EXPECT_EQ(a.query_tokens, 8192);  // query [8192, 64, 64], key [8192, 8, 64]: the step's new tokens
        EXPECT_EQ(a.shape.heads_q, 64);
        EXPECT_EQ(a.shape.heads_kv, 8);
        EXPECT_EQ(a.shape.head_dim, 64);
        EXPECT_EQ(a.shape.seq_k, -1);  // the KV cache is in vLLM's forward context: never guessed
        EXPECT_EQ(a.shape.batch, -1);
        EXPECT_EQ(a.flops, 0);
        EXPECT_EQ(a.bytes, 0);
        EXPECT_NE(a.missing.find("forward context"), std::string::npos) << a.missing;
        EXPECT_EQ(a.kernels, 1);
        EXPECT_EQ(a.device_ns,
                  by_op.at(t.trace.events()[size_t(a.event)].correlation_id));  // kernel_unified_attention_2d
        EXPECT_GT(a.step_gpu_ns, 0);
    }
    EXPECT_EQ(calls[0].device_ns, 132'878);
    EXPECT_EQ(calls[1].device_ns, 297'157);
    // Its kernel is attention (other) in the kernel table and the GPU time breakdown.
    for (const KernelRow& k : analysis.kernels) EXPECT_EQ(k.cls, KernelClass::AttentionOther) << k.name;
    const AttentionTotals totals = attention_totals(calls, analysis.gpu);
    EXPECT_EQ(totals.device_uncosted_ns, totals.device_ns);  // none of it has a FLOP count
    EXPECT_EQ(totals.uncosted_calls, 3);
    const std::string table = format_attention(calls, {}, analysis.gpu);
    EXPECT_NE(table.find("without a FLOP count: 3 calls"), std::string::npos) << table;
    EXPECT_NE(table.find("of the GPUs' busy time"), std::string::npos) << table;
}

TEST(AttentionLibraries, SglangPagedDecodeOfAGraphCaptureTrace) {
    const ImportedTrace t = import_chrome_trace(library_fixture("sglang_paged_decode_capture.json.gz"));
    const auto calls = attention_instances(t.trace);
    ASSERT_EQ(calls.size(), 3u);
    for (const AttentionInstance& a : calls) {
        EXPECT_EQ(a.library, "SGLang");
        EXPECT_EQ(a.implementation, "aiter paged attention ragged");
        EXPECT_EQ(a.layout, AttentionLayout::Paged);
        EXPECT_TRUE(a.decode);  // 32 query tokens, kv_indptr [33]: 32 sequences, one token each
        EXPECT_EQ(a.shape.batch, 32);
        EXPECT_EQ(a.query_tokens, 32);
        EXPECT_EQ(a.shape.seq_q, 1);
        EXPECT_EQ(a.shape.heads_q, 32);
        EXPECT_EQ(a.shape.heads_kv, 8);  // key cache [835874, 1, 8, 128]: pages of one token
        EXPECT_EQ(a.shape.head_dim, 128);
        EXPECT_EQ(a.shape.seq_k, -1);
        EXPECT_EQ(a.device_ns, 0);  // captured: nothing ran
        EXPECT_EQ(a.time_ns() == 0, a.captured);
        EXPECT_NE(a.missing.find("paged cache"), std::string::npos) << a.missing;
    }
}

TEST(AttentionLibraries, SageAttentionTritonOpsGiveTheirShapes) {
    // xDiT's Flux under torch.compile: Inductor's op "sage_fwd_1" launches the Triton kernel sage_fwd with
    // Q, K int8 and V fp8 [1, 24, 768, 128] (24 heads, 768 tokens, head dim 128; no mask).
    const ImportedTrace t = import_chrome_trace(library_fixture("xdit_sage_capture.json.gz"));
    const auto calls = attention_instances(t.trace);
    ASSERT_EQ(calls.size(), 3u);
    for (const AttentionInstance& a : calls) {
        EXPECT_EQ(a.library, "SageAttention");
        EXPECT_EQ(a.op, "sage_fwd_1");
        EXPECT_EQ(a.shape, (AttentionShape{1, 24, 24, 768, 768, 128, 128}));
        EXPECT_EQ(a.dtype, "signed char");
        EXPECT_EQ(a.kv_dtype, "c10::Float8_e4m3fnuz");
        EXPECT_DOUBLE_EQ(a.flops, 2.0 * 768 * 768 * (128 + 128) * 24);
        EXPECT_DOUBLE_EQ(a.bytes, 1.0 * 4 * 24 * 768 * 128);  // Q, K, V, O at one byte each
    }
}

TEST(AttentionLibraries, FlashAttnVarlenCountsFlopsOnlyForOneSequence) {
    // cu_seqlens_q [3]: two sequences packed into 96 tokens; their lengths are data: bytes known, FLOPs not.
    const std::vector<std::vector<int64_t>> two{{96, 8, 64}, {96, 2, 64}, {96, 2, 64}, {3}, {3}};
    auto calls = calls_of({op(
        {"flash_attn::_flash_attn_varlen_forward", 0, 10, 1, two, {}, concrete_at(16, {{9, "True"}, {10, "-1"}})})});
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].layout, AttentionLayout::Varlen);
    EXPECT_EQ(calls[0].shape.batch, 2);
    EXPECT_EQ(calls[0].shape.seq_q, -1);
    EXPECT_EQ(calls[0].flops, 0);
    EXPECT_DOUBLE_EQ(calls[0].bytes, 2.0 * (96 * 8 * 64 * 2 + 96 * 2 * 64 * 2));  // Q, O at 8 heads; K, V at 2
    EXPECT_NE(calls[0].missing.find("packed"), std::string::npos);
    // One sequence: its lengths are the token counts.
    const std::vector<std::vector<int64_t>> one{{96, 8, 64}, {96, 2, 64}, {96, 2, 64}, {2}, {2}};
    calls =
        calls_of({op({"flashattn::_flash_attn_varlen_forward", 0, 10, 1, one, {}, concrete_at(16, {{9, "True"}})})});
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].shape, (AttentionShape{1, 8, 2, 96, 96, 64, 64}));
    EXPECT_EQ(calls[0].causal, 1);
    EXPECT_DOUBLE_EQ(calls[0].flops, 4.0 * 64 * 8 * (96.0 * 97.0 / 2.0));
    EXPECT_TRUE(calls[0].missing.empty());
}

TEST(AttentionLibraries, FlashAttnDenseWithASlidingWindowAndAPagedBlockTable) {
    const std::vector<std::vector<int64_t>> bnhd{{2, 256, 8, 64}, {2, 256, 8, 64}, {2, 256, 8, 64}};
    auto calls = calls_of({op(
        {"flashattn::_flash_attn_forward", 0, 10, 1, bnhd, {}, concrete_at(11, {{5, "True"}, {6, "127"}, {7, "0"}})})});
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].library, "flash-attn");
    EXPECT_EQ(calls[0].shape, (AttentionShape{2, 8, 8, 256, 256, 64, 64}));
    EXPECT_EQ(calls[0].window, 128);  // window_size_left 127: query i sees keys i - 127 .. i
    EXPECT_DOUBLE_EQ(calls[0].pairs, 2.0 * 8 * visible_pairs(256, 256, true, 128));
    // A block_table: K and V are a paged cache [blocks, block size, Hkv, D]; the KV lengths are data.
    const std::vector<std::vector<int64_t>> paged{
        {40, 8, 64}, {500, 16, 2, 64}, {500, 16, 2, 64}, {5}, {5}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {4, 32}};
    calls = calls_of({op({"flash_attn::_flash_attn_varlen_forward", 0, 10, 1, paged, {}, {}})});
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].layout, AttentionLayout::Paged);
    EXPECT_EQ(calls[0].shape.batch, 4);
    EXPECT_EQ(calls[0].shape.heads_kv, 2);
    EXPECT_EQ(calls[0].shape.seq_k, -1);
    EXPECT_FALSE(calls[0].decode);  // 40 query tokens for 4 sequences: a prefill against the cache
    EXPECT_EQ(calls[0].bytes, 0);
}

TEST(AttentionLibraries, VllmPagedAttentionV2DecodeReadsItsSplitKCache) {
    // paged_attention_v2(out, exp_sums, max_logits, tmp_out, query, key_cache, value_cache, num_kv_heads, scale,
    // block_tables, seq_lens, ...): key_cache [blocks, Hkv, D / x, block, x], value_cache [blocks, Hkv, D, block].
    std::vector<std::vector<int64_t>> in(13);
    in[0] = {8, 32, 128};
    in[4] = {8, 32, 128};
    in[5] = {100, 8, 16, 16, 8};
    in[6] = {100, 8, 128, 16};
    in[9] = {8, 64};
    in[10] = {8};
    std::vector<std::string> dtypes(13, "c10::Half");
    dtypes[5] = dtypes[6] = "unsigned char";  // an fp8 cache is stored as bytes
    const auto calls = calls_of({op({"_C::paged_attention_v2", 0, 10, 1, in, dtypes, {}}),
                                 gpu_kernel("void vllm::paged_attention_v2_kernel<...>", 11, 21, 1),
                                 gpu_kernel("void vllm::paged_attention_v2_reduce_kernel<...>", 21, 23, 1)});
    ASSERT_EQ(calls.size(), 1u);
    const AttentionInstance& a = calls[0];
    EXPECT_EQ(a.library, "vLLM");
    EXPECT_TRUE(a.decode);
    EXPECT_EQ(a.shape.batch, 8);
    EXPECT_EQ(a.shape.heads_q, 32);
    EXPECT_EQ(a.shape.heads_kv, 8);
    EXPECT_EQ(a.shape.head_dim, 128);
    EXPECT_EQ(a.kv_dtype, "unsigned char");
    EXPECT_EQ(a.device_ns, 12'000);  // both kernels of the op
    EXPECT_EQ(a.kernels, 2);
    EXPECT_EQ(classify_kernel("void vllm::paged_attention_v2_kernel<...>", EventKind::Kernel),
              KernelClass::AttentionOther);
}

TEST(AttentionLibraries, AnEnginesLayerOpTakesItsBackendOpsShapes) {
    // vLLM's layer op has no cache; the FlashAttention backend's op inside it has the paged cache and cu_seqlens_q.
    std::vector<std::vector<int64_t>> inner(21);
    inner[0] = {64, 16, 128};
    inner[1] = inner[2] = {2000, 16, 4, 128};
    inner[4] = {9};
    inner[8] = {8, 128};
    const auto calls = calls_of({
        op({"vllm::unified_attention_with_output",
            0,
            100,
            1,
            {{64, 16, 128}, {64, 4, 128}, {64, 4, 128}, {64, 16, 128}},
            {},
            {}}),
        op({"_vllm_fa2_C::varlen_fwd", 10, 90, 2, inner, {}, concrete_at(21, {{15, "True"}, {16, "-1"}})}),
        gpu_kernel("void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, "
                   "cutlass::bfloat16_t>, true>",
                   95, 120, 2),
    });
    ASSERT_EQ(calls.size(), 1u);
    const AttentionInstance& a = calls[0];
    EXPECT_EQ(a.op, "vllm::unified_attention_with_output");
    EXPECT_EQ(a.implementation, "unified attention > vllm-flash-attn 2 varlen");
    EXPECT_EQ(a.shape.batch, 8);  // from the inner op's cu_seqlens_q [9]
    EXPECT_EQ(a.shape.heads_kv, 4);
    EXPECT_EQ(a.causal, 1);
    EXPECT_EQ(a.device_ns, 25'000);
    EXPECT_NE(a.name_facts.find("head dim 128"), std::string::npos) << a.name_facts;
    EXPECT_NE(a.name_facts.find("split KV"), std::string::npos) << a.name_facts;
    EXPECT_EQ(classify_kernel("void flash::flash_fwd_splitkv_kernel<...>", EventKind::Kernel),
              KernelClass::AttentionFlash);
}

TEST(AttentionLibraries, FlashAttention3WrapperAndItsInnerOp) {
    std::vector<std::vector<int64_t>> in(34);
    in[0] = {2, 128, 16, 64};
    in[1] = in[2] = {2, 512, 4, 64};
    const auto calls =
        calls_of({op({"flash_attn_3::_flash_attn_forward", 0, 100, 1, in, {}, {}}),
                  op({"flash_attn_3::fwd", 5, 95, 2, in, {}, concrete_at(34, {{24, "True"}, {25, "-1"}})})});
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].implementation, "FlashAttention-3");
    EXPECT_EQ(calls[0].shape, (AttentionShape{2, 16, 4, 128, 512, 64, 64}));
    EXPECT_EQ(calls[0].causal, 1);  // from the inner op's is_causal
    EXPECT_DOUBLE_EQ(calls[0].pairs, 2.0 * 16 * visible_pairs(128, 512, true));
}

TEST(AttentionLibraries, TensorRtLlmKernelNameFacts) {
    const std::string fmha =
        "fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvSlidingOrChunkedCausalP32VarSeqQ128Kv128PersistentSwapsAbForGen";
    const auto calls =
        calls_of({op({"trtllm::attention", 0, 10, 1, {{128, 3072}}, {}, {}}), gpu_kernel(fmha, 11, 31, 1)});
    ASSERT_EQ(calls.size(), 1u);
    const AttentionInstance& a = calls[0];
    EXPECT_EQ(a.library, "TensorRT-LLM");
    EXPECT_EQ(a.device_ns, 20'000);
    for (const char* fact :
         {"sliding window or chunked causal", "paged KV", "QKV fp8 e4m3", "head dim 64", "sm100a", "O bf16"})
        EXPECT_NE(a.name_facts.find(fact), std::string::npos) << fact << " in " << a.name_facts;
    EXPECT_EQ(a.flops, 0);
    EXPECT_EQ(classify_kernel(fmha, EventKind::Kernel), KernelClass::AttentionOther);
}

TEST(AttentionLibraries, KernelsFoundByNameWithAndWithoutAnOp) {
    const auto calls = calls_of({
        // FlashInfer's kernels launched from pybind (no op of theirs) inside a model's op: one call, that
        // op's other kernels not counted.
        op({"aten::linear", 0, 50, 1, {}, {}, {}}),
        gpu_kernel(
            "void flashinfer::BatchDecodeWithPagedKVCacheKernel<(PosEncodingMode)0, 2u, 4u, 8u, 16u, 1u, 8u>(...)", 60,
            70, 1),
        gpu_kernel(
            "void flashinfer::BatchDecodeWithPagedKVCacheKernel<(PosEncodingMode)0, 2u, 4u, 8u, 16u, 1u, 8u>(...)", 70,
            75, 1),
        gpu_kernel("ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_tn", 80, 90, 1),
        // A Triton decode kernel replayed from a graph under torch.compile's region: no op of its own.
        op({"Torch-Compiled Region: 0/0", 100, 200, 9, {}, {}, {}}),
        runtime_call("cudaGraphLaunch", 110, 112, 9, 50),
        gpu_kernel("_fwd_kernel_stage1", 120, 130, 9, 50),
        gpu_kernel("_fwd_kernel_stage2", 130, 132, 9, 50),
    });
    ASSERT_EQ(calls.size(), 3u);
    EXPECT_EQ(calls[0].library, "FlashInfer");
    EXPECT_EQ(calls[0].op, "aten::linear");
    EXPECT_EQ(calls[0].device_ns, 15'000);  // its two attention kernels, not the GEMM
    EXPECT_EQ(calls[0].kernels, 2);
    EXPECT_FALSE(calls[0].kernel_only);
    for (size_t i = 1; i < 3; ++i) {
        EXPECT_EQ(calls[i].library, "SGLang");
        EXPECT_TRUE(calls[i].kernel_only);
        EXPECT_EQ(calls[i].cpu_ns(), 0);  // no CPU span of its own
        EXPECT_NE(calls[i].missing.find("--capture"), std::string::npos);
    }
    EXPECT_EQ(calls[1].device_ns, 10'000);
    EXPECT_EQ(calls[2].device_ns, 2'000);
}

TEST(AttentionLibraries, OtherOpsOfAProfilerShimAreNotAttention) {
    // SGLang's kernel-shape profiler wraps norms too: only its attention functions are calls.
    const auto calls = calls_of({op({"sglang_profiler::rmsnorm_rmsnorm2d_fwd_109", 0, 10, 1, {{32, 4096}}, {}, {}}),
                                 op({"sglang_profiler::utils_apply_qk_norm_487", 20, 30, 2, {{32, 32, 128}}, {}, {}})});
    EXPECT_TRUE(calls.empty());
    EXPECT_EQ(match_op_rule("aten::linear"), nullptr);
    EXPECT_EQ(match_op_rule("sglang_profiler::decode_attention_decode_attention_fwd_12")->implementation,
              "Triton decode");
}

TEST(AttentionLibraries, TheRulesTableNamesEveryLibrary) {
    const std::string table = format_attention_rules();
    for (const char* library : {"PyTorch SDPA", "vLLM", "SGLang", "FlashInfer", "flash-attn", "xformers", "aiter",
                                "TensorRT-LLM", "cuDNN", "FlexAttention", "SageAttention", "Triton"})
        EXPECT_NE(table.find(library), std::string::npos) << library;
    for (const AttentionRule& r : attention_rules()) {
        EXPECT_FALSE(r.pattern.empty());
        EXPECT_FALSE(r.library.empty()) << r.pattern;
        if (r.layout != QkvLayout::None) {
            EXPECT_GE(r.q, 0) << r.pattern;
        }
    }
}

TEST(AttentionLibraries, JsonKeepsNullsAndTheReasons) {
    const ImportedTrace t = import_chrome_trace(library_fixture("sglang_paged_decode_capture.json.gz"));
    const auto calls = attention_instances(t.trace);
    ASSERT_FALSE(calls.empty());
    const nlohmann::json j = calls[0];
    EXPECT_TRUE(j["flops"].is_null());
    EXPECT_TRUE(j["kv_length"].is_null());
    EXPECT_EQ(j["query_tokens"], 32);
    EXPECT_EQ(j["library"], "SGLang");
    EXPECT_EQ(j["layout"], "paged");
    EXPECT_TRUE(j["missing"].is_string());
    AttentionInstance back = j.get<AttentionInstance>();
    // Timestamps go through microseconds as doubles: at 4.9e15 ns from the epoch, within a nanosecond.
    EXPECT_NEAR(double(back.start_ns), double(calls[0].start_ns), 1.0);
    EXPECT_NEAR(double(back.end_ns), double(calls[0].end_ns), 1.0);
    back.start_ns = calls[0].start_ns;
    back.end_ns = calls[0].end_ns;
    EXPECT_EQ(back, calls[0]);
}

// The whole public traces, when they are beside the repository (as on CI).
TEST(AttentionLibraries, PublicTraces) {
    const std::string root = std::string(AWB_FIXTURE_DIR) + "/../../../shared/public-traces/tracelens";
    if (!std::filesystem::exists(root))
        GTEST_SKIP() << "the public traces are not at " << root << " (../shared/public-traces beside the repository)";
    {
        const ImportedTrace t = import_chrome_trace(root + "/vllm_prefilldecode_piecewise/graph_execution.json.gz");
        const auto calls = attention_instances(t.trace);
        const auto by_op = kernel_ns_by_op(t.trace);
        ASSERT_EQ(calls.size(), 24u);  // one per layer
        for (const AttentionInstance& a : calls)
            EXPECT_EQ(a.device_ns, by_op.at(t.trace.events()[size_t(a.event)].correlation_id));
    }
    {
        const ImportedTrace t = import_chrome_trace(root + "/sglang_decode_capture/bs_32_rank0.json.gz");
        const auto calls = attention_instances(t.trace);
        ASSERT_EQ(calls.size(), 36u);  // Qwen3's 36 layers, captured once
        for (const AttentionInstance& a : calls) {
            EXPECT_TRUE(a.captured);
            EXPECT_TRUE(a.decode);
        }
    }
    {
        const ImportedTrace t = import_chrome_trace(root + "/xdit_flux.1_aiter_sage/profile_trace_rank_0.json.gz");
        int sage = 0, sdpa = 0, manual = 0;
        for (const AttentionInstance& a : attention_instances(t.trace)) {
            sage += a.implementation == "SAGE attention (Triton)" && a.kernel_only;
            sdpa += a.library == "PyTorch SDPA";
            manual += a.library == "manual";
        }
        EXPECT_EQ(sage, 228);   // 57 blocks x 4 graph replays, no op recorded around them
        EXPECT_EQ(sdpa, 13);    // the CLIP text encoder's and one more
        EXPECT_EQ(manual, 24);  // T5-XXL encoder's 24 layers, written out
    }
}

// The other families, one call each, with the argument orders they register.
TEST(AttentionLibraries, XformersAiterSageFlexAndCudnnCalls) {
    // xformers' memory-efficient forward, [B, M, H, K], custom_mask_type 2: bottom-right causal.
    auto calls = calls_of({op({"xformers::efficient_attention_forward_cutlass",
                               0,
                               10,
                               1,
                               {{2, 64, 8, 64}, {2, 128, 8, 64}, {2, 128, 8, 64}},
                               {},
                               concrete_at(13, {{9, "2"}})})});
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].library, "xformers");
    EXPECT_EQ(calls[0].shape, (AttentionShape{2, 8, 8, 64, 128, 64, 64}));
    EXPECT_EQ(calls[0].causal, 2);
    EXPECT_DOUBLE_EQ(calls[0].pairs, 2.0 * 8 * bottom_right_pairs(64, 128));
    // aiter's CK forward, [B, N, H, D], is_causal at 5; and its batch prefill against a paged cache.
    calls = calls_of({op({"aiter::mha_fwd",
                          0,
                          10,
                          1,
                          {{1, 256, 16, 128}, {1, 256, 4, 128}, {1, 256, 4, 128}},
                          {},
                          concrete_at(20, {{5, "True"}})}),
                      op({"aiter::mha_batch_prefill",
                          20,
                          30,
                          2,
                          {{300, 16, 128}, {4096, 16, 4, 128}, {4096, 16, 4, 128}, {4}},
                          {},
                          {}})});
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_EQ(calls[0].shape, (AttentionShape{1, 16, 4, 256, 256, 128, 128}));
    EXPECT_EQ(calls[0].causal, 1);
    EXPECT_EQ(calls[1].layout, AttentionLayout::Paged);
    EXPECT_EQ(calls[1].shape.batch, 3);  // cu_seqlens_q [4]
    EXPECT_EQ(calls[1].query_tokens, 300);
    EXPECT_EQ(calls[1].shape.heads_kv, 4);
    // SageAttention's CUDA op in its NHD layout (tensor_layout 0): [B, N, H, D].
    calls = calls_of({op({"sageattention_qattn_sm89::qk_int8_sv_f8_accum_f32_attn",
                          0,
                          10,
                          1,
                          {{1, 1024, 24, 128}, {1, 1024, 24, 128}, {1, 1024, 24, 128}},
                          {"signed char", "signed char", "c10::Float8_e4m3fn"},
                          concrete_at(11, {{6, "0"}, {7, "0"}})})});
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].shape, (AttentionShape{1, 24, 24, 1024, 1024, 128, 128}));
    EXPECT_EQ(calls[0].causal, 0);
    EXPECT_EQ(calls[0].kv_dtype, "c10::Float8_e4m3fn");
    // FlexAttention compiled: Inductor's op named after its template kernel records Q, K, V.
    calls = calls_of({op({"triton_tem_fused_flex_attention_0",
                          0,
                          10,
                          1,
                          {{2, 8, 512, 64}, {2, 8, 512, 64}, {2, 8, 512, 64}},
                          {},
                          {}}),
                      gpu_kernel("triton_tem_fused_flex_attention_0", 12, 40, 1)});
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].library, "FlexAttention");
    EXPECT_EQ(calls[0].shape, (AttentionShape{2, 8, 8, 512, 512, 64, 64}));
    EXPECT_EQ(calls[0].device_ns, 28'000);
    EXPECT_EQ(calls[0].causal, -1);  // the block mask is data: every pair counted
    // cuDNN's SDPA kernels launched by TransformerEngine (no aten op): by name, backward from "bprop".
    calls = calls_of(
        {op({"FusedAttnFunc", 0, 10, 1, {}, {}, {}}),
         gpu_kernel("cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_3_64x64x128_4x1x1_kernel0_0", 12,
                    20, 1)});
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].library, "cuDNN");
    EXPECT_TRUE(calls[0].backward);
    EXPECT_NE(calls[0].name_facts.find("sm90"), std::string::npos) << calls[0].name_facts;
    EXPECT_EQ(classify_kernel("cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_3", EventKind::Kernel),
              KernelClass::AttentionCudnn);
}

TEST(AttentionLibraries, SglangTritonDecodeOnItsTokenPool) {
    // SGLang's profiler op of decode_attention_fwd: q [T, Hq, D], k_buffer / v_buffer the token pool
    // [slots, Hkv, D], o, kv_indptr [B + 1].
    const auto calls =
        calls_of({op({"sglang_profiler::decode_attention_decode_attention_fwd_7",
                      0,
                      10,
                      1,
                      {{16, 32, 128}, {65536, 8, 128}, {65536, 8, 128}, {16, 32, 128}, {17}, {4000}},
                      {},
                      {}}),
                  gpu_kernel("_fwd_grouped_kernel_stage1", 12, 30, 1), gpu_kernel("_fwd_kernel_stage2", 30, 33, 1)});
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_EQ(calls[0].implementation, "Triton decode");
    EXPECT_TRUE(calls[0].decode);
    EXPECT_EQ(calls[0].shape.batch, 16);
    EXPECT_EQ(calls[0].shape.heads_kv, 8);
    EXPECT_EQ(calls[0].device_ns, 21'000);  // both stages, under its op
    EXPECT_EQ(calls[0].kernels, 2);
}
