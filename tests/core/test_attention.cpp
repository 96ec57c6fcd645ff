// Attention calls found in traces: in PyTorch 2.11's own traces of sdpa's CPU
// flash path (forward and backward), of the manual pattern and of grouped-query attention written out
// with a padding mask; on a hand-made GPU trace the device time is the sum of the call's kernels and
// causal halves the pairs; FLOPs agree with the variants' count for the same spec.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "analysis/attention.h"
#include "analysis/roofline.h"
#include "io/trace_import.h"
#include "model/printf_string.h"
#include "model/units.h"
#include "report/report_html.h"
#include "results/run_json.h"
#include "trace_builders.h"
#include "test_support.h"

using namespace awb;

namespace {

TraceEvent op(const std::string& name, int64_t start_us, int64_t end_us, int64_t external_id,
              std::vector<std::vector<int64_t>> shapes = {}, std::vector<std::string> concrete = {}) {
    const bool inputs = !shapes.empty() || !concrete.empty();
    return test_traces::cpu_op(name, start_us, end_us, external_id,
                               inputs ? EventInputs{std::move(shapes),
                                                    {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16"},
                                                    {},
                                                    std::move(concrete),
                                                    {}}
                                      : EventInputs{});
}

using test_traces::gpu_kernel;

}  // namespace

TEST(Attention, SdpaCpuFlashForwardAndBackwardOfATorch211Trace) {
    const ImportedTrace t = import_chrome_trace(test::trace_fixture("torch2/sdpa_train_stack.pt.trace.json.gz"));
    const auto calls = attention_instances(t.trace);
    ASSERT_EQ(calls.size(), 4u);  // two steps, a forward and a backward each
    int backward = 0;
    for (const AttentionInstance& a : calls) {
        EXPECT_EQ(a.backend, AttentionBackend::CpuFlash);
        EXPECT_EQ(a.shape, (AttentionShape{1, 2, 2, 64, 64, 16, 16}));
        EXPECT_EQ(a.causal, 0);  // is_causal=False in "Concrete Inputs"
        EXPECT_EQ(a.dtype, "float");
        EXPECT_EQ(a.device_ns, 0);  // a CPU run
        const double forward = 4.0 * 1 * 2 * 64 * 64 * 16;
        EXPECT_DOUBLE_EQ(a.flops, a.backward ? 2.5 * forward : forward);
        if (a.backward) {
            EXPECT_DOUBLE_EQ(a.flops_backward_no_recompute, 2.0 * forward);
        }
        EXPECT_DOUBLE_EQ(a.bytes, 4.0 * 4 * 2 * 64 * 16 * (a.backward ? 2 : 1));
        EXPECT_GT(a.cpu_ns(), 0);
        backward += a.backward;
        EXPECT_EQ(a.op, a.backward ? "aten::_scaled_dot_product_flash_attention_for_cpu_backward"
                                   : "aten::scaled_dot_product_attention");
    }
    EXPECT_EQ(backward, 2);
}

TEST(Attention, ManualPatternAndItsFlopsEqualTheVariantsCount) {
    const ImportedTrace t = import_chrome_trace(test::trace_fixture("torch2/manual_train.json"));
    auto calls = attention_instances(t.trace);
    ASSERT_EQ(calls.size(), 4u);  // two steps, a forward and a backward each
    // The backward, as autograd ran it: from the P V matmul's backward node to the Q K^T one's.
    std::vector<AttentionInstance> backward;
    for (const AttentionInstance& a : calls)
        if (a.backward) backward.push_back(a);
    ASSERT_EQ(backward.size(), 2u);
    for (const AttentionInstance& a : backward) {
        EXPECT_EQ(a.backend, AttentionBackend::Manual);
        EXPECT_EQ(a.shape, (AttentionShape{1, 2, 2, 64, 64, 16, 16}));
        EXPECT_EQ(a.op, "autograd::engine::evaluate_function: BmmBackward0");
        EXPECT_DOUBLE_EQ(a.flops_backward_no_recompute, 2 * 4.0 * 2 * 64 * 64 * 16);
    }
    calls.erase(std::remove_if(calls.begin(), calls.end(), [](const AttentionInstance& a) { return a.backward; }),
                calls.end());
    RunSpec spec;
    spec.batch = 1;
    spec.heads = spec.kv_heads = 2;
    spec.seq_q = spec.seq_k = 64;
    spec.head_dim = 16;
    spec.mode = Mode::Forward;
    for (const AttentionInstance& a : calls) {
        EXPECT_EQ(a.backend, AttentionBackend::Manual);
        EXPECT_FALSE(a.backward);
        EXPECT_EQ(a.op, "aten::matmul");
        EXPECT_EQ(a.shape, (AttentionShape{1, 2, 2, 64, 64, 16, 16}));
        EXPECT_EQ(a.causal, 0);
        EXPECT_DOUBLE_EQ(a.flops, attention_flops(spec));
        // The call spans the first matmul to the second, the softmax between them.
        EXPECT_EQ(t.trace.events()[size_t(a.event)].start_ns, a.start_ns);
    }
}

TEST(Attention, GroupedQueryAttentionWrittenOutWithAPaddingMask) {
    const ImportedTrace t = import_chrome_trace(test::trace_fixture("torch2/gqa_padding_forward.json"));
    const auto calls = attention_instances(t.trace);
    ASSERT_EQ(calls.size(), 2u);
    for (const AttentionInstance& a : calls) {
        EXPECT_EQ(a.shape, (AttentionShape{2, 8, 2, 32, 32, 16, 16}));  // K and V repeated from 2 heads
        EXPECT_EQ(a.causal, -1);  // masked_fill with a [2, 1, 1, 32] mask: which pairs it hides is data
        EXPECT_DOUBLE_EQ(a.pairs, 2.0 * 8 * 32 * 32);                                  // so every pair is counted
        EXPECT_DOUBLE_EQ(a.bytes, 4.0 * (2 * 8 * 32 * 16 * 2 + 2 * 2 * 32 * 16 * 2));  // K, V at their own 2 heads
    }
}

TEST(Attention, DeviceTimeIsTheSumOfTheCallsKernelsAndCausalHalvesThePairs) {
    const int64_t b = 2, h = 8, n = 128, d = 64;
    std::vector<TraceEvent> events{
        op("aten::scaled_dot_product_attention", 0, 100, 1,
           {{b, h, n, d}, {b, h, n, d}, {b, h, n, d}, {}, {}, {}, {}, {}}, {"", "", "", "", "0.", "True", "", "False"}),
        op("aten::_scaled_dot_product_flash_attention", 5, 95, 2,
           {{b, h, n, d}, {b, h, n, d}, {b, h, n, d}, {}, {}, {}, {}}),
        op("aten::_flash_attention_forward", 10, 90, 3, {{b, n, h, d}, {b, n, h, d}, {b, n, h, d}}),
        op("aten::empty", 11, 12, 4),
        op("aten::_scaled_dot_product_flash_attention_backward", 200, 300, 5,
           {{b, h, n, d}, {b, h, n, d}, {b, h, n, d}, {b, h, n, d}, {b, h, n, d}, {b, h, n}}),
        op("aten::mm", 400, 410, 6, {{128, 64}, {64, 128}}),
        gpu_kernel("pytorch_flash::flash_fwd_kernel", 120, 150, 3),
        gpu_kernel("pytorch_flash::flash_bwd_dq_dk_dv_loop_kernel", 320, 380, 5),
        gpu_kernel("pytorch_flash::flash_bwd_convert_dq_kernel", 380, 385, 5),
        gpu_kernel("sm90_xmma_gemm", 420, 430, 6),  // not attention
    };
    const auto calls = attention_instances(Trace::build(std::move(events), {}, {}));
    ASSERT_EQ(calls.size(), 2u);
    const AttentionInstance& fwd = calls[0];
    const AttentionInstance& bwd = calls[1];
    EXPECT_EQ(fwd.op, "aten::scaled_dot_product_attention");
    EXPECT_EQ(fwd.backend, AttentionBackend::Flash);  // named by its inner ops
    EXPECT_EQ(fwd.shape, (AttentionShape{b, h, h, n, n, d, d}));
    EXPECT_EQ(fwd.causal, 1);
    EXPECT_EQ(fwd.device_ns, 30'000);
    EXPECT_EQ(fwd.kernels, 1);
    EXPECT_DOUBLE_EQ(fwd.pairs, double(b * h) * (128.0 * 129.0 / 2.0));
    EXPECT_DOUBLE_EQ(fwd.flops, 4.0 * fwd.pairs * double(d));
    EXPECT_DOUBLE_EQ(fwd.tflops_per_s(), fwd.flops / 30'000.0 / 1e3);  // over the device time
    EXPECT_DOUBLE_EQ(fwd.bytes, 2.0 * 4 * double(b * h * n * d));      // bf16 Q, K, V, O
    EXPECT_TRUE(bwd.backward);
    EXPECT_EQ(bwd.backend, AttentionBackend::Flash);
    EXPECT_EQ(bwd.causal, -1);  // the backward op's is_causal was not recorded here
    EXPECT_EQ(bwd.device_ns, 65'000);
    EXPECT_EQ(bwd.kernels, 2);
    const std::string table = format_attention(calls);
    EXPECT_NE(table.find("flash"), std::string::npos) << table;
    EXPECT_NE(table.find(format_flops(fwd.flops)), std::string::npos) << table;
}

TEST(Attention, CausalPairsAreTopLeftAlignedAsPyTorchs) {
    EXPECT_DOUBLE_EQ(visible_pairs(4, 4, false), 16);
    EXPECT_DOUBLE_EQ(visible_pairs(4, 4, true), 10);  // 1 + 2 + 3 + 4
    EXPECT_DOUBLE_EQ(visible_pairs(2, 4, true), 3);   // query 0 sees key 0, query 1 keys 0-1
    EXPECT_DOUBLE_EQ(visible_pairs(6, 4, true), 18);  // 1 + 2 + 3 + 4 + 4 + 4
    EXPECT_EQ(format_flops(524288), "524 kFLOP");
    EXPECT_EQ(format_flops(3.22e9), "3.22 GFLOP");
}

TEST(Attention, BottomRightCausalOfXformersMaskTypeTwo) {
    // _efficient_attention_forward takes [B, N, H, D]; custom_mask_type 2 aligns the causal mask to the
    // bottom right: with Nq 2 and Nk 4 query 0 sees keys 0-2 and query 1 all four (7 pairs); with Nq 6
    // and Nk 4 the first two queries see none and the rest 1..4 (10 pairs).
    for (const auto& [nq, nk, pairs] : {std::tuple{2, 4, 7.0}, std::tuple{6, 4, 10.0}, std::tuple{4, 4, 10.0}}) {
        std::vector<std::string> concrete(10);
        concrete[9] = "2";
        std::vector<TraceEvent> events{op("aten::_efficient_attention_forward", 0, 10, 1,
                                          {{1, nq, 1, 8}, {1, nk, 1, 8}, {1, nk, 1, 8}}, concrete)};
        const auto calls = attention_instances(Trace::build(std::move(events), {}, {}));
        ASSERT_EQ(calls.size(), 1u);
        EXPECT_EQ(calls[0].backend, AttentionBackend::MemEfficient);
        EXPECT_EQ(calls[0].causal, 2);
        EXPECT_DOUBLE_EQ(calls[0].pairs, pairs) << nq << "x" << nk;
        EXPECT_DOUBLE_EQ(calls[0].flops, 2.0 * pairs * 16);
        EXPECT_NE(format_attention(calls).find("bottom-right"), std::string::npos);
    }
}

TEST(Attention, NoneInATraceWithoutAttention) {
    const ImportedTrace t = import_chrome_trace(test::trace_fixture("kineto_2021.json"));
    EXPECT_TRUE(attention_instances(t.trace).empty());
    EXPECT_NE(format_attention({}).find("none found"), std::string::npos);
}

TEST(Attention, ProfileReportsKeepTheCallsAndTheHtmlReportShowsThem) {
    ProfileResult run;
    run.trace = import_chrome_trace(test::trace_fixture("torch2/sdpa_train_stack.pt.trace.json.gz")).trace;
    run.spec_known = false;
    const ProfileReport report = make_report(run, analyze_run(run));
    ASSERT_EQ(report.attention.size(), 4u);
    const ProfileReport back = report_from_json(nlohmann::json::parse(to_json(report).dump()));
    ASSERT_EQ(back.attention.size(), 4u);
    for (size_t i = 0; i < 4; ++i) {
        const AttentionInstance &a = report.attention[i], &b = back.attention[i];
        EXPECT_EQ(b.backend, a.backend);
        EXPECT_EQ(b.backward, a.backward);
        EXPECT_EQ(b.shape, a.shape);
        EXPECT_EQ(b.causal, a.causal);
        EXPECT_EQ(b.dtype, a.dtype);
        EXPECT_DOUBLE_EQ(b.flops, a.flops);
        EXPECT_NEAR(double(b.cpu_ns()), double(a.cpu_ns()), 2.0);
    }
    ReportInput in;
    in.profile = &back;
    const std::string html = html_report(in);
    const size_t at = html.find("<h2>Attention calls</h2>");
    ASSERT_NE(at, std::string::npos);
    EXPECT_NE(html.find("CPU flash", at), std::string::npos);
    EXPECT_NE(html.find("1.31 MFLOP", at), std::string::npos);
}

// The HTML report shows the device columns where the analysis decided so (the CLI's and the GUI's rule):
// here a run with kernels whose operators hold no device time, as on NCCL traces whose launches link no op.
TEST(Attention, HtmlReportShowsTheDeviceColumnsTheAnalysisDecided) {
    ProfileResult run;
    run.trace = import_chrome_trace(test::trace_fixture("compare/v100_test_steps.json")).trace;
    run.spec_known = false;
    ProfileReport report = make_report(run, analyze_run(run));
    ASSERT_TRUE(report.device_columns);
    for (OperatorRow& o : report.operators) o.self_device_ns = o.device_total_ns = 0;
    ReportInput in;
    in.profile = &report;
    EXPECT_NE(html_report(in).find(">Self device (time)</th>"), std::string::npos);
    report.device_columns = false;
    EXPECT_EQ(html_report(in).find(">Self device (time)</th>"), std::string::npos);
}

TEST(Attention, RoofOfTheDeviceTheTraceNames) {
    const DeviceRoof* h200 = find_device_roof("NVIDIA H200");
    ASSERT_NE(h200, nullptr);
    EXPECT_EQ(h200->name, "H200 SXM");
    EXPECT_EQ(find_device_roof("NVIDIA H100 80GB HBM3")->name, "H100 SXM5");
    EXPECT_EQ(find_device_roof("NVIDIA H100 PCIe")->name, "H100 PCIe");
    EXPECT_EQ(find_device_roof("AMD Instinct MI300X")->name, "MI300X");
    EXPECT_EQ(find_device_roof("NVIDIA B200")->name, "B200");
    EXPECT_EQ(find_device_roof("NVIDIA GB200")->name, "GB200");       // before B200, whose name it contains
    EXPECT_EQ(find_device_roof("NVIDIA GeForce RTX 2060"), nullptr);  // not in the table: no roof, no guess
    const Roof bf16 = datasheet_roof(*h200, "c10::BFloat16");
    EXPECT_DOUBLE_EQ(bf16.attainable_tflops(1e12, 1e9), 989);  // 1000 FLOP/byte: compute-bound
    EXPECT_DOUBLE_EQ(bf16.attainable_tflops(1e9, 1e9), 4.8);   // 1 FLOP/byte: 4.8 TB/s x 1
    EXPECT_NEAR(bf16.ridge(), 989 / 4.8, 1e-9);
    EXPECT_DOUBLE_EQ(datasheet_roof(*h200, "float").attainable_tflops(1e12, 1e9), 67);  // float matmuls: FP32, not TF32
    EXPECT_FALSE(datasheet_roof(*h200, "c10::ComplexFloat").known());
    EXPECT_DOUBLE_EQ(datasheet_roof(*find_device_roof("NVIDIA B200"), "c10::Half").peak_tflops, 2250);
    // The hand-made GPU call at 30 us: its share of the H200's bf16 roof, printed per group.
    std::vector<TraceEvent> events{op("aten::_scaled_dot_product_flash_attention", 0, 100, 1,
                                      {{2, 8, 128, 64}, {2, 8, 128, 64}, {2, 8, 128, 64}}, {"", "", "", "0.", "False"}),
                                   gpu_kernel("pytorch_flash::flash_fwd_kernel", 120, 150, 1)};
    const auto calls = attention_instances(Trace::build(std::move(events), {}, {}));
    ASSERT_EQ(calls.size(), 1u);
    const std::vector<Roof> roofs = call_roofs(Roof{}, "NVIDIA H200", calls);
    ASSERT_EQ(roofs.size(), 1u);  // one per dtype of the calls
    EXPECT_EQ(roofs[0].dtype, "c10::BFloat16");
    const double share = calls[0].tflops_per_s() / bf16.attainable_tflops(calls[0].flops, calls[0].bytes);
    const std::string table = format_attention(calls, roofs);
    EXPECT_NE(table.find("% of roof"), std::string::npos) << table;
    EXPECT_NE(table.find("Roof for c10::BFloat16: H200 SXM, 989 TFLOP/s, 4.80 TB/s, ridge 206.0 FLOP/byte"),
              std::string::npos)
        << table;
    EXPECT_NE(table.find(printf_string("%.1f%%", 100 * share)), std::string::npos) << table;
    EXPECT_EQ(format_attention(calls).find("% of roof"), std::string::npos);
    EXPECT_TRUE(call_roofs(Roof{}, "NVIDIA GeForce RTX 2060", calls).empty());
    // A CPU roof measured in the run applies to calls timed on the CPU, not to those that ran kernels.
    Roof cpu{"CPU", "c10::BFloat16", 0.5, 0.02, true, "measured"};
    EXPECT_EQ(call_roofs(cpu, "NVIDIA H200", calls), std::vector<Roof>{cpu});
    EXPECT_FALSE(roof_fit(group_attention(calls)[0], cpu).applies);
    EXPECT_TRUE(roof_fit(group_attention(calls)[0], roofs[0]).applies);
}

TEST(Attention, RooflinePointsAndRoofs) {
    const Roof h200 = datasheet_roof(*find_device_roof("NVIDIA H200"), "c10::BFloat16");  // ridge 206 FLOP/byte
    const auto line = roof_polyline(h200, 1, 1000);
    ASSERT_EQ(line.size(), 3u);  // the slope, the ridge, the peak
    EXPECT_DOUBLE_EQ(line[0].second, 4.8);
    EXPECT_NEAR(line[1].first, 989 / 4.8, 1e-9);
    EXPECT_DOUBLE_EQ(line[2].second, 989);
    EXPECT_EQ(roof_polyline(h200, 300, 1000).size(), 2u);  // all past the ridge: flat
    std::vector<TraceEvent> events{
        op("aten::_scaled_dot_product_flash_attention", 0, 100, 1, {{2, 8, 128, 64}, {2, 8, 128, 64}, {2, 8, 128, 64}},
           {"", "", "", "0.", "False"}),
        gpu_kernel("pytorch_flash::flash_fwd_kernel", 120, 150, 1),
        op("aten::scaled_dot_product_attention", 200, 300, 2, {{1, 2}})};  // no usable shape: no point
    const auto calls = attention_instances(Trace::build(std::move(events), {}, {}));
    ASSERT_EQ(calls.size(), 2u);
    const auto points = roofline_points(calls);
    ASSERT_EQ(points.size(), 1u);
    EXPECT_EQ(points[0].series, "flash fwd c10::BFloat16");
    EXPECT_DOUBLE_EQ(points[0].intensity, calls[0].flops / calls[0].bytes);
    EXPECT_DOUBLE_EQ(points[0].tflops, calls[0].flops / 30e3 / 1e3);  // over the 30 us kernel
    EXPECT_EQ(points[0].index, 0);
    const auto [lo, hi] = roofline_x_range(points, {h200});
    EXPECT_LE(lo, points[0].intensity / 3);
    EXPECT_GE(hi, h200.ridge());
    EXPECT_EQ(roof_legend(h200), "H200 SXM c10::BFloat16 roof: 989 TFLOP/s, 4.80 TB/s, ridge 206 FLOP/byte");
    EXPECT_EQ(roof_legend(h200, false), "H200 SXM c10::BFloat16 roof: 989 TFLOP/s, 4.80 TB/s");
}

TEST(Attention, BytesUnderTheThreeModels) {
    // B 1, Hq 4, Hkv 2, Nq 256, Nk 512, D 64, Dv 32, 2-byte elements.
    const AttentionShape s{1, 4, 2, 256, 512, 64, 32};
    const double q = 4 * 256 * 64, k = 2 * 512 * 64, v = 2 * 512 * 32, o = 4 * 256 * 32, scores = 4 * 256 * 512;
    EXPECT_DOUBLE_EQ(attention_bytes(s, 2, false, BytesModel::Ideal), 2 * (q + k + v + o));
    EXPECT_DOUBLE_EQ(attention_bytes(s, 2, true, BytesModel::Ideal), 2 * 2 * (q + k + v + o));
    EXPECT_DOUBLE_EQ(attention_bytes(s, 2, false, BytesModel::Scores), 2 * (q + k + v + o + 4 * scores));
    EXPECT_DOUBLE_EQ(attention_bytes(s, 2, true, BytesModel::Scores), 2 * (2 * (q + k + v + o) + 7 * scores));
    // Chunked, blocks of 128: two query blocks, each query head reads its K and V rows once per block;
    // backward: four key blocks, each re-reading Q and dO and reading and writing dQ.
    EXPECT_DOUBLE_EQ(attention_bytes(s, 2, false, BytesModel::Chunked), 2 * (q + o + 4 * 2 * 512.0 * (64 + 32)));
    EXPECT_DOUBLE_EQ(attention_bytes(s, 2, true, BytesModel::Chunked),
                     2 * (2 * (k + v) + 2 * o + 4 * 4 * 256.0 * (3 * 64 + 32)));
    // One block covering every query, no grouping: the forward reads what the ideal model does.
    const AttentionShape one{2, 2, 2, 100, 300, 64, 64};
    EXPECT_DOUBLE_EQ(attention_bytes(one, 4, false, BytesModel::Chunked),
                     attention_bytes(one, 4, false, BytesModel::Ideal));
    // A spec: forward plus backward in train mode, the chunked variant's own block.
    RunSpec spec;
    spec.block_size = 64;
    const AttentionShape ss = attention_shape(spec);
    EXPECT_DOUBLE_EQ(
        attention_bytes(spec, BytesModel::Chunked),
        attention_bytes(ss, 4, false, BytesModel::Chunked, 64) + attention_bytes(ss, 4, true, BytesModel::Chunked, 64));

    // Which model's roofline time is nearest the measured one: a roof of 1 TFLOP/s and 0.1 TB/s.
    const double flops = 1e9, bytes[3] = {1e7, 1e9, 2e7};  // 1 ms of compute; 0.1, 10 and 0.2 ms of traffic
    BytesFit fit = fit_bytes_model(flops, bytes, 9e6, 1.0, 0.1);
    EXPECT_EQ(fit.model, BytesModel::Scores);
    EXPECT_DOUBLE_EQ(fit.predicted_ns[1], 1e7);
    EXPECT_FALSE(fit.tie);
    fit = fit_bytes_model(flops, bytes, 1.1e6, 1.0, 0.1);
    EXPECT_EQ(fit.model, BytesModel::Ideal);  // compute-bound under ideal and chunked alike: the first wins
    const double small[3] = {1e6, 2e6, 3e6};
    EXPECT_TRUE(fit_bytes_model(flops, small, 5e6, 1.0, 0.1).tie);  // all compute-bound: nothing to tell
}

TEST(Attention, OurOwnRunsSpecGivesTheCausalFlagTheTraceLacks) {
    // LibTorch's C++ profiler records no Concrete Inputs: the sdpa op alone cannot say is_causal.
    auto trace = [] {
        std::vector<TraceEvent> events{
            op("aten::scaled_dot_product_attention", 0, 100, 1, {{2, 8, 128, 64}, {2, 8, 128, 64}, {2, 8, 128, 64}})};
        return Trace::build(std::move(events), {}, {});
    };
    EXPECT_EQ(attention_instances(trace())[0].causal, -1);
    RunSpec spec;
    spec.batch = 2;
    spec.heads = spec.kv_heads = 8;
    spec.seq_q = spec.seq_k = 128;
    spec.mask = MaskKind::Causal;
    const auto causal = attention_instances(trace(), &spec);
    EXPECT_EQ(causal[0].causal, 1);
    EXPECT_DOUBLE_EQ(causal[0].pairs, 2 * 8 * 128 * 129 / 2.0);
    spec.mask = MaskKind::None;
    EXPECT_EQ(attention_instances(trace(), &spec)[0].causal, 0);
    spec.mask = MaskKind::Padding;  // a mask tensor: which pairs it hides is data, and our spec has it
    spec.key_lengths = {128, 64};
    const AttentionInstance padded = attention_instances(trace(), &spec)[0];
    EXPECT_EQ(padded.causal, -1);
    EXPECT_EQ(causal_text(padded), "padding");
    EXPECT_DOUBLE_EQ(padded.pairs, 8 * 128 * (128 + 64));
    EXPECT_DOUBLE_EQ(padded.flops, attention_flops(with_variant(spec, "sdpa")) / 3);  // train counts 3x the forward
    spec.key_lengths.clear();
    spec.mask = MaskKind::Causal;
    spec.seq_q = spec.seq_k = 256;  // another shape (the chunked variant's blocks): not this spec's call
    EXPECT_EQ(attention_instances(trace(), &spec)[0].causal, -1);
    // The manual pattern's backward (autograd nodes, no mask op among them) takes the spec's window too.
    RunSpec manual;
    manual.batch = 1;
    manual.heads = manual.kv_heads = 2;
    manual.seq_q = manual.seq_k = 64;
    manual.head_dim = 16;
    manual.mask = MaskKind::Window;
    manual.window = 16;
    const auto calls =
        attention_instances(import_chrome_trace(test::trace_fixture("torch2/manual_train.json")).trace, &manual);
    ASSERT_FALSE(calls.empty());
    for (const AttentionInstance& a : calls) {
        if (!a.backward) continue;
        EXPECT_EQ(a.window, 16);
        EXPECT_EQ(causal_text(a), "window 16");
        EXPECT_DOUBLE_EQ(a.pairs, 2 * visible_pairs(64, 64, true, 16));
    }
}
