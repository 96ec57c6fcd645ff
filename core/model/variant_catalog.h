// The attention variants the engine knows, as plain data: names, what each computes and how many
// [B,H,Nq,Nk]-sized buffers it keeps alive at its peak (for the memory estimate). The torch
// implementations live in variants.cpp; a test checks that both lists agree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace awb {

struct VariantInfo {
    std::string name;
    std::string description;
    int score_buffers_forward;  // [B,H,Nq,Nk] tensors alive at the forward peak
    int score_buffers_train;    // ... during forward + backward
    bool blockwise = false;     // buffers are [B,H,block,block] (chunked), not [B,H,Nq,Nk]
};

const std::vector<VariantInfo>& variant_catalog();
const VariantInfo* find_variant(std::string_view name);
std::string variant_names();  // "manual, sdpa, chunked"

}  // namespace awb
