#include "analysis/attention.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "analysis/trace_links.h"
#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

// The ops of scaled_dot_product_attention's backends: which inputs are Q, K, V, how they are laid
// out ([B, H, N, D], or [B, N, H, D] for the kernels' own ops), and which argument says causal.
struct AttentionOp {
    std::string_view name;
    AttentionBackend backend;
    bool backward;
    bool bnhd;       // inputs [B, N, H, D]
    int q, k, v;     // input positions
    int causal_arg;  // position of is_causal (or custom_mask_type) in "Concrete Inputs"
    bool mask_type;  // causal_arg is xformers' custom_mask_type: 0 none, 1 top-left, 2 bottom-right
    int mask_arg;    // position of the attn_mask / bias tensor, -1 when the op takes none
};

constexpr AttentionBackend kSdpa = AttentionBackend::Unknown;  // the backend is its inner op's
const AttentionOp kOps[] = {
    {"aten::scaled_dot_product_attention", kSdpa, false, false, 0, 1, 2, 5, false, 3},
    {"aten::_scaled_dot_product_attention_math", AttentionBackend::Math, false, false, 0, 1, 2, 5, false, 3},
    {"aten::_scaled_dot_product_flash_attention", AttentionBackend::Flash, false, false, 0, 1, 2, 4, false, -1},
    {"aten::_scaled_dot_product_efficient_attention", AttentionBackend::MemEfficient, false, false, 0, 1, 2, 6, false, 3},
    {"aten::_scaled_dot_product_cudnn_attention", AttentionBackend::Cudnn, false, false, 0, 1, 2, 6, false, 3},
    {"aten::_scaled_dot_product_flash_attention_for_cpu", AttentionBackend::CpuFlash, false, false, 0, 1, 2, 4, false, 5},
    {"aten::_flash_attention_forward", AttentionBackend::Flash, false, true, 0, 1, 2, 8, false, -1},
    {"aten::_efficient_attention_forward", AttentionBackend::MemEfficient, false, true, 0, 1, 2, 9, true, 3},
    {"aten::_scaled_dot_product_flash_attention_backward", AttentionBackend::Flash, true, false, 1, 2, 3, 11, false, -1},
    {"aten::_scaled_dot_product_efficient_attention_backward", AttentionBackend::MemEfficient, true, false, 1, 2, 3, 11, false, 4},
    {"aten::_scaled_dot_product_cudnn_attention_backward", AttentionBackend::Cudnn, true, false, 1, 2, 3, 14, false, 8},
    {"aten::_scaled_dot_product_flash_attention_for_cpu_backward", AttentionBackend::CpuFlash, true, false, 1, 2, 3, 7, false, 8},
    {"aten::_flash_attention_backward", AttentionBackend::Flash, true, true, 1, 2, 3, 11, false, -1},
    {"aten::_efficient_attention_backward", AttentionBackend::MemEfficient, true, true, 1, 2, 3, 14, true, 4},
};

// The attention op an event is, looked up once per distinct (interned) name.
class OpLookup {
public:
    const AttentionOp* operator()(const EventName& name) {
        auto [it, added] = seen_.try_emplace(name.data(), nullptr);
        if (added && name.find("attention") != std::string::npos)
            for (const AttentionOp& op : kOps)
                if (name == op.name) it->second = &op;
        return it->second;
    }

private:
    std::unordered_map<const char*, const AttentionOp*> seen_;
};

const std::vector<int64_t>* input(const TraceEvent& e, int i) {
    const auto& shapes = e.shapes();
    return i >= 0 && size_t(i) < shapes.size() && !shapes[size_t(i)].empty() ? &shapes[size_t(i)] : nullptr;
}

// (batch, heads, sequence, head dim) of a Q, K or V input in the op's layout; unbatched [H, N, D] is batch 1.
std::optional<std::array<int64_t, 4>> bhnd(const std::vector<int64_t>* d, bool bnhd) {
    if (!d || d->size() < 3 || d->size() > 4) return std::nullopt;
    const std::vector<int64_t>& x = *d;
    if (x.size() == 3) return bnhd ? std::array<int64_t, 4>{1, x[1], x[0], x[2]} : std::array<int64_t, 4>{1, x[0], x[1], x[2]};
    return bnhd ? std::array<int64_t, 4>{x[0], x[2], x[1], x[3]} : std::array<int64_t, 4>{x[0], x[1], x[2], x[3]};
}

