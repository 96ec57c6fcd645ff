#include "model/sweep.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace awb {

namespace {

template <typename T>
void check_list(const std::vector<T>& values, const char* field, std::vector<SpecProblem>& out) {
    std::set<T> seen;
    for (const auto& v : values) {
        if constexpr (std::is_arithmetic_v<T>)
            if (v <= 0) out.push_back({field, std::to_string(v) + " must be a positive integer"});
        if (!seen.insert(v).second) out.push_back({field, "lists a value twice"});
    }
}

template <typename T>
std::vector<T> or_base(const std::vector<T>& values, T base) {
    return values.empty() ? std::vector<T>{base} : values;
}

std::vector<int64_t> scaled_key_lengths(const RunSpec& base, int64_t batch, int64_t n) {
    std::vector<int64_t> out;
    if (base.key_lengths.empty()) return out;
    for (int64_t b = 0; b < batch; ++b) {
        const double len = double(base.key_lengths[size_t(b) % base.key_lengths.size()]);
        const double scaled = base.seq_k > 0 ? std::round(len * double(n) / double(base.seq_k)) : len;
        out.push_back(std::clamp<int64_t>(int64_t(scaled), 1, n));
    }
    return out;
}

}  // namespace

std::string series_name(const RunSpec& s) {
    std::string heads = std::to_string(s.heads);
    if (s.kv_heads != s.heads) heads += "/" + std::to_string(s.kv_heads);
    std::string name = s.variant + " " + to_string(s.dtype) + " " + std::to_string(s.batch) + "x" + heads + "xNx" +
                       std::to_string(s.head_dim) + " " + to_string(s.mode);
    if (s.mask != MaskKind::None) name += " " + to_string(s.mask);
    if (s.mask == MaskKind::Window) name += " " + std::to_string(s.window);
    if (s.variant == "chunked") name += " block " + std::to_string(s.block_size);
    return name;
}

std::string to_string(PointStatus s) {
    switch (s) {
        case PointStatus::Ok: return "ok";
        case PointStatus::Refused: return "refused";
        case PointStatus::Failed: return "failed";
        case PointStatus::Cancelled: return "cancelled";
    }
    return "?";
}

bool parse_point_status(const std::string& s, PointStatus& out) {
    for (auto v : {PointStatus::Ok, PointStatus::Refused, PointStatus::Failed, PointStatus::Cancelled})
        if (to_string(v) == s) {
            out = v;
            return true;
        }
    return false;
}

std::vector<SpecProblem> validate(const SweepPlan& p) {
    std::vector<SpecProblem> out;
    check_list(p.seq_lengths, "seq", out);
    check_list(p.batches, "batch", out);
    check_list(p.heads, "heads", out);
    check_list(p.head_dims, "head_dim", out);
    check_list(p.variants, "variants", out);
    check_list(p.dtypes, "dtypes", out);
    for (auto& problem : validate(p.bench)) out.push_back(std::move(problem));
    if (p.profile)
        for (auto& problem : validate(p.profile_options)) out.push_back(std::move(problem));
    return out;
}

std::vector<RunSpec> expand(const SweepPlan& p) {
    std::vector<RunSpec> out;
    const RunSpec& b = p.base;
    for (Dtype dtype : or_base(p.dtypes, b.dtype))
        for (int64_t batch : or_base(p.batches, b.batch))
            for (int64_t heads : or_base(p.heads, b.heads))
                for (int64_t head_dim : or_base(p.head_dims, b.head_dim))
                    for (int64_t n : p.seq_lengths.empty() ? std::vector<int64_t>{-1} : p.seq_lengths)
                        for (const auto& variant : or_base(p.variants, b.variant)) {
                            RunSpec s = with_variant(b, variant);
                            s.dtype = dtype;
                            s.batch = batch;
                            s.heads = heads;
                            s.kv_heads = b.kv_heads == b.heads ? heads : b.kv_heads;
                            s.head_dim = head_dim;
                            if (n > 0) s.seq_q = s.seq_k = n;
                            if (s.mask == MaskKind::Padding) s.key_lengths = scaled_key_lengths(b, batch, s.seq_k);
                            out.push_back(std::move(s));
                        }
    return out;
}

}  // namespace awb
