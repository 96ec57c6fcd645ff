// The op recogniser: SDPA's ops and the libraries' and engines' ops, by the table's op rules
// (attention_rules.h). The outermost matching op is the call; matching ops inside it name its backend
// and fill in what the outer one did not record (an engine's layer op holding its backend's op).
#include <array>
#include <optional>
#include <unordered_map>

#include "analysis/attention_detail.h"
#include "analysis/attention_rules.h"

namespace awb::attention_detail {

namespace {

constexpr std::string_view kPackedLengths =
    "the sequences' lengths in a packed batch (cu_seqlens values) are not in the trace";

// (batch, heads, sequence, head dim) of a dense Q, K or V input; unbatched [H, N, D] is batch 1.
std::optional<std::array<int64_t, 4>> bhnd(const std::vector<int64_t>* d, bool bnhd) {
    if (!d || d->size() < 3 || d->size() > 4) return std::nullopt;
    const std::vector<int64_t>& x = *d;
    if (x.size() == 3)
        return bnhd ? std::array<int64_t, 4>{1, x[1], x[0], x[2]} : std::array<int64_t, 4>{1, x[0], x[1], x[2]};
    return bnhd ? std::array<int64_t, 4>{x[0], x[2], x[1], x[3]} : std::array<int64_t, 4>{x[0], x[1], x[2], x[3]};
}

// What an op's inputs say under a rule.
struct Reading {
    AttentionLayout layout = AttentionLayout::Dense;
    AttentionShape shape;
    int64_t query_tokens = -1, key_tokens = -1;
    bool decode = false;
    std::string kv_dtype;
    std::string missing;
};

// How many of the numbers the cost needs are unknown.
int unknowns(const AttentionShape& s, int64_t query_tokens) {
    return (s.batch <= 0) + (s.heads_q <= 0) + (s.heads_kv <= 0) + (s.seq_q <= 0) + (s.seq_k <= 0) + (s.head_dim <= 0) +
           (query_tokens <= 0);
}

// The (heads, head dim) positions of a cache's K and V dims by its layout; -1 where not read.
struct CacheDims {
    size_t rank;
    int heads, k_dim, v_dim;
};
CacheDims cache_dims(KvSource kv, size_t rank) {
    switch (kv) {
        case KvSource::BlockNHD:
            return rank == 3 ? CacheDims{3, 1, 2, 2} : CacheDims{4, 2, 3, 3};  // [slots, Hkv, D] is pages of one
        case KvSource::BlockHND: return {4, 1, 3, 3};
        case KvSource::SplitK: return {rank, 1, -1, 2};  // K [blocks, Hkv, D / x, block, x], V [blocks, Hkv, D, block]
        case KvSource::TokenPool:
        case KvSource::Hidden: return {3, 1, 2, 2};  // [slots or tokens, Hkv, D]
        case KvSource::Inputs:
        case KvSource::Opaque: break;
    }
    return {0, -1, -1, -1};
}

// K's heads and V's head dim from a paged cache.
void read_cache(const TraceEvent& e, const AttentionRule& r, KvSource kv, Reading& out) {
    const std::vector<int64_t>*k = input(e, r.k), *v = input(e, r.v);
    AttentionShape& s = out.shape;
    if (k) {
        const CacheDims d = cache_dims(kv, k->size());
        if (d.heads >= 0 && (d.rank == k->size() || kv == KvSource::SplitK)) s.heads_kv = (*k)[size_t(d.heads)];
    }
    if (v) {
        const CacheDims d = cache_dims(kv, v->size());
        if (d.v_dim >= 0 && d.rank == v->size()) s.head_dim_v = (*v)[size_t(d.v_dim)];
    }
    if (s.head_dim_v <= 0) s.head_dim_v = s.head_dim;
}

// The sequences of a packed or paged call: an offsets input (length + 1) or a lengths input.
int64_t sequences(const TraceEvent& e, const AttentionRule& r) {
    const std::vector<int64_t>*offsets = input(e, r.seqs), *lens = input(e, r.lens);
    if (offsets && offsets->size() == 1 && (*offsets)[0] >= 2) return (*offsets)[0] - 1;
    if (lens && lens->size() == 1 && (*lens)[0] >= 1) return (*lens)[0];
    return -1;
}

// K and V are a paged cache: the rule says so, or its block table was recorded.
KvSource kv_source(const TraceEvent& e, const AttentionRule& r) {
    return r.block_table >= 0 && input(e, r.block_table) ? KvSource::BlockNHD : r.kv;
}

void read_paged_kv(const TraceEvent& e, const AttentionRule& r, KvSource kv, Reading& out) {
    out.layout = AttentionLayout::Paged;
    read_cache(e, r, kv, out);
    out.shape.seq_k = -1;
    out.key_tokens = -1;
    out.missing = r.note.empty() ? "the KV lengths of the cache are not in the trace" : std::string(r.note);
}

Reading read_dense(const TraceEvent& e, const AttentionRule& r) {
    Reading out;
    const bool bnhd = r.layout == QkvLayout::BNHD;
    const auto q = bhnd(input(e, r.q), bnhd), k = bhnd(input(e, r.k), bnhd), v = bhnd(input(e, r.v), bnhd);
    const KvSource kv = kv_source(e, r);
    if (!q || (!k && kv == KvSource::Inputs)) {
        out.missing = "the op's input shapes were not recorded (record_shapes=True)";
        return out;
    }
    AttentionShape& s = out.shape;
    out.query_tokens = (*q)[0] * (*q)[2];
    if (kv != KvSource::Inputs) {  // a dense batch of queries against a paged cache
        s = {(*q)[0], (*q)[1], -1, (*q)[2], -1, (*q)[3], -1};
        out.decode = s.seq_q == 1;
        read_paged_kv(e, r, kv, out);
        return out;
    }
    s = {(*q)[0], (*q)[1], (*k)[1], (*q)[2], (*k)[2], (*q)[3], v ? (*v)[3] : (*q)[3]};
    out.key_tokens = s.batch * s.seq_k;
    return out;
}

Reading read_packed(const TraceEvent& e, const AttentionRule& r) {
    Reading out;
    const std::vector<int64_t>* q = input(e, r.q);
    if (!q || q->size() != 3) {
        out.missing = "the op's input shapes were not recorded (record_shapes=True)";
        return out;
    }
    AttentionShape& s = out.shape;
    out.query_tokens = (*q)[0];
    s.heads_q = (*q)[1];
    s.head_dim = (*q)[2];
    s.batch = sequences(e, r);
    const KvSource kv = kv_source(e, r);
    if (kv != KvSource::Inputs) {
        out.decode = s.batch > 0 && s.batch == out.query_tokens;
        if (out.decode) s.seq_q = 1;
        read_paged_kv(e, r, kv, out);
        return out;
    }
    out.layout = AttentionLayout::Varlen;
    const std::vector<int64_t>*k = input(e, r.k), *v = input(e, r.v);
    if (k && k->size() == 3) {
        out.key_tokens = (*k)[0];
        s.heads_kv = (*k)[1];
    }
    s.head_dim_v = v && v->size() == 3 ? (*v)[2] : s.head_dim;
    if (s.batch == 1) {  // one sequence: its lengths are the token counts
        s.seq_q = out.query_tokens;
        s.seq_k = out.key_tokens;
    } else {
        out.missing = kPackedLengths;
    }
    return out;
}

// The rule's Q layout, as this call records it: SageAttention names its layout in an argument; a
// 3-d Q of a [B, N, H, D] op with sequence offsets is packed.
QkvLayout layout_of(const TraceEvent& e, const AttentionRule& r) {
    const auto& c = e.concrete();
    if (r.layout_arg >= 0 && size_t(r.layout_arg) < c.size())
        return c[size_t(r.layout_arg)] == "0" ? QkvLayout::BNHD : QkvLayout::BHND;
    const std::vector<int64_t>* q = input(e, r.q);
    if (r.layout == QkvLayout::BNHD && r.seqs >= 0 && q && q->size() == 3) return QkvLayout::THD;
    return r.layout;
}

Reading read(const TraceEvent& e, const AttentionRule& rule) {
    AttentionRule r = rule;
    r.layout = layout_of(e, rule);
    Reading out;
    switch (r.layout) {
        case QkvLayout::BHND:
        case QkvLayout::BNHD: out = read_dense(e, r); break;
        case QkvLayout::THD: out = read_packed(e, r); break;
        case QkvLayout::None:
            out.missing = r.note.empty() ? "no shapes this op's rule reads" : std::string(r.note);
            return out;
    }
    // The KV's element type where it differs from Q's: V's (SageAttention: int8 K, fp8 V), else K's.
    const std::string q = dtype_of(e, r.q), k = dtype_of(e, r.k), v = dtype_of(e, r.v);
    out.kv_dtype = !v.empty() && v != q ? v : !k.empty() && k != q ? k : std::string();
    return out;
}

int causal_of(const TraceEvent& e, const AttentionRule& r) {
    const auto& c = e.concrete();
    int causal = -1;
    if (r.causal != CausalArg::None && r.causal_arg >= 0 && size_t(r.causal_arg) < c.size()) {
        const std::string& v = c[size_t(r.causal_arg)];
        if (r.causal == CausalArg::MaskType)
            causal = v == "0" ? 0 : v == "1" ? 1 : v == "2" ? 2 : -1;
        else
            causal = v == "True" || v == "1" ? 1 : v == "False" || v == "0" ? 0 : -1;
    }
    if (causal == 0 && input(e, r.mask_arg)) return -1;  // a mask tensor: which pairs it hides is data
    return causal;
}

// flash-attn's window_size_left: query i sees keys i - left .. i when causal, so a window of left + 1.
int64_t window_of(const TraceEvent& e, const AttentionRule& r, int causal) {
    const auto& c = e.concrete();
    if (causal != 1 || r.window_arg < 0 || size_t(r.window_arg) >= c.size()) return 0;
    const std::string& v = c[size_t(r.window_arg)];
    if (v.empty() || v[0] == '-') return 0;
    char* end = nullptr;
    const long long left = std::strtoll(v.c_str(), &end, 10);
    return end && *end == '\0' && left >= 0 ? left + 1 : 0;
}

void apply(AttentionInstance& call, const Reading& r) {
    call.layout = r.layout;
    call.shape = r.shape;
    call.query_tokens = r.query_tokens;
    call.key_tokens = r.key_tokens;
    call.decode = r.decode;
    call.kv_dtype = r.kv_dtype;
    call.missing = r.missing;
}

AttentionInstance new_call(const Calls& calls, int32_t i, const AttentionRule& r) {
    const TraceEvent& e = calls.events[size_t(i)];
    AttentionInstance call = calls.at(i);
    call.backend = r.backend;
    call.library = r.library;
    call.implementation = r.implementation;
    call.backward = r.backward;
    apply(call, read(e, r));
    call.causal = causal_of(e, r);
    call.window = window_of(e, r, call.causal);
    call.dtype = dtype_of(e, r.q);
    return call;
}

// An op inside a call: its backend names the call's (SDPA); what it records fills in what the outer op did not.
void refine(AttentionInstance& call, const TraceEvent& e, const AttentionRule& r) {
    if (r.backend != AttentionBackend::Unknown && r.backend != AttentionBackend::Library) call.backend = r.backend;
    if (r.backend == AttentionBackend::Library && call.backend == AttentionBackend::Library &&
        r.implementation != call.implementation && call.implementation.find(r.implementation) == std::string::npos)
        call.implementation += " > " + std::string(r.implementation);
    if (r.layout != QkvLayout::None) {
        const Reading inner = read(e, r);
        const bool outer_known = call.shape.known() || (call.missing.empty() && call.query_tokens > 0);
        if (!outer_known && unknowns(inner.shape, inner.query_tokens) < unknowns(call.shape, call.query_tokens))
            apply(call, inner);
    }
    if (call.causal < 0) call.causal = causal_of(e, r);
    if (call.window == 0) call.window = window_of(e, r, call.causal);
    if (call.dtype.empty()) call.dtype = dtype_of(e, r.q);
}

// The op's rule: an op rule, or a kernel rule with a layout when the op is the CPU side of that kernel's
// launch (Inductor names it after the Triton kernel: "sage_fwd_1" launches "sage_fwd"), so that a
// captured launch, whose kernel never runs in the capture trace, is a call with its shapes too.
const AttentionRule* op_rule(const TraceEvent& e) {
    if (const AttentionRule* r = match_op_rule(e.name.view())) return r;
    if (e.kind != EventKind::CpuOp || e.shapes().empty()) return nullptr;
    const AttentionRule* r = match_kernel_rule(e.name.view());
    return r && r->layout != QkvLayout::None ? r : nullptr;
}

}  // namespace

void find_op_calls(Calls& calls) {
    const auto& events = calls.events;
    std::unordered_map<const char*, const AttentionRule*> rule_of;  // per distinct (interned) name
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& e = events[i];
        if (e.device != DeviceKind::CPU || (e.kind != EventKind::CpuOp && e.kind != EventKind::UserAnnotation))
            continue;
        auto [it, added] = rule_of.try_emplace(e.name.data(), nullptr);
        if (added) it->second = op_rule(e);
        const AttentionRule* rule = it->second;
        if (!rule) continue;
        const int32_t outer = e.parent >= 0 ? calls.owner(e.parent) : -1;
        if (outer >= 0) {
            calls.instance_of[i] = outer;
            refine(calls.out[size_t(outer)], e, *rule);
            continue;
        }
        calls.add(new_call(calls, int32_t(i), *rule), int32_t(i));
    }
}

}  // namespace awb::attention_detail
