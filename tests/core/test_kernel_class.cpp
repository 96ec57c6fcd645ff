// Kernel classes: real kernel names (CUDA, from our fixtures and PyTorch 2.x's SDPA backends), ROCm
// names, and the launching op deciding where the name does not (the SDPA math path, aten::mm).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "analysis/kernel_class.h"
#include "analysis/kernel_class_rules.h"
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
    EXPECT_EQ(
        kernel(
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_ker"
            "nel__5x_cublas"),
        KernelClass::Gemm);
    EXPECT_EQ(kernel("nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTN"), KernelClass::Gemm);
    EXPECT_EQ(
        kernel("void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8>(Params)"),
        KernelClass::Gemm);
    EXPECT_EQ(
        kernel("void (anonymous namespace)::softmax_warp_forward<float, float, float, 7, false, false>(float*, float "
               "const*, int, int, int)"),
        KernelClass::Softmax);
    EXPECT_EQ(
        kernel(
            "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float>(float*, float const*, "
            "int)"),
        KernelClass::Softmax);
    EXPECT_EQ(kernel("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
                     "cutlass::bfloat16_t>>(Flash_fwd_params)"),
              KernelClass::AttentionFlash);
    EXPECT_EQ(
        kernel("void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128>>(Flash_bwd_params)"),
        KernelClass::AttentionFlash);
    EXPECT_EQ(
        kernel(
            "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t>::P"
            "arams)"),
        KernelClass::AttentionMemEfficient);
    EXPECT_EQ(kernel("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x128_4x1x1_kernel0_0"),
              KernelClass::AttentionCudnn);
    EXPECT_EQ(
        kernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, "
               "1ul>>(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)"),
        KernelClass::Elementwise);
    EXPECT_EQ(
        kernel("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
               "at::native::sum_functor<float, float, float>::operator()>>>"),
        KernelClass::Reduction);
    EXPECT_EQ(
        kernel("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float "
               "const*)"),
        KernelClass::Normalization);
    EXPECT_EQ(kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"),
              KernelClass::Communication);
    EXPECT_EQ(kernel("triton_poi_fused_add_mul_0"), KernelClass::Elementwise);
    EXPECT_EQ(kernel("triton_red_fused_sum_1"), KernelClass::Reduction);
    EXPECT_EQ(kernel("triton_tem_fused_mm_2"), KernelClass::Gemm);
    EXPECT_EQ(classify_kernel("Memcpy DtoH (Device -> Pageable)", EventKind::Memcpy), KernelClass::Memcpy);
    EXPECT_EQ(classify_kernel("Memset (Device)", EventKind::Memset), KernelClass::Memset);
    EXPECT_EQ(kernel("my_custom_kernel"), KernelClass::Other);
}

TEST(KernelClass, RocmNames) {
    EXPECT_EQ(kernel("Cijk_Alik_Bljk_SB_MT64x64x16_MI32x32x2x1_SN_1LDSB0_GRVW4_GSU1_ISA90a"),
              KernelClass::Gemm);  // Tensile
    EXPECT_EQ(kernel("void rcclGenericKernel<1, false>(ncclDevComm*, unsigned long, ncclWork*)"),
              KernelClass::Communication);
    EXPECT_EQ(kernel("__amd_rocclr_copyBuffer"), KernelClass::Memcpy);
    EXPECT_EQ(kernel("__amd_rocclr_fillBufferAligned"), KernelClass::Memset);
    EXPECT_EQ(kernel("void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3>(ck::Argument)"),
              KernelClass::Gemm);
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
    std::vector<TraceEvent> events{op("aten::_scaled_dot_product_attention_math", 0, 100, 1),
                                   op("aten::bmm", 10, 50, 2), op("aten::mm", 200, 300, 3), k, plain};
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
    EXPECT_TRUE(std::is_sorted(classes.begin(), classes.end(),
                               [](const KernelRow& a, const KernelRow& b) { return a.total_ns > b.total_ns; }));
}