AttentionShape shape_of(const TraceEvent& e, const AttentionOp& op) {
    AttentionShape s;
    const auto q = bhnd(input(e, op.q), op.bnhd), k = bhnd(input(e, op.k), op.bnhd), v = bhnd(input(e, op.v), op.bnhd);
    if (!q || !k) return s;
    s.batch = (*q)[0];
    s.heads_q = (*q)[1];
    s.seq_q = (*q)[2];
    s.head_dim = (*q)[3];
    s.heads_kv = (*k)[1];
    s.seq_k = (*k)[2];
    s.head_dim_v = v ? (*v)[3] : s.head_dim;
    return s;
}

int causal_of(const TraceEvent& e, const AttentionOp& op) {
    const auto& c = e.concrete();
    int causal = -1;
    if (op.causal_arg >= 0 && size_t(op.causal_arg) < c.size()) {
        const std::string& v = c[size_t(op.causal_arg)];
        if (op.mask_type)
            causal = v == "0" ? 0 : v == "1" ? 1 : v == "2" ? 2 : -1;
        else
            causal = v == "True" ? 1 : v == "False" ? 0 : -1;
    }
    if (causal == 0 && input(e, op.mask_arg)) return -1;  // a mask tensor: which pairs it hides is data
    return causal;
}

std::string dtype_of(const TraceEvent& e, int i) {
    const auto& d = e.dtypes();
    return i >= 0 && size_t(i) < d.size() ? d[size_t(i)] : std::string();
}

int64_t product(const std::vector<int64_t>& d, size_t n) {
    int64_t p = 1;
    for (size_t i = 0; i < n && i < d.size(); ++i) p *= d[i];
    return p;
}

// The calls' ops from first to last (siblings) belong to call id: their kernels are its device time.
void claim(std::vector<int32_t>& instance_of, const std::vector<int32_t>& next, int32_t first, int32_t last, int32_t id) {
    for (int32_t s = first;; s = next[size_t(s)]) {
        instance_of[size_t(s)] = id;
        if (s == last) break;
    }
}

// Batch and heads from the dims before [Nq, Nk]: [B, H, ...] (more leading dims are all batch),
// [B*H, ...] (one), none.
void set_batch_heads(AttentionShape& s, const std::vector<int64_t>& scores, size_t lead) {
    s.batch = lead >= 2 ? product(scores, lead - 1) : lead == 1 ? scores[0] : 1;
    s.heads_q = s.heads_kv = lead >= 2 ? scores[lead - 1] : 1;
}

void cost(AttentionInstance& a) {
    if (!a.shape.known()) return;
    const double pairs_head = a.mean_keys > 0 ? double(a.shape.seq_q) * a.mean_keys
                              : a.causal == 2 ? bottom_right_pairs(a.shape.seq_q, a.shape.seq_k)
                                              : visible_pairs(a.shape.seq_q, a.shape.seq_k, a.causal == 1, a.window);
    a.pairs = pairs_head * double(a.shape.batch) * double(a.shape.heads_q);
    a.flops = attention_flops(a.shape, pairs_head, a.backward);
    if (a.backward) a.flops_backward_no_recompute = attention_flops(a.shape, pairs_head, false) * 2.0;
    const int64_t element = trace_dtype_bytes(a.dtype);
    a.bytes = attention_bytes(a.shape, element, a.backward, BytesModel::Ideal);
    a.bytes_scores = attention_bytes(a.shape, element, a.backward, BytesModel::Scores);
    a.bytes_chunked = attention_bytes(a.shape, element, a.backward, BytesModel::Chunked);
}

bool is_matmul(const EventName& n) { return n == "aten::matmul" || n == "aten::bmm" || n == "aten::einsum"; }
bool is_softmax(const EventName& n) { return n == "aten::softmax" || n == "aten::_softmax" || n == "aten::_safe_softmax"; }

}  // namespace

