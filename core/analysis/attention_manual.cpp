// The manual recogniser: attention written out as ops, the way models write it (Hugging Face eager
// attention, timm, GPT-2, Bloom, einsum code), forward and, as autograd runs it, backward.
//
// Forward, anchored on a softmax (softmax, _softmax, _safe_softmax, log_softmax) over the last dim of
// [..., Nq, Nk] scores:
//   1. walking back over scale, mask, cast and layout ops to the product making the scores:
//      [.., Nq, D] x [.., D, Nk] (bmm, matmul, mm; baddbmm's inputs 1 and 2; the bmm an einsum runs);
//   2. walking on over dropout, cast and layout ops to the product applying them: [.., Nq, Nk] x [.., Nk, Dv];
//   3. batch and heads: [B, H, Nq, Nk] scores say them; scores with the heads folded into the batch
//      ([B*H, Nq, Nk]) get them from a tensor around the call that unfolds B*H ([B, H, Nq, Nk] scores
//      between the products, [B, H, N, D] / [B, N, H, D] / [B, N, H*D] before or after), else stay folded;
//   4. grouped-query K/V written out just before (repeat_interleave, or expand + reshape as Hugging
//      Face's repeat_kv does) give Hkv; a mask tensor added, filled or selected between gives causal -1.
// Backward, anchored on the softmax's backward (_softmax_backward_data, _log_softmax_backward_data):
// the P V product's backward node before it (a bmm making dP = dO V^T) and the Q K^T one's after it
// (a bmm taking dS), siblings under one parent; heads, Hkv, the mask and the dtype come from the
// forward call autograd links it to (the same sequence number), else from the gradients' shapes.
#include <charconv>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "analysis/attention_detail.h"