// From the kernel lists of the public traces (../shared/public-traces): FBGEMM's embeddings
// are not GEMMs; convolutions are a class (cuDNN's fprop/dgrad/wgrad and implicit-GEMM kernels, MIOpen's,
// CK's); cuDNN's batch norm is normalization; CK's FMHA is FlashAttention's algorithm.
TEST(KernelClass, PublicTraceNames) {
    EXPECT_EQ(kernel("void split_embedding_codegen_forward_unweighted_kernel<float, float, float, long, "
                     "2ul>(at::GenericPackedTensorAccessor<float, "
                     "1ul, at::RestrictPtrTraits, long>, fbgemm_gpu::FixedDivisor)"),
              KernelClass::Embedding);
    EXPECT_EQ(
        kernel("void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_warp_per_row_1<float, float, "
               "float, 2ul>(int)"),
        KernelClass::Embedding);
    EXPECT_NE(kernel("void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*, int const*, int*)"),
              KernelClass::Gemm);
    EXPECT_EQ(kernel("void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*)"),
              KernelClass::Elementwise);  // not an embedding
    EXPECT_EQ(
        kernel(
            "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nchwkcrs_nchw_tilesize128x128x16_stage4_warpsi"
            "ze2x2x1_g1_tensor16x8x8_"
            "alignc4_execute_kernel_cudnn"),
        KernelClass::Convolution);
    EXPECT_EQ(
        kernel(
            "sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x64x64_stage3_warpsize"
            "2x2x1_g1_tensor16x8x8_"
            "execute_kernel_cudnn"),
        KernelClass::Convolution);
    EXPECT_EQ(
        kernel("void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688dgrad_optimized_tf32_64x128_32x3_nhwc_align4>("
               "cutlass_tensorop_s1688dgrad_optimized_tf32_64x128_32x3_nhwc_align4::Params)"),
        KernelClass::Convolution);
    EXPECT_EQ(kernel("cudnn_infer_volta_scudnn_128x64_relu_medium_nn_v1"), KernelClass::Convolution);
    EXPECT_EQ(kernel("void cudnn::winograd_nonfused::winogradForwardData4x4<float, "
                     "float>(cudnn::winograd_nonfused::WinogradDataParams<float, float>)"),
              KernelClass::Convolution);
    EXPECT_EQ(
        kernel(
            "igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_1x4x1x64_tb1x8x2x1_1x4x1x"
            "64_gkgs"),
        KernelClass::Convolution);
    EXPECT_EQ(
        kernel(
            "_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_fwd_xdl_cshuffle_v3INS_28GridwiseGemm"
            "_xdl_cshuffle_v3E"),
        KernelClass::Convolution);
    EXPECT_EQ(
        kernel("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1, true>(cudnnTensorStruct, float "
               "const*)"),
        KernelClass::Normalization);
    EXPECT_EQ(kernel("void cudnn::bn_bw_1C11_singleread<float, 512, true, 1, 2, 0>(float, float, float, float, "
                     "cudnnTensorStruct)"),
              KernelClass::Normalization);
    EXPECT_EQ(kernel("_ZN7ck_tile6kentryILi1ENS_13FmhaFwdKernelINS_25BlockFmhaPipelineQRKSVSAsyncE"),
              KernelClass::AttentionFlash);
    EXPECT_EQ(kernel("void ck_tile::kentry<1, ck_tile::FmhaBatchPrefillWithPagedKVCacheKernel<...>>"),
              KernelClass::AttentionFlash);
    EXPECT_EQ(kernel("ck_tile::fmha_fwd_splitkv_combine<...>"), KernelClass::AttentionFlash);  // by name, no rule
    EXPECT_EQ(
        kernel(
            "fmha_cutlassB_f32_aligned_64x64_k64_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<cutlass::arch::"
            "Sm80>::Params)"),
        KernelClass::AttentionMemEfficient);
    // A GEMM under a convolution op is the convolution's (cuDNN's FFT convolution runs a complex GEMM).
    EXPECT_EQ(kernel("ampere_gcgemm_64x64_nt", "aten::cudnn_convolution"), KernelClass::Convolution);
    EXPECT_EQ(classify_kernel("ampere_sgemm_128x64_nn", EventKind::Kernel, "aten::mm", false, false, true),
              KernelClass::Convolution);
    EXPECT_EQ(kernel("ampere_gcgemm_64x64_nt", "aten::mm"), KernelClass::Gemm);
    EXPECT_EQ(kernel("void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, long)",
                     "aten::native_layer_norm_backward"),
              KernelClass::Normalization);
    EXPECT_TRUE(is_convolution_op("aten::convolution_backward"));
    EXPECT_TRUE(is_convolution_op("aten::conv2d"));
    EXPECT_FALSE(is_convolution_op("aten::convert_element_type"));
    EXPECT_EQ(class_key(KernelClass::Convolution), "convolution");
    EXPECT_EQ(class_key(KernelClass::Embedding), "embedding");
}