std::string causal_text(const AttentionInstance& a) {
    if (a.window > 0) return "window " + std::to_string(a.window);
    if (a.mean_keys > 0) return "padding";
    return a.causal == 1 ? "yes" : a.causal == 2 ? "bottom-right" : a.causal == 0 ? "no" : "-";
}

std::string to_string(AttentionBackend b) {
    switch (b) {
        case AttentionBackend::Flash: return "flash";
        case AttentionBackend::MemEfficient: return "memory-efficient";
        case AttentionBackend::Cudnn: return "cuDNN";
        case AttentionBackend::CpuFlash: return "CPU flash";
        case AttentionBackend::Math: return "math";
        case AttentionBackend::Manual: return "manual";
        case AttentionBackend::Unknown: break;
    }
    return "sdpa (backend not recorded)";
}

int64_t trace_dtype_bytes(const std::string& dtype) {
    if (dtype == "float") return 4;
    if (dtype == "double") return 8;
    if (dtype == "c10::Half" || dtype == "c10::BFloat16" || dtype == "Half" || dtype == "BFloat16") return 2;
    if (dtype.find("Float8") != std::string::npos) return 1;
    return 0;
}

std::vector<AttentionInstance> attention_instances(const Trace& trace, const RunSpec* spec) {
    const auto& events = trace.events();
    std::vector<AttentionInstance> out;
    std::vector<int32_t> instance_of(events.size(), -1);  // the ops that belong to a call
    OpLookup lookup;
    // 1. scaled_dot_product_attention and its backends' ops: the outermost is the call; inner ones
    //    name its backend (and give the shapes when the outer one recorded none).
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& e = events[i];
        if (e.device != DeviceKind::CPU) continue;
        const AttentionOp* op = lookup(e.name);
        if (!op) continue;
        int32_t outer = -1;
        for (int32_t a = e.parent; a >= 0 && outer < 0; a = events[size_t(a)].parent) outer = instance_of[size_t(a)];
        if (outer >= 0) {
            AttentionInstance& call = out[size_t(outer)];
            instance_of[i] = outer;
            if (op->backend != AttentionBackend::Unknown) call.backend = op->backend;
            if (!call.shape.known()) call.shape = shape_of(e, *op);
            if (call.causal < 0) call.causal = causal_of(e, *op);
            if (call.dtype.empty()) call.dtype = dtype_of(e, op->q);
            continue;
        }
        AttentionInstance call;
        call.event = int32_t(i);
        call.op = e.name.str();
        call.backend = op->backend;
        call.backward = op->backward;
        call.shape = shape_of(e, *op);
        call.causal = causal_of(e, *op);
        call.dtype = dtype_of(e, op->q);
        call.rank = e.rank;
        call.thread = e.thread;
        call.start_ns = e.start_ns;
        call.end_ns = e.end_ns;
        instance_of[i] = int32_t(out.size());
        out.push_back(std::move(call));
    }
    // 2. The manual pattern: a softmax over [..., Nq, Nk] between a matmul making those scores from
    //    [..., Nq, D] x [..., D, Nk] and one applying them to [..., Nk, Dv], all three siblings.
    std::vector<int32_t> prev(events.size(), -1), next(events.size(), -1);
    {
        std::vector<int32_t> last_child(events.size(), -1);
        std::map<std::pair<int32_t, uint64_t>, int32_t> last_top;  // (rank, thread) -> last top-level event
        for (size_t i = 0; i < events.size(); ++i) {
            const TraceEvent& e = events[i];
            if (!nests_on_cpu(e)) continue;
            int32_t& last = e.parent >= 0 ? last_child[size_t(e.parent)] : last_top[{e.rank, e.thread}];
            if (last >= 0) {
                prev[i] = last;
                next[size_t(last)] = int32_t(i);
            }
            last = int32_t(i);
        }
    }
    auto inside_call = [&](int32_t i) {
        for (int32_t a = i; a >= 0; a = events[size_t(a)].parent)
            if (instance_of[size_t(a)] >= 0) return true;
        return false;
    };
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& sm = events[i];
        if (!is_softmax(sm.name) || !nests_on_cpu(sm) || (sm.parent >= 0 && is_softmax(events[size_t(sm.parent)].name))) continue;
        const std::vector<int64_t>* scores = input(sm, 0);
        if (!scores || scores->size() < 2 || inside_call(int32_t(i))) continue;
        const size_t lead = scores->size() - 2;
        const int64_t nq = (*scores)[lead], nk = (*scores)[lead + 1], heads_batch = product(*scores, lead);
        int32_t first = -1, second = -1;
        bool masked = false;
        for (int32_t s = prev[i], steps = 0; s >= 0 && steps < 8 && first < 0; s = prev[size_t(s)], ++steps) {
            const TraceEvent& m = events[size_t(s)];
            if (!is_matmul(m.name)) {
                if (m.name == "aten::masked_fill" || m.name == "aten::masked_fill_" || m.name == "aten::add" || m.name == "aten::add_" ||
                    m.name == "aten::where")
                    masked = masked || (input(m, 1) && input(m, 1)->size() >= 2);
                continue;
            }
            const auto *a = input(m, 0), *b = input(m, 1);
            if (a && b && a->size() >= 2 && b->size() >= 2 && a->size() == b->size() && (*a)[a->size() - 2] == nq &&
                b->back() == nk && a->back() == (*b)[b->size() - 2] && product(*a, a->size() - 2) == heads_batch)
                first = s;
            else
                break;  // another matmul in between: not this pattern
        }
        for (int32_t s = next[i], steps = 0; first >= 0 && s >= 0 && steps < 8 && second < 0; s = next[size_t(s)], ++steps) {
            const TraceEvent& m = events[size_t(s)];
            if (!is_matmul(m.name)) continue;
            const auto *a = input(m, 0), *b = input(m, 1);
            if (a && b && a->size() >= 2 && b->size() >= 2 && (*a)[a->size() - 2] == nq && a->back() == nk &&
                (*b)[b->size() - 2] == nk && product(*a, a->size() - 2) == heads_batch)
                second = s;
            else
                break;
        }
        if (second < 0) continue;
        const TraceEvent& qk = events[size_t(first)];
        const std::vector<int64_t>& a = *input(qk, 0);
        AttentionInstance call;
        call.event = first;
        call.op = qk.name.str();
        call.backend = AttentionBackend::Manual;
        set_batch_heads(call.shape, *scores, lead);
        call.shape.seq_q = nq;
        call.shape.seq_k = nk;
        call.shape.head_dim = a.back();
        call.shape.head_dim_v = input(events[size_t(second)], 1)->back();
        // Grouped-query attention written out: K and V repeated to the query heads just before.
        for (int32_t s = prev[size_t(first)], steps = 0; s >= 0 && steps < 16; s = prev[size_t(s)], ++steps) {
            const TraceEvent& r = events[size_t(s)];
            const std::vector<int64_t>* kv = input(r, 0);
            if (r.name == "aten::repeat_interleave" && kv && kv->size() == 4 && (*kv)[1] > 0 && call.shape.heads_q % (*kv)[1] == 0 &&
                (*kv)[2] == nk && (*kv)[0] == call.shape.batch) {
                call.shape.heads_kv = (*kv)[1];
                break;
            }
        }
        call.causal = masked ? -1 : 0;
        call.dtype = dtype_of(qk, 0);
        call.rank = qk.rank;
        call.thread = qk.thread;
        call.start_ns = qk.start_ns;
        call.end_ns = events[size_t(second)].end_ns;
        claim(instance_of, next, first, second, int32_t(out.size()));
        out.push_back(std::move(call));
    }
    // 3. The manual pattern's backward, as autograd runs it: the evaluate_function of the softmax's
    //    backward (grad over [..., Nq, Nk]) between the one of the P V matmul (a bmm making [Nq, Nk]
    //    gradients) and the one of the Q K^T matmul (a bmm taking them), siblings under one parent.
    auto evaluate_of = [&](int32_t i) {  // the autograd::engine::evaluate_function event holding i
        for (int32_t a = i; a >= 0; a = events[size_t(a)].parent)
            if (events[size_t(a)].name.starts_with("autograd::engine::evaluate_function: ")) return a;
        return int32_t(-1);
    };
    // A bmm/mm under node (its backward) whose first input is [..., rows, cols]; -1 for any.
    auto child_bmm = [&](int32_t node, int64_t rows, int64_t cols, int64_t out_cols) -> const TraceEvent* {
        for (size_t c = size_t(node) + 1; c < events.size() && events[c].start_ns < events[size_t(node)].end_ns; ++c) {
            const TraceEvent& m = events[c];
            if (m.thread != events[size_t(node)].thread || (m.name != "aten::bmm" && m.name != "aten::mm")) continue;
            const auto *a = input(m, 0), *b = input(m, 1);
            if (a && b && a->size() >= 2 && b->size() >= 2 && (rows < 0 || (*a)[a->size() - 2] == rows) && (cols < 0 || a->back() == cols) &&
                (out_cols < 0 || b->back() == out_cols))
                return &m;
        }
        return nullptr;
    };
    auto named = [&](int32_t e, std::string_view node) { return events[size_t(e)].name.ends_with(node); };
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& sb = events[i];
        if (sb.name != "aten::_softmax_backward_data" || !nests_on_cpu(sb) || inside_call(int32_t(i))) continue;
        const std::vector<int64_t>* grad = input(sb, 0);
        const int32_t softmax_node = evaluate_of(int32_t(i));
        if (!grad || grad->size() < 2 || softmax_node < 0) continue;
        const size_t lead = grad->size() - 2;
        const int64_t nq = (*grad)[lead], nk = (*grad)[lead + 1];
        int32_t pv = -1, qk = -1;
        const TraceEvent *pv_bmm = nullptr, *qk_bmm = nullptr;
        for (int32_t s = prev[size_t(softmax_node)], steps = 0; s >= 0 && steps < 12 && pv < 0; s = prev[size_t(s)], ++steps)
            if (named(s, "BmmBackward0") || named(s, "MmBackward0"))
                if ((pv_bmm = child_bmm(s, nq, -1, nk))) pv = s;  // dP = dO V^T: [Nq, Dv] x [Dv, Nk]
        bool masked = false;
        for (int32_t s = next[size_t(softmax_node)], steps = 0; pv >= 0 && s >= 0 && steps < 12 && qk < 0; s = next[size_t(s)], ++steps) {
            masked = masked || named(s, "MaskedFillBackward0") || named(s, "WhereBackward0");
            if (named(s, "BmmBackward0") || named(s, "MmBackward0"))
                if ((qk_bmm = child_bmm(s, nq, nk, -1))) qk = s;  // dQ = dS K: [Nq, Nk] x [Nk, D]
        }
        if (qk < 0) continue;
        AttentionInstance call;
        call.event = pv;
        call.op = events[size_t(pv)].name.str();
        call.backend = AttentionBackend::Manual;
        call.backward = true;
        set_batch_heads(call.shape, *grad, lead);
        call.shape.seq_q = nq;
        call.shape.seq_k = nk;
        call.shape.head_dim = input(*qk_bmm, 1)->back();
        call.shape.head_dim_v = input(*pv_bmm, 0)->back();
        call.causal = masked ? -1 : 0;
        call.dtype = dtype_of(sb, 0);
        call.rank = sb.rank;
        call.thread = sb.thread;
        call.start_ns = events[size_t(pv)].start_ns;
        call.end_ns = events[size_t(qk)].end_ns;
        claim(instance_of, next, pv, qk, int32_t(out.size()));
        out.push_back(std::move(call));
    }
    if (out.empty()) return out;
    // 4. Device time: each kernel, copy and set goes to the call whose op (or an op inside it) launched it.
    const LaunchingOps ops(trace);
    for (const TraceEvent& e : events) {
        if (e.device == DeviceKind::CPU || !is_device_work(e)) continue;
        for (int32_t a = ops.of(e); a >= 0; a = events[size_t(a)].parent)
            if (const int32_t id = instance_of[size_t(a)]; id >= 0) {
                out[size_t(id)].device_ns += e.duration_ns();
                ++out[size_t(id)].kernels;
                break;
            }
    }
    for (AttentionInstance& a : out) {
        // Our own run: its spec says what the trace could not (LibTorch's C++ profiler records no
        // Concrete Inputs), for calls of the spec's shape (not the chunked variant's blocks).
        // The manual pattern's backward (autograd nodes) shows no mask op either.
        const bool unknown = a.causal < 0 || (a.backend == AttentionBackend::Manual && a.backward);
        if (spec && unknown && a.shape.batch == spec->batch && a.shape.heads_q == spec->heads && a.shape.seq_q == spec->seq_q &&
            a.shape.seq_k == spec->seq_k && a.shape.head_dim == spec->head_dim) {
            if (spec->mask == MaskKind::Padding) {
                a.causal = -1;
                a.mean_keys = spec_pairs_per_head(*spec) / double(spec->seq_q);
            } else {
                a.causal = spec->mask == MaskKind::None ? 0 : 1;
                if (spec->mask == MaskKind::Window) a.window = spec->window;
            }
        }
        cost(a);
    }
    std::stable_sort(out.begin(), out.end(), [](const AttentionInstance& a, const AttentionInstance& b) { return a.start_ns < b.start_ns; });
    return out;
}