namespace awb::attention_detail {

// Named, not anonymous: the unity build compiles the other recognisers' helpers into the same unit.
namespace manual_pattern {

constexpr int kBetweenSteps =
    32;  // ops passed between the softmax and either product (T5 computes its position bias there)
constexpr int kAroundSteps = 24;  // ops looked at before Q K^T and after P V (layouts, repeated K/V)
constexpr int kNodeSteps = 16;    // autograd nodes passed between the softmax's backward and either product's

// Products of recorded dims, checked: -1 when a dim is negative or the product overflows (a damaged or
// fuzzed trace), so that no such shape matches.
int64_t times(int64_t a, int64_t b) {
    int64_t p = 0;
    return a < 0 || b < 0 || __builtin_mul_overflow(a, b, &p) ? -1 : p;
}

int64_t numel(const std::vector<int64_t>& d, size_t n) {
    int64_t p = 1;
    for (size_t i = 0; i < n && i < d.size() && p >= 0; ++i) p = times(p, d[i]);
    return p;
}

bool is_softmax(const EventName& n) {
    return n == "aten::softmax" || n == "aten::_softmax" || n == "aten::_safe_softmax" || n == "aten::log_softmax" ||
           n == "aten::_log_softmax";
}

bool is_product(const EventName& n) {
    return n == "aten::matmul" || n == "aten::bmm" || n == "aten::baddbmm" || n == "aten::einsum" || n == "aten::mm";
}

// Another computation: the walk from the softmax to its products stops there.
bool stops_walk(const EventName& n) {
    return is_product(n) || n == "aten::linear" || n == "aten::addmm" || is_softmax(n);
}

bool has_dims(const TraceEvent& e, int i, size_t at_least) {
    const std::vector<int64_t>* d = input(e, i);
    return d && d->size() >= at_least;
}

bool holds(const TraceEvent& e, int i, int64_t elements) {
    const std::vector<int64_t>* d = input(e, i);
    return d && elements > 0 && numel(*d, d->size()) == elements;
}

// A mask (or bias) tensor applied to the scores of `elements` elements: a >= 2-d tensor added to them,
// filled into them, or selected between them and a fill value.
bool is_mask(const TraceEvent& e, int64_t elements) {
    const EventName& n = e.name;
    if (n == "aten::masked_fill" || n == "aten::masked_fill_") return holds(e, 0, elements) && has_dims(e, 1, 2);
    if (n == "aten::add" || n == "aten::add_")
        return (holds(e, 0, elements) && has_dims(e, 1, 2)) || (holds(e, 1, elements) && has_dims(e, 0, 2));
    if (n == "aten::where") return has_dims(e, 0, 2) && (holds(e, 1, elements) || holds(e, 2, elements));
    return false;
}

bool under(const std::vector<TraceEvent>& events, size_t i, int32_t ancestor) {
    for (int32_t a = events[i].parent; a >= 0; a = events[size_t(a)].parent)
        if (a == ancestor) return true;
    return false;
}

// The first bmm inside op i (einsum runs its two-operand contractions as one).
int32_t inner_bmm(const std::vector<TraceEvent>& events, int32_t i) {
    const TraceEvent& op = events[size_t(i)];
    for (size_t j = size_t(i) + 1; j < events.size() && events[j].start_ns <= op.end_ns; ++j)
        if (events[j].name == "aten::bmm" && events[j].thread == op.thread && under(events, j, i)) return int32_t(j);
    return -1;
}

// A batched matrix product as the pattern reads it: [batch, rows, inner] x [batch, inner, cols], batch
// the product of the leading dims (both operands have the same).
struct Product {
    int64_t batch = 0, rows = 0, inner = 0, cols = 0;
    std::string dtype;  // the left operand's
};

std::optional<Product> product_from(const TraceEvent& e, int lhs) {
    const std::vector<int64_t>*a = input(e, lhs), *b = input(e, lhs + 1);
    if (!a || !b || a->size() < 2 || b->size() < 2) return std::nullopt;
    const int64_t batch = numel(*a, a->size() - 2);
    if (batch <= 0 || a->back() != (*b)[b->size() - 2] || numel(*b, b->size() - 2) != batch) return std::nullopt;
    return Product{batch, (*a)[a->size() - 2], a->back(), b->back(), dtype_of(e, lhs)};
}

// bmm / matmul / mm: inputs 0 and 1; baddbmm: 1 and 2 (input 0 is the added mask, bias or zeros);
// einsum: its bmm's (the trace keeps neither its equation nor the shapes of its tensor list).
std::optional<Product> product_of(const std::vector<TraceEvent>& events, int32_t i) {
    const TraceEvent& e = events[size_t(i)];
    if (e.name == "aten::baddbmm") return product_from(e, 1);
    if (e.name != "aten::einsum") return product_from(e, 0);
    const int32_t bmm = inner_bmm(events, i);
    return bmm >= 0 ? product_from(events[size_t(bmm)], 0) : std::nullopt;
}

// The softmax's input: [..., Nq, Nk], normalised over the last dim.
struct Scores {
    std::vector<int64_t> dims;
    int64_t nq = 0, nk = 0, batch = 0;  // batch: the product of the leading dims (B x H)
};

bool over_last_dim(const TraceEvent& e, size_t rank) {
    const auto& concrete = e.concrete();
    if (concrete.size() < 2 || concrete[1].empty()) return true;  // not recorded (torch 1.x, our own runs)
    int64_t dim = 0;
    const std::string& s = concrete[1];
    if (std::from_chars(s.data(), s.data() + s.size(), dim).ec != std::errc()) return true;
    return dim == -1 || dim == int64_t(rank) - 1;
}

std::optional<Scores> scores_of(const TraceEvent& e) {
    const std::vector<int64_t>* d = input(e, 0);
    if (!d || d->size() < 2 || !over_last_dim(e, d->size())) return std::nullopt;
    const size_t lead = d->size() - 2;
    const int64_t batch = numel(*d, lead);
    if (batch <= 0 || (*d)[lead] <= 0 || (*d)[lead + 1] <= 0) return std::nullopt;
    return Scores{*d, (*d)[lead], (*d)[lead + 1], batch};
}

// What the ops between the two products say.
struct Between {
    bool masked = false;
    int64_t batch = 0, heads = 0;  // > 0: a [B, H, Nq, Nk] view of [B*H, Nq, Nk] scores
};

void note_between(const TraceEvent& e, const Scores& s, bool before_softmax, Between& b) {
    b.masked = b.masked || (before_softmax && is_mask(e, times(times(s.batch, s.nq), s.nk)));
    const std::vector<int64_t>* d = input(e, 0);
    if (b.heads == 0 && s.dims.size() == 3 && d && d->size() == 4 && (*d)[2] == s.nq && (*d)[3] == s.nk &&
        times((*d)[0], (*d)[1]) == s.batch) {
        b.batch = (*d)[0];
        b.heads = (*d)[1];
    }
}

// One match of the forward pattern.
struct Match {
    int32_t softmax = -1, qk = -1, pv = -1;
    Scores scores;
    Product qk_product, pv_product;
    Between between;
};

bool makes_scores(const Product& p, const Scores& s) { return p.rows == s.nq && p.cols == s.nk && p.batch == s.batch; }
bool applies_scores(const Product& p, const Scores& s) {
    return p.rows == s.nq && p.inner == s.nk && p.batch == s.batch;
}

// Walks from the softmax (back to Q K^T or on to P V) over the ops between to the first product; it is
// the match's if `fits` says so. Masks count before the softmax only.
template <class Fits>
int32_t walk_to_product(const Calls& calls, const std::vector<int32_t>& step, bool back, Match& m, Product& out,
                        Fits fits) {
    const auto& events = calls.events;
    const TraceEvent& softmax = events[size_t(m.softmax)];
    int32_t s = step[size_t(m.softmax)];
    for (int n = 0; s >= 0 && n < kBetweenSteps; s = step[size_t(s)], ++n) {
        const TraceEvent& e = events[size_t(s)];
        // Its own _softmax, a sibling where whole-microsecond clocks let it end 1 us after the softmax.
        const bool own_inner = is_softmax(e.name) && e.start_ns >= softmax.start_ns && e.start_ns < softmax.end_ns;
        if (!stops_walk(e.name) || own_inner) {
            note_between(e, m.scores, back, m.between);
            continue;
        }
        if (!is_product(e.name) || calls.owner(s) >= 0) return -1;
        const std::optional<Product> p = product_of(events, s);
        if (!p || !fits(*p, m.scores)) return -1;
        out = *p;
        return s;
    }
    return -1;
}

std::optional<Match> match_forward(const Calls& calls, const Siblings& sib, int32_t i) {
    const TraceEvent& sm = calls.events[size_t(i)];
    if (!is_softmax(sm.name) || !nests_on_cpu(sm) ||
        (sm.parent >= 0 && is_softmax(calls.events[size_t(sm.parent)].name)))
        return std::nullopt;
    const std::optional<Scores> scores = scores_of(sm);
    if (!scores || calls.owner(i) >= 0) return std::nullopt;
    Match m;
    m.softmax = i;
    m.scores = *scores;
    m.qk = walk_to_product(calls, sib.prev, true, m, m.qk_product, makes_scores);
    if (m.qk < 0) return std::nullopt;
    m.pv = walk_to_product(calls, sib.next, false, m, m.pv_product, applies_scores);
    if (m.pv < 0) return std::nullopt;
    return m;
}

// B and H of folded [B*H, ...] tensors from one around the call: [B, H, N, D], [B, N, H, D], or
// [B, N, H*D] with H > 1.
bool unfold(const std::vector<int64_t>& d, const AttentionShape& s, int64_t folded, int64_t& batch, int64_t& heads) {
    auto is_seq = [&](int64_t n) { return n == s.seq_q || n == s.seq_k; };
    auto is_dim = [&](int64_t n) { return n == s.head_dim || n == s.head_dim_v; };
    if (d.size() == 4 && is_dim(d[3]) && is_seq(d[2]) && times(d[0], d[1]) == folded) {
        batch = d[0], heads = d[1];
        return true;
    }
    if (d.size() == 4 && is_dim(d[3]) && is_seq(d[1]) && times(d[0], d[2]) == folded) {
        batch = d[0], heads = d[2];
        return true;
    }
    if (d.size() == 3 && is_seq(d[1]) && d[2] > s.head_dim && s.head_dim > 0 && d[2] % s.head_dim == 0 &&
        times(d[0], d[2] / s.head_dim) == folded) {
        batch = d[0], heads = d[2] / s.head_dim;
        return true;
    }
    return false;
}

// K or V repeated to the query heads: repeat_interleave of [B, Hkv, Nk, D], or Hugging Face's
// repeat_kv (expand of [B, Hkv, 1, Nk, D], reshape of [B, Hkv, n_rep, Nk, D]). 0 when not.
int64_t repeated_kv_heads(const TraceEvent& e, const AttentionShape& s) {
    const std::vector<int64_t>* d = input(e, 0);
    if (!d || (*d)[0] != s.batch) return 0;
    const int64_t hkv = d->size() >= 2 ? (*d)[1] : 0;
    if (hkv <= 0 || hkv >= s.heads_q || s.heads_q % hkv != 0) return 0;
    if (e.name == "aten::repeat_interleave") return d->size() == 4 && (*d)[2] == s.seq_k ? hkv : 0;
    const bool repeat_kv = (e.name == "aten::expand" || e.name == "aten::reshape") && d->size() == 5 &&
                           (*d)[3] == s.seq_k && ((*d)[2] == 1 || times(hkv, (*d)[2]) == s.heads_q);
    return repeat_kv ? hkv : 0;
}

// The ops before the first product and after the last one, nearest first, to kAroundSteps each way; a
// softmax (another call's) ends either walk.
template <class Visit>
void visit_around(const Calls& calls, const Siblings& sib, const Match& m, Visit visit) {
    for (int32_t s = sib.prev[size_t(m.qk)], n = 0;
         s >= 0 && n < kAroundSteps && !is_softmax(calls.events[size_t(s)].name); s = sib.prev[size_t(s)], ++n)
        if (visit(calls.events[size_t(s)], true)) return;
    for (int32_t s = sib.next[size_t(m.pv)], n = 0;
         s >= 0 && n < kAroundSteps && !is_softmax(calls.events[size_t(s)].name); s = sib.next[size_t(s)], ++n)
        if (visit(calls.events[size_t(s)], false)) return;
}

// Batch and heads: from [B, H, Nq, Nk] scores (more leading dims are all batch), from a tensor that
// unfolds [B*H, ...] ones, else folded.
void set_heads(AttentionInstance& call, const Calls& calls, const Siblings& sib, const Match& m) {
    AttentionShape& s = call.shape;
    const size_t lead = m.scores.dims.size() - 2;
    if (lead >= 2) {
        s.batch = numel(m.scores.dims, lead - 1);
        s.heads_q = s.heads_kv = m.scores.dims[lead - 1];
        return;
    }
    s.batch = m.scores.batch;
    s.heads_q = s.heads_kv = 1;
    int64_t batch = m.between.batch, heads = m.between.heads;
    if (heads == 0 && lead == 1)
        visit_around(calls, sib, m, [&](const TraceEvent& e, bool) {
            const std::vector<int64_t>* d = input(e, 0);
            return d && unfold(*d, s, m.scores.batch, batch, heads);
        });
    call.heads_folded = heads == 0 && lead == 1;
    if (heads > 0) {
        s.batch = batch;
        s.heads_q = s.heads_kv = heads;
    }
}

void set_kv_heads(AttentionInstance& call, const Calls& calls, const Siblings& sib, const Match& m) {
    if (call.heads_folded || call.shape.heads_q <= 1) return;
    visit_around(calls, sib, m, [&](const TraceEvent& e, bool before) {
        const int64_t hkv = before ? repeated_kv_heads(e, call.shape) : 0;
        if (hkv > 0) call.shape.heads_kv = hkv;
        return hkv > 0 || !before;
    });
}

AttentionInstance forward_call(const Calls& calls, const Siblings& sib, const Match& m) {
    AttentionInstance call = calls.at(m.qk);
    call.backend = AttentionBackend::Manual;
    call.library = "manual";
    call.shape.seq_q = m.scores.nq;
    call.shape.seq_k = m.scores.nk;
    call.shape.head_dim = m.qk_product.inner;
    call.shape.head_dim_v = m.pv_product.cols;
    set_heads(call, calls, sib, m);
    set_kv_heads(call, calls, sib, m);
    call.causal = m.between.masked ? -1 : 0;
    call.dtype = m.qk_product.dtype;
    call.end_ns = calls.events[size_t(m.pv)].end_ns;
    return call;
}

// ---- the backward ----

bool is_softmax_backward(const EventName& n) {
    return n == "aten::_softmax_backward_data" || n == "aten::_log_softmax_backward_data";
}

bool is_product_node(const EventName& n) {
    return n.ends_with(": BmmBackward0") || n.ends_with(": MmBackward0") || n.ends_with(": BaddbmmBackward0");
}

bool is_mask_node(const EventName& n) {
    return n.ends_with(": MaskedFillBackward0") || n.ends_with(": WhereBackward0") || n.ends_with(": AddBackward0");
}

// The autograd::engine::evaluate_function event holding i, -1 for none.
int32_t evaluate_of(const std::vector<TraceEvent>& events, int32_t i) {
    for (int32_t a = i; a >= 0; a = events[size_t(a)].parent)
        if (events[size_t(a)].name.starts_with("autograd::engine::evaluate_function: ")) return a;
    return -1;
}

// A bmm / mm under the node whose inputs are [.., rows, cols] x [.., cols, out_cols] (-1: any).
const TraceEvent* child_bmm(const std::vector<TraceEvent>& events, int32_t node, int64_t rows, int64_t cols,
                            int64_t out_cols) {
    const TraceEvent& n = events[size_t(node)];
    for (size_t c = size_t(node) + 1; c < events.size() && events[c].start_ns < n.end_ns; ++c) {
        const TraceEvent& m = events[c];
        if (m.thread != n.thread || (m.name != "aten::bmm" && m.name != "aten::mm")) continue;
        const std::optional<Product> p = product_from(m, 0);
        if (p && (rows < 0 || p->rows == rows) && (cols < 0 || p->inner == cols) &&
            (out_cols < 0 || p->cols == out_cols))
            return &m;
    }
    return nullptr;
}

struct BackwardMatch {
    int32_t node = -1, pv = -1, qk = -1;  // evaluate_function events: the softmax's and the products'
    const TraceEvent *pv_bmm = nullptr, *qk_bmm = nullptr;
    std::vector<int64_t> grad;  // the scores' gradient: [..., Nq, Nk]
    int64_t nq = 0, nk = 0;
    bool masked = false;
};

// dP = dO V^T ([Nq, Dv] x [Dv, Nk]) in a product node before the softmax's.
bool find_pv_node(const Calls& calls, const Siblings& sib, BackwardMatch& b) {
    for (int32_t s = sib.prev[size_t(b.node)], n = 0; s >= 0 && n < kNodeSteps; s = sib.prev[size_t(s)], ++n)
        if (is_product_node(calls.events[size_t(s)].name) && (b.pv_bmm = child_bmm(calls.events, s, b.nq, -1, b.nk))) {
            b.pv = s;
            return calls.owner(s) < 0;
        }
    return false;
}

// dQ = dS K ([Nq, Nk] x [Nk, D]) in a product node after the softmax's; a mask's node on the way.
bool find_qk_node(const Calls& calls, const Siblings& sib, BackwardMatch& b) {
    for (int32_t s = sib.next[size_t(b.node)], n = 0; s >= 0 && n < kNodeSteps; s = sib.next[size_t(s)], ++n) {
        const EventName& name = calls.events[size_t(s)].name;
        b.masked = b.masked || is_mask_node(name);
        if (is_product_node(name) && (b.qk_bmm = child_bmm(calls.events, s, b.nq, b.nk, -1))) {
            b.qk = s;
            return calls.owner(s) < 0;
        }
    }
    return false;
}

std::optional<BackwardMatch> match_backward(const Calls& calls, const Siblings& sib, int32_t i) {
    const TraceEvent& sb = calls.events[size_t(i)];
    if (!is_softmax_backward(sb.name) || !nests_on_cpu(sb) || calls.owner(i) >= 0) return std::nullopt;
    const std::vector<int64_t>* grad = input(sb, 0);
    BackwardMatch b;
    b.node = evaluate_of(calls.events, i);
    if (!grad || grad->size() < 2 || b.node < 0) return std::nullopt;
    b.grad = *grad;
    b.nq = (*grad)[grad->size() - 2];
    b.nk = grad->back();
    if (!find_pv_node(calls, sib, b) || !find_qk_node(calls, sib, b)) return std::nullopt;
    return b;
}

// The forward calls by their softmax's autograd sequence number (the backward node carries it).
class ForwardLinks {
public:
    // The softmax's and its inner ops' numbers: softmax(x, dtype=float32) numbers its cast's node, its
    // _softmax the softmax's own.
    void add(const std::vector<TraceEvent>& events, int32_t softmax, int32_t call) {
        const TraceEvent& op = events[size_t(softmax)];
        for (size_t j = size_t(softmax); j < events.size() && events[j].start_ns <= op.end_ns; ++j)
            if (events[j].sequence_nr >= 0 && (j == size_t(softmax) || under(events, j, softmax))) {
                auto& ids = by_sequence_[events[j].sequence_nr];
                if (ids.empty() || ids.back() != call) ids.push_back(call);
            }
    }
    // The latest forward call with that sequence number before the node, on its rank; null for none.
    const AttentionInstance* of(const Calls& calls, const TraceEvent& node, int64_t sequence_nr) const {
        const auto it = by_sequence_.find(sequence_nr);
        if (sequence_nr < 0 || it == by_sequence_.end()) return nullptr;
        const AttentionInstance* best = nullptr;
        for (int32_t id : it->second) {
            const AttentionInstance& f = calls.out[size_t(id)];
            if (f.rank == node.rank && f.start_ns <= node.start_ns && (!best || f.start_ns > best->start_ns)) best = &f;
        }
        return best;
    }

private:
    std::unordered_map<int64_t, std::vector<int32_t>> by_sequence_;
};

// The autograd node inside the evaluate_function event carries the sequence number (so does the event).
int64_t node_sequence(const std::vector<TraceEvent>& events, int32_t node) {
    const TraceEvent& e = events[size_t(node)];
    if (e.sequence_nr >= 0) return e.sequence_nr;
    const size_t c = size_t(node) + 1;
    return c < events.size() && events[c].parent == node ? events[c].sequence_nr : -1;
}

// Heads, Hkv, mask and dtype: the linked forward call's when its shape is the gradient's, else the
// gradient's own shape (folded when 3-d), the mask's node and K's dtype.
void set_backward_heads(AttentionInstance& call, const BackwardMatch& b, const AttentionInstance* forward) {
    AttentionShape& s = call.shape;
    const size_t lead = b.grad.size() - 2;
    const int64_t folded = numel(b.grad, lead);
    if (forward && forward->shape.seq_q == b.nq && forward->shape.seq_k == b.nk &&
        times(forward->shape.batch, forward->shape.heads_q) == folded) {
        s.batch = forward->shape.batch;
        s.heads_q = forward->shape.heads_q;
        s.heads_kv = forward->shape.heads_kv;
        call.heads_folded = forward->heads_folded;
        call.causal = forward->causal;
        call.dtype = forward->dtype;
        return;
    }
    s.batch = lead >= 2 ? numel(b.grad, lead - 1) : folded;
    s.heads_q = s.heads_kv = lead >= 2 ? b.grad[lead - 1] : 1;
    call.heads_folded = lead == 1;
    call.causal = b.masked ? -1 : 0;
    call.dtype = dtype_of(*b.qk_bmm, 1);
}

AttentionInstance backward_call(const Calls& calls, const BackwardMatch& b, const ForwardLinks& links) {
    AttentionInstance call = calls.at(b.pv);
    call.backend = AttentionBackend::Manual;
    call.library = "manual";
    call.backward = true;
    call.shape.seq_q = b.nq;
    call.shape.seq_k = b.nk;
    call.shape.head_dim = input(*b.qk_bmm, 1)->back();
    call.shape.head_dim_v = input(*b.pv_bmm, 0)->back();
    const AttentionInstance* forward =
        links.of(calls, calls.events[size_t(b.node)], node_sequence(calls.events, b.node));
    set_backward_heads(call, b, forward);
    if (forward && forward->backend == AttentionBackend::Math) {  // SDPA's math path: its backward is SDPA's math too
        call.backend = forward->backend;
        call.library = forward->library;
        call.implementation = forward->implementation;
    }
    call.end_ns = calls.events[size_t(b.qk)].end_ns;
    return call;
}

// SDPA's math path runs the pattern inside its op (aten::_scaled_dot_product_attention on 1.13,
// _scaled_dot_product_attention_math on 2.x): its softmax's sequence numbers link the backward, which
// autograd runs as the pattern's, to the SDPA call, whose backend it then carries.
void link_math_calls(const Calls& calls, ForwardLinks& links) {
    const std::vector<TraceEvent>& events = calls.events;
    for (size_t id = 0; id < calls.out.size(); ++id) {
        const AttentionInstance& c = calls.out[id];
        if (c.backend != AttentionBackend::Math || c.backward || c.event < 0) continue;
        const int64_t end = events[size_t(c.event)].end_ns;
        for (size_t j = size_t(c.event) + 1; j < events.size() && events[j].start_ns <= end; ++j)
            if ((events[j].name == "aten::softmax" || events[j].name == "aten::_softmax") &&
                under(events, j, c.event)) {
                links.add(events, int32_t(j), int32_t(id));
                break;
            }
    }
}

}  // namespace manual_pattern

void find_manual_calls(Calls& calls) {
    using namespace manual_pattern;
    const Siblings sib(calls.events);
    ForwardLinks links;
    for (size_t i = 0; i < calls.events.size(); ++i) {
        const std::optional<Match> m = match_forward(calls, sib, int32_t(i));
        if (!m) continue;
        const int32_t id = calls.add(forward_call(calls, sib, *m), sib, m->qk, m->pv);
        links.add(calls.events, m->softmax, id);
    }
    link_math_calls(calls, links);
    for (size_t i = 0; i < calls.events.size(); ++i) {
        const std::optional<BackwardMatch> b = match_backward(calls, sib, int32_t(i));
        if (b) calls.add(backward_call(calls, *b, links), sib, b->pv, b->qk);
    }
}

}  // namespace awb::attention_detail
