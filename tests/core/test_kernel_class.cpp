// Kernel classes: real kernel names (CUDA, from our fixtures and PyTorch 2.x's SDPA backends), ROCm
// names, and the launching op deciding where the name does not (the SDPA math path, aten::mm).
#include <gtest/gtest.h>

#include <map>

#include "analysis/kernel_class.h"
#include "analysis/kernel_table.h"
#include "io/trace_import.h"

using namespace awb;

namespace {

KernelClass kernel(const char* name, std::string_view op = {}, bool math = false) {
    return classify_kernel(name, EventKind::Kernel, op, math);
}

}  // namespace

TEST(KernelClass, CudaNames) {
    EXPECT_EQ(kernel("ampere_sgemm_128x64_nn"), KernelClass::Gemm);
    EXPECT_EQ(kernel("volta_sgemm_128x64_nn"), KernelClass::Gemm);
    EXPECT_EQ(kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"),
              KernelClass::Gemm);
    EXPECT_EQ(kernel("nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTN"), KernelClass::Gemm);
    EXPECT_EQ(kernel("void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8>(Params)"),
              KernelClass::Gemm);
    EXPECT_EQ(kernel("void (anonymous namespace)::softmax_warp_forward<float, float, float, 7, false, false>(float*, float const*, int, int, int)"),
              KernelClass::Softmax);
    EXPECT_EQ(kernel("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float>(float*, float const*, int)"),
              KernelClass::Softmax);
    EXPECT_EQ(kernel("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>>(Flash_fwd_params)"),
              KernelClass::AttentionFlash);
    EXPECT_EQ(kernel("void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128>>(Flash_bwd_params)"),
              KernelClass::AttentionFlash);
    EXPECT_EQ(kernel("fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t>::Params)"),
              KernelClass::AttentionMemEfficient);
    EXPECT_EQ(kernel("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x128_4x1x1_kernel0_0"),
              KernelClass::AttentionCudnn);
    EXPECT_EQ(kernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul>>(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)"),
              KernelClass::Elementwise);
    EXPECT_EQ(kernel("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()>>>"),
              KernelClass::Reduction);
    EXPECT_EQ(kernel("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*)"),
              KernelClass::Normalization);
    EXPECT_EQ(kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"), KernelClass::Communication);
    EXPECT_EQ(kernel("triton_poi_fused_add_mul_0"), KernelClass::Elementwise);
    EXPECT_EQ(kernel("triton_red_fused_sum_1"), KernelClass::Reduction);
    EXPECT_EQ(kernel("triton_tem_fused_mm_2"), KernelClass::Gemm);
    EXPECT_EQ(classify_kernel("Memcpy DtoH (Device -> Pageable)", EventKind::Memcpy), KernelClass::Memcpy);
    EXPECT_EQ(classify_kernel("Memset (Device)", EventKind::Memset), KernelClass::Memset);
    EXPECT_EQ(kernel("my_custom_kernel"), KernelClass::Other);
}

TEST(KernelClass, RocmNames) {
    EXPECT_EQ(kernel("Cijk_Alik_Bljk_SB_MT64x64x16_MI32x32x2x1_SN_1LDSB0_GRVW4_GSU1_ISA90a"), KernelClass::Gemm);  // Tensile
    EXPECT_EQ(kernel("void rcclGenericKernel<1, false>(ncclDevComm*, unsigned long, ncclWork*)"), KernelClass::Communication);
    EXPECT_EQ(kernel("__amd_rocclr_copyBuffer"), KernelClass::Memcpy);
    EXPECT_EQ(kernel("__amd_rocclr_fillBufferAligned"), KernelClass::Memset);
    EXPECT_EQ(kernel("void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3>(ck::Argument)"), KernelClass::Gemm);
}

TEST(KernelClass, LaunchingOpDecidesWhereTheNameDoesNot) {
    // The SDPA math path's bmm and softmax kernels are attention (math); elsewhere they keep their class.
    EXPECT_EQ(kernel("ampere_sgemm_128x64_nn", "aten::bmm", true), KernelClass::AttentionMath);
    EXPECT_EQ(kernel("some_kernel", "aten::mm"), KernelClass::Gemm);
    EXPECT_EQ(kernel("some_kernel", "aten::_softmax"), KernelClass::Softmax);
    EXPECT_EQ(kernel("some_kernel", "aten::native_layer_norm"), KernelClass::Normalization);
    EXPECT_EQ(kernel("some_kernel", "aten::sum"), KernelClass::Reduction);
    EXPECT_EQ(kernel("some_kernel", "aten::add"), KernelClass::Elementwise);
    EXPECT_EQ(kernel("some_kernel", "aten::unknown_op"), KernelClass::Other);
    // A trace: the kernel's External id leads to aten::bmm, nested in the math path.
    auto op = [](const char* name, int64_t s, int64_t e, int64_t id) {
        TraceEvent ev;
        ev.name = name;
        ev.start_ns = s;
        ev.end_ns = e;
        ev.thread = 1;
        ev.correlation_id = id;
        return ev;
    };
    TraceEvent k;
    k.name = "ampere_sgemm_128x64_nn";
    k.kind = EventKind::Kernel;
    k.device = DeviceKind::CUDA;
    k.device_index = 0;
    k.start_ns = 500;
    k.end_ns = 600;
    k.thread = 7;
    k.linked_correlation_id = 2;
    TraceEvent plain = k;
    plain.start_ns = 700;
    plain.end_ns = 800;
    plain.linked_correlation_id = 3;
    std::vector<TraceEvent> events{op("aten::_scaled_dot_product_attention_math", 0, 100, 1), op("aten::bmm", 10, 50, 2),
                                   op("aten::mm", 200, 300, 3), k, plain};
    const Trace trace = Trace::build(std::move(events), {}, {});
    const std::vector<KernelRow> rows = kernel_table(trace);
    ASSERT_EQ(rows.size(), 2u);  // the same kernel, split by class
    std::map<KernelClass, int64_t> calls;
    for (const auto& r : rows) calls[r.cls] += r.calls;
    EXPECT_EQ(calls[KernelClass::AttentionMath], 1);
    EXPECT_EQ(calls[KernelClass::Gemm], 1);
}

TEST(KernelClass, RealTraceKernelsByClass) {
    const ImportedTrace t = import_chrome_trace(std::string(AWB_FIXTURE_DIR) + "/traces/kineto_gpu_2x.json");
    const std::vector<KernelRow> rows = kernel_table(t.trace);
    const std::vector<KernelRow> classes = kernels_by_class(rows);
    int64_t total = 0, calls = 0, class_total = 0, class_calls = 0;
    for (const auto& r : rows) {
        total += r.total_ns;
        calls += r.calls;
    }
    std::map<KernelClass, int64_t> by;
    for (const auto& c : classes) {
        class_total += c.total_ns;
        class_calls += c.calls;
        by[c.cls] = c.calls;
        EXPECT_EQ(c.name, to_string(c.cls));
    }
    EXPECT_EQ(class_total, total);  // every kernel in exactly one class
    EXPECT_EQ(class_calls, calls);
    EXPECT_EQ(by[KernelClass::Gemm], 2);           // ampere_sgemm_128x64_nn, ampere_sgemm_64x64_nn
    EXPECT_EQ(by[KernelClass::Softmax], 2);        // softmax_warp_forward, softmax_warp_backward
    EXPECT_EQ(by[KernelClass::Communication], 1);  // the all-reduce
    EXPECT_EQ(by[KernelClass::Memcpy], 1);
    EXPECT_EQ(by[KernelClass::Memset], 1);
    EXPECT_TRUE(std::is_sorted(classes.begin(), classes.end(), [](const KernelRow& a, const KernelRow& b) { return a.total_ns > b.total_ns; }));
}