std::vector<AttentionGroup> group_attention(const std::vector<AttentionInstance>& instances) {
    std::map<std::tuple<int, bool, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, std::string, int, int64_t>, size_t> index;
    std::vector<AttentionGroup> groups;
    for (const AttentionInstance& a : instances) {
        const AttentionShape& s = a.shape;
        const auto [it, added] = index.try_emplace({int(a.backend), a.backward, s.batch, s.heads_q, s.heads_kv, s.seq_q, s.seq_k, s.head_dim, a.dtype, a.causal,
                                                    a.window},
                                                   groups.size());
        if (added) groups.push_back({a});
        groups[it->second].add(a);
    }
    std::stable_sort(groups.begin(), groups.end(), [](const AttentionGroup& a, const AttentionGroup& b) { return a.time_ns > b.time_ns; });
    return groups;
}

std::string attention_conventions() {
    return "FLOPs: 2 x visible pairs x (D + Dv) forward, backward 2.5x forward as FlashAttention counts (with recompute; "
           "torch.utils.flop_counter: 2x); causal: top-left as PyTorch's is_causal, '-' a mask tensor (every pair counted); "
           "bytes: Q, K, V, O once (backward also dO, dQ, dK, dV); rates over the device time, or the CPU time where no "
           "kernel ran";
}