// On kernels cut from HTA's A100 trace with their launching ops (tests/fixtures/traces/kernel_names):
// the convolution's own kernels (layout transposes, offsets, the split-K reduction) follow its op.
TEST(KernelClass, A100TraceConvolutionsAndBatchNorm) {
    const ImportedTrace t =
        import_chrome_trace(std::string(AWB_FIXTURE_DIR) + "/traces/kernel_names/a100_nccl_kernels.json.gz");
    std::map<std::string, KernelClass> by_name;
    for (const KernelRow& r : kernel_table(t.trace)) by_name[r.name] = r.cls;
    ASSERT_EQ(by_name.size(), 70u);
    int conv = 0, norm = 0, other = 0;
    for (const auto& [name, cls] : by_name) {
        conv += cls == KernelClass::Convolution;
        norm += cls == KernelClass::Normalization;
        other += cls == KernelClass::Other;
        if (name.find("cudnn::bn_") != std::string::npos) {
            EXPECT_EQ(cls, KernelClass::Normalization) << name;
        }
        if (name.find("_ZN19cutlass_cudnn_train") == 0) {
            EXPECT_EQ(cls, KernelClass::Convolution) << name;
        }
        if (name.find("nchwToNhwcKernel") != std::string::npos ||
            name.find("cutlass_80_tensorop_s1688gemm") != std::string::npos) {
            EXPECT_EQ(cls, KernelClass::Convolution) << name;  // launched by aten::cudnn_convolution: its work
        }
    }
    std::printf("a100_nccl kernels: %d convolution, %d normalization, %d other of %zu\n", conv, norm, other,
                by_name.size());
    EXPECT_GE(conv, 20);
    EXPECT_GE(norm, 8);
}

// The rules are one table: every class but other has a rule, the class list names them all, and the
// order decides (a rotary embedding is elementwise, FBGEMM's kernels are no GEMMs).
TEST(KernelClass, OneTableOfRulesReachesEveryClass) {
    std::set<KernelClass> reached;
    for (const KernelClassRule& r : kernel_class_rules()) reached.insert(r.cls);
    for (int c = 0; c < kKernelClassCount; ++c) {
        if (KernelClass(c) != KernelClass::Other) {
            EXPECT_TRUE(reached.count(KernelClass(c))) << to_string(KernelClass(c));
        }
    }
    const std::string names = kernel_class_names();
    for (const char* c : {"GEMM", "convolution", "attention (other)", "embedding", "communication", "memset", "other"})
        EXPECT_NE(names.find(c), std::string::npos) << c;
    EXPECT_EQ(kernel("void fbgemm_gpu::split_embedding_codegen_forward_kernel<float>"), KernelClass::Embedding);
    EXPECT_EQ(kernel("void vllm::rotary_embedding_kernel<c10::BFloat16, true>"), KernelClass::Elementwise);
    const std::string text = format_kernel_class_rules();
    EXPECT_NE(text.find(" 5. communication\n"), std::string::npos) << text;
    EXPECT_NE(text.find("(fbgemm aside)"), std::string::npos);
}
