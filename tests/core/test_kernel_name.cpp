// Kernel names for display: Itanium names demangled (ROCm's CK, cuDNN's CUTLASS convolutions), and long
// names of one family shortened to what tells them apart (tile sizes, layouts), on real names cut from
// the public traces (tests/fixtures/kernel_names/README.md).
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "model/kernel_name.h"

using namespace awb;

namespace {

std::vector<std::string> fixture_lines(const std::string& file) {
    std::ifstream in(std::string(AWB_FIXTURE_DIR) + "/kernel_names/" + file);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) out.push_back(line);
    return out;
}

// Three of the A100 trace's CUTLASS GEMMs (hta/a100_nccl.json.gz): the same text but for tiles and layouts.
const std::vector<std::string> kCutlass = {
    "void "
    "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>(cutlass_80_tensorop_s1688gemm_256x64_16x4_n"
    "n_align4::Params)",
    "void "
    "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nt_align4>(cutlass_80_tensorop_s1688gemm_256x64_16x4_n"
    "t_align4::Params)",
    "void "
    "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_"
    "align4::Params)",
};

}  // namespace

TEST(KernelName, DemanglesItaniumNamesAndLeavesOthers) {
    EXPECT_EQ(demangled_kernel_name("_Z3fooi"), "foo(int)");
    EXPECT_EQ(demangled_kernel_name("_Z3fooi.kd"), "foo(int)");  // ROCm's kernel descriptor suffix
    EXPECT_EQ(demangled_kernel_name(kCutlass[0]), kCutlass[0]);  // CUDA's traces are mostly demangled already
    EXPECT_EQ(demangled_kernel_name("_Znot_a_symbol"), "_Znot_a_symbol");
    EXPECT_EQ(demangled_kernel_name("ampere_sgemm_128x64_nn"), "ampere_sgemm_128x64_nn");
    // CK's RMSNorm on bf16 (std::bfloat16_t, mangled DF16b): GCC 12's demangler has no DF16b (GCC 13's
    // and binutils 2.40's have), nor has LLVM 14's: then the name stays as it is, whole.
    const std::vector<std::string> ck = fixture_lines("ck_tile_rmsnorm_mangled.txt");
    ASSERT_EQ(ck.size(), 1u) << "tests/fixtures/kernel_names/ck_tile_rmsnorm_mangled.txt";
    const std::string name = demangled_kernel_name(ck[0]);
    EXPECT_TRUE(name == ck[0] ||
                name.rfind("void ck_tile::kentry<1, ck_tile::Rmsnorm2dFwd<ck_tile::Rmsnorm2dFwdPipelineOnePass<", 0) ==
                    0)
        << name;
    EXPECT_EQ(demangled_kernel_name(ck[0]), name);  // cached: the same again
}

TEST(KernelName, DemanglesNamesOverLibstdcxxsLimit) {
    const std::vector<std::string> conv = fixture_lines("cutlass_cudnn_wgrad_mangled.txt");
    ASSERT_EQ(conv.size(), 1u);
    ASSERT_GT(conv[0].size(), 1024u);
    const std::string name = demangled_kernel_name(conv[0]);
#if defined(AWB_LONG_NAMES_DEMANGLE)
    EXPECT_EQ(
        name.rfind("void cutlass_cudnn_train::Kernel<cutlass_cudnn_train::conv::kernel::ImplicitGemmConvolution<", 0),
        0u)
        << name;
    EXPECT_NE(name.find("Conv2dWgradOutputGradientTileAccessIteratorOptimized"), std::string::npos);
#else
    EXPECT_EQ(name, conv[0]);  // built without libLLVMDemangle: shown as it is, never cut
    GTEST_SKIP() << "built without libLLVMDemangle (llvm-14-dev): names over 1024 characters stay mangled";
#endif
}

TEST(KernelName, MiddleElisionLosesTheTilesTheElisionKeepsThem) {
    const std::vector<std::string> shown = elide_kernel_names(kCutlass, 40);
    ASSERT_EQ(shown.size(), 3u);
    EXPECT_EQ(std::set<std::string>(shown.begin(), shown.end()).size(), 3u);
    const char* tiles[] = {"256x64_16x4_nn", "256x64_16x4_nt", "64x64_16x6_tn"};
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(elide_middle(kCutlass[i], 40).find(std::string(tiles[i]).substr(0, 6)), std::string::npos)
            << "the issue";
        EXPECT_LE(display_length(shown[i]), 40u) << shown[i];
        EXPECT_NE(shown[i].find(tiles[i]), std::string::npos) << shown[i];
        EXPECT_EQ(shown[i].rfind("cutlass::Kernel", 0), 0u) << shown[i];  // the return type goes, the function stays
        EXPECT_NE(shown[i].find("\xE2\x80\xA6"), std::string::npos) << shown[i];  // "…" says where text went
    }
}

TEST(KernelName, TensileKernelsKeepTheirTileSizes) {
    const std::vector<std::string> cijk = fixture_lines("tensile_cijk.txt");
    ASSERT_EQ(cijk.size(), 4u);
    const std::vector<std::string> shown = elide_kernel_names(cijk, 60);
    EXPECT_EQ(std::set<std::string>(shown.begin(), shown.end()).size(), cijk.size());
    for (size_t i = 0; i < cijk.size(); ++i) {
        const size_t mt = cijk[i].find("_MT") + 1;
        const std::string tile = cijk[i].substr(mt, cijk[i].find('_', mt) - mt);  // "MT128x192x64"
        EXPECT_NE(shown[i].find(tile), std::string::npos) << shown[i] << " lacks " << tile;
        EXPECT_LE(display_length(shown[i]), 60u);
    }
}

TEST(KernelName, ShortNamesStayAndStrangersGetMiddleElision) {
    const std::vector<std::string> names = {"ampere_sgemm_128x64_nn", "volta_sgemm_64x64_tn", kCutlass[0]};
    const std::vector<std::string> shown = elide_kernel_names(names, 56);
    EXPECT_EQ(shown[0], names[0]);
    EXPECT_EQ(shown[1], names[1]);
    EXPECT_EQ(shown[2].rfind("cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_", 0), 0u)
        << shown[2];  // alone: its start
    const KernelNameElider elider(names);
    EXPECT_EQ(elider.shown(kCutlass[1], 21), "void cutla…4::Params)");  // not given: middle elision
    EXPECT_EQ(elide_middle("abcdef", 6), "abcdef");
    EXPECT_EQ(elide_middle("abcdefgh", 5), "ab…gh");
    EXPECT_EQ(display_length("ab…gh"), 5u);
}