std::string bytes_model_convention() {
    return "bytes model: of ideal (each tensor once), scores (the [Nq, Nk] scores at every pass) and chunked (K, V re-read per "
           "128-query block), the one whose roofline time max(FLOP / peak, bytes / bandwidth) is nearest the measured time; '=' when "
           "all three give the same time (compute-bound)";
}

std::vector<Roof> call_roofs(const Roof& measured, const std::string& device_name, const std::vector<AttentionInstance>& calls) {
    if (measured.known()) return {measured};
    std::vector<Roof> roofs;
    const DeviceRoof* table = find_device_roof(device_name);
    if (!table) return roofs;
    for (const AttentionInstance& a : calls)
        if (!find_roof(roofs, a.dtype)) {
            Roof r = datasheet_roof(*table, a.dtype);
            if (r.known()) roofs.push_back(std::move(r));
        }
    return roofs;
}

void AttentionGroup::add(const AttentionInstance& a) {
    ++calls;
    cpu_ns += a.cpu_ns();
    device_ns += a.device_ns;
    time_ns += a.time_ns();
    flops += a.flops;
    bytes += a.bytes;
    bytes_scores += a.bytes_scores;
    bytes_chunked += a.bytes_chunked;
}

RoofFit roof_fit(const AttentionInstance& call, const Roof& roof) {
    AttentionGroup one{call};
    one.add(call);
    return roof_fit(one, roof);
}

