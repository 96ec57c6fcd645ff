#include "model/variant_catalog.h"

namespace awb {

const std::vector<VariantInfo>& variant_catalog() {
    static const std::vector<VariantInfo> catalog = {
        {"manual", "the article's three lines: softmax(Q K^T / sqrt(d)) V, mask applied with masked_fill(-inf)", 3, 6},
        {"sdpa",
         "PyTorch's scaled_dot_product_attention: on LibTorch 2.x a fused kernel that never holds [N, N] "
         "(flash on CPU; flash, memory-efficient or cuDNN on CUDA; --sdpa-backend picks one), on LibTorch "
         "1.13 the math path, which materialises the scores like manual",
         3, 6},
        {"chunked",
         "blockwise attention with an online softmax (running max and sum) over query and key blocks of "
         "block_size, never holding the [N, N] scores; its backward recomputes each block from the saved "
         "log-sum-exp (FlashAttention's algorithm in LibTorch ops)",
         6, 10, true},
    };
    return catalog;
}

const VariantInfo* find_variant(std::string_view name) {
    for (const auto& v : variant_catalog())
        if (v.name == name) return &v;
    return nullptr;
}

std::string variant_names() {
    std::string out;
    for (const auto& v : variant_catalog()) {
        if (!out.empty()) out += ", ";
        out += v.name;
    }
    return out;
}

}  // namespace awb