RoofFit roof_fit(const AttentionGroup& g, const Roof& roof) {
    RoofFit fit;
    const bool cpu_roof = roof.measured && roof.device == "CPU";
    fit.applies = roof.known() && g.first.shape.known() && g.time_ns > 0 && g.bytes > 0 && (cpu_roof ? g.device_ns == 0 : g.device_ns > 0);
    if (!fit.applies) return fit;
    fit.attainable_tflops = roof.attainable_tflops(g.flops, g.bytes);
    fit.share = fit.attainable_tflops > 0 ? g.tflops_per_s() / fit.attainable_tflops : 0.0;
    const double bytes[3] = {g.bytes, g.bytes_scores, g.bytes_chunked};
    fit.bytes = fit_bytes_model(g.flops, bytes, double(g.time_ns), roof.peak_tflops, roof.memory_tb_s);
    return fit;
}

std::string format_attention(const std::vector<AttentionInstance>& instances, const std::vector<Roof>& roofs) {
    if (instances.empty())
        return "Attention calls: none found (no scaled_dot_product_attention op, and no matmul -> softmax -> matmul with "
               "matching recorded shapes: record_shapes=True is needed for the manual pattern)\n";
    const std::vector<AttentionGroup> groups = group_attention(instances);
    auto dim = [](int64_t v) { return v > 0 ? std::to_string(v) : std::string("?"); };
    std::string out = printf_string("Attention calls: %zu in %zu groups (%s)\n", instances.size(), groups.size(), attention_conventions().c_str());
    const bool roofed = !roofs.empty();
    for (const Roof& r : roofs)
        out += printf_string("Roof for %s: %s, %s, %s, ridge %.1f FLOP/byte (%s)\n", r.dtype.c_str(), r.device.c_str(),
                             format_flop_rate(r.peak_tflops).c_str(), format_bandwidth(r.memory_tb_s).c_str(), r.ridge(), r.source.c_str());
    if (roofed)
        out += "B" + bytes_model_convention().substr(1) + "\n";
    out += printf_string("%-28s %-4s %5s %4s %4s %6s %6s %4s %-14s %-12s %6s %12s %12s %14s %9s %9s%s\n", "backend", "pass", "B", "Hq", "Hkv",
                         "Nq", "Nk", "D", "dtype", "causal", "calls", "CPU total", "device total", "FLOP per call", "TFLOP/s", "GB/s",
                         roofed ? " % of roof  bytes model" : "");
    for (const AttentionGroup& g : groups) {
        const AttentionInstance& a = g.first;
        const AttentionShape& s = a.shape;
        const bool known = s.known();
        std::string share;
        if (roofed) {
            const Roof* roof = find_roof(roofs, a.dtype);
            const RoofFit fit = roof ? roof_fit(g, *roof) : RoofFit{};
            share = fit.applies ? printf_string(" %9.1f%%  %s", 100.0 * fit.share, fit.bytes.tie ? "=" : to_string(fit.bytes.model).c_str())
                                : printf_string(" %10s  -", "-");
        }
        out += printf_string("%-28s %-4s %5s %4s %4s %6s %6s %4s %-14s %-12s %6lld %12s %12s %14s %9s %9s%s\n", to_string(a.backend).c_str(),
                             a.backward ? "bwd" : "fwd", dim(s.batch).c_str(), dim(s.heads_q).c_str(), dim(s.heads_kv).c_str(),
                             dim(s.seq_q).c_str(), dim(s.seq_k).c_str(), dim(s.head_dim).c_str(), a.dtype.empty() ? "?" : a.dtype.c_str(), causal_text(a).c_str(),
                             (long long)g.calls, format_duration_ns(double(g.cpu_ns)).c_str(),
                             g.device_ns > 0 ? format_duration_ns(double(g.device_ns)).c_str() : "-",
                             known ? format_flops(g.flops / double(g.calls)).c_str() : "?",
                             known && g.time_ns > 0 ? printf_string("%.4g", g.tflops_per_s()).c_str() : "?",
                             known && g.time_ns > 0 && g.bytes > 0 ? printf_string("%.4g", g.gb_per_s()).c_str() : "?", share.c_str());
    }
    return out;
}

}  // namespace awb
