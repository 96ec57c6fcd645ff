#include "analysis/attention.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/attention_detail.h"
#include "analysis/attention_rules.h"
#include "analysis/graph_capture.h"
#include "analysis/gpu_breakdown.h"
#include "analysis/trace_links.h"
#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace attention_detail {

const std::vector<int64_t>* input(const TraceEvent& e, int i) {
    const auto& shapes = e.shapes();
    return i >= 0 && size_t(i) < shapes.size() && !shapes[size_t(i)].empty() ? &shapes[size_t(i)] : nullptr;
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

namespace {
bool is_sibling_op(const TraceEvent& e) {
    return nests_on_cpu(e) && (e.kind == EventKind::CpuOp || e.kind == EventKind::UserAnnotation);
}
}  // namespace

Siblings::Siblings(const std::vector<TraceEvent>& events) : prev(events.size(), -1), next(events.size(), -1) {
    std::vector<int32_t> last_child(events.size(), -1);
    std::map<std::pair<int32_t, uint64_t>, int32_t> last_top;  // (rank, thread) -> last top-level op
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& e = events[i];
        if (!is_sibling_op(e)) continue;
        int32_t parent = e.parent;  // the nearest op above, through Python functions and runtime calls
        while (parent >= 0 && !is_sibling_op(events[size_t(parent)])) parent = events[size_t(parent)].parent;
        int32_t& last = parent >= 0 ? last_child[size_t(parent)] : last_top[{e.rank, e.thread}];
        if (last >= 0) {
            prev[i] = last;
            next[size_t(last)] = int32_t(i);
        }
        last = int32_t(i);
    }
}

AttentionInstance Calls::at(int32_t i) const {
    const TraceEvent& e = events[size_t(i)];
    AttentionInstance call;
    call.event = i;
    call.op = e.name.str();
    call.rank = e.rank;
    call.thread = e.thread;
    call.start_ns = e.start_ns;
    call.end_ns = e.end_ns;
    call.replayed = e.replayed;
    return call;
}

int32_t Calls::add(AttentionInstance call, int32_t i) {
    const int32_t id = add_unowned(std::move(call));
    instance_of[size_t(i)] = id;
    return id;
}

int32_t Calls::add_unowned(AttentionInstance call) {
    out.push_back(std::move(call));
    return int32_t(out.size()) - 1;
}

int32_t Calls::add(AttentionInstance call, const Siblings& siblings, int32_t first, int32_t last) {
    const int32_t id = int32_t(out.size());
    for (int32_t s = first; s >= 0; s = siblings.next[size_t(s)]) {
        instance_of[size_t(s)] = id;
        if (s == last) break;
    }
    out.push_back(std::move(call));
    return id;
}

int32_t Calls::owner(int32_t i) const {
    for (int32_t a = i; a >= 0; a = events[size_t(a)].parent)
        if (instance_of[size_t(a)] >= 0) return instance_of[size_t(a)];
    return -1;
}

}  // namespace attention_detail

namespace {

using namespace attention_detail;

// Each kernel, copy and set goes to the call whose op (or an op inside it) launched it, or that is the
// kernel itself (a call found by its kernel alone); the distinct kernel names of each call say what
// their names add.
void assign_device_time(Calls& calls, const Trace& trace) {
    const auto& events = calls.events;
    const LaunchingOps ops(trace);
    std::vector<std::vector<const char*>> names(calls.out.size());
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& e = events[i];
        if (e.device == DeviceKind::CPU || !is_device_work(e)) continue;
        int32_t id = calls.instance_of[i];  // a kernel-only call owns its kernel
        if (id < 0) {
            const int32_t op = ops.of(e);
            id = op >= 0 ? calls.owner(op) : -1;
        }
        if (id < 0) continue;
        AttentionInstance& call = calls.out[size_t(id)];
        call.device_ns += e.duration_ns();
        ++call.kernels;
        if (call.device_index < 0) {
            call.device_index = e.device_index;
            call.device_start_ns = e.start_ns;
        }
        auto& seen = names[size_t(id)];
        if (e.kind == EventKind::Kernel && std::find(seen.begin(), seen.end(), e.name.data()) == seen.end()) {
            seen.push_back(e.name.data());
            merge_facts(call.name_facts, name_facts(e.name.view()));
        }
    }
}

void cost(AttentionInstance& a) {
    const int64_t element = trace_dtype_bytes(a.dtype),
                  kv_element = a.kv_dtype.empty() ? element : trace_dtype_bytes(a.kv_dtype);
    if (!a.shape.known()) {
        // A packed batch of several sequences: its tensors' sizes are known, the pairs are not.
        const AttentionShape& s = a.shape;
        if (a.layout == AttentionLayout::Varlen && a.query_tokens > 0 && a.key_tokens > 0 && s.heads_q > 0 &&
            s.heads_kv > 0 && s.head_dim > 0) {
            const AttentionShape packed{1,          s.heads_q,   s.heads_kv, a.query_tokens, a.key_tokens,
                                        s.head_dim, s.head_dim_v};
            a.bytes = attention_bytes(packed, element, a.backward, BytesModel::Ideal, 128, kv_element);
        }
        if (a.missing.empty()) a.missing = "the call's shapes are not all in the trace";
        return;
    }
    a.missing.clear();
    if (a.query_tokens <= 0) a.query_tokens = a.shape.batch * a.shape.seq_q;
    if (a.key_tokens <= 0) a.key_tokens = a.shape.batch * a.shape.seq_k;
    const double pairs_head = a.mean_keys > 0 ? double(a.shape.seq_q) * a.mean_keys
                              : a.causal == 2 ? bottom_right_pairs(a.shape.seq_q, a.shape.seq_k)
                                              : visible_pairs(a.shape.seq_q, a.shape.seq_k, a.causal == 1, a.window);
    a.pairs = pairs_head * double(a.shape.batch) * double(a.shape.heads_q);
    a.flops = attention_flops(a.shape, pairs_head, a.backward);
    if (a.backward) a.flops_backward_no_recompute = attention_flops(a.shape, pairs_head, false) * 2.0;
    a.bytes = attention_bytes(a.shape, element, a.backward, BytesModel::Ideal, 128, kv_element);
    a.bytes_scores = attention_bytes(a.shape, element, a.backward, BytesModel::Scores, 128, kv_element);
    a.bytes_chunked = attention_bytes(a.shape, element, a.backward, BytesModel::Chunked, 128, kv_element);
}

// Calls made while a stream was being captured into a CUDA (HIP) graph: between the thread's
// cudaStreamBeginCapture and cudaStreamEndCapture.
void mark_captured(std::vector<AttentionInstance>& calls, const std::vector<TraceEvent>& events) {
    const std::vector<CaptureRegion> regions = capture_regions(events);
    if (regions.empty()) return;
    for (AttentionInstance& a : calls)
        a.captured = a.captured || std::any_of(regions.begin(), regions.end(), [&a](const CaptureRegion& r) {
                         return r.end_ns != INT64_MAX && r.holds(a.rank, a.thread, a.start_ns);
                     });
}

// Our own run: its spec says what the trace could not (LibTorch's C++ profiler records no Concrete
// Inputs), for calls of the spec's shape (not the chunked variant's blocks). The manual pattern's
// backward (autograd nodes) shows no mask op either.
void apply_spec(AttentionInstance& a, const RunSpec& spec) {
    const bool unknown = a.causal < 0 || (a.backend == AttentionBackend::Manual && a.backward);
    if (!unknown || a.shape.batch != spec.batch || a.shape.heads_q != spec.heads || a.shape.seq_q != spec.seq_q ||
        a.shape.seq_k != spec.seq_k || a.shape.head_dim != spec.head_dim)
        return;
    if (spec.mask == MaskKind::Padding) {
        a.causal = -1;
        a.mean_keys = spec_pairs_per_head(spec) / double(spec.seq_q);
    } else {
        a.causal = spec.mask == MaskKind::None ? 0 : 1;
        if (spec.mask == MaskKind::Window) a.window = spec.window;
    }
}

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
        case AttentionBackend::Library: return "library";
        case AttentionBackend::Unknown: break;
    }
    return "sdpa (backend not recorded)";
}

std::string to_string(AttentionLayout l) {
    switch (l) {
        case AttentionLayout::Dense: return "dense";
        case AttentionLayout::Varlen: return "varlen";
        case AttentionLayout::Paged: return "paged";
    }
    return "?";
}

std::string backend_text(const AttentionInstance& a) {
    return a.backend == AttentionBackend::Library ? a.implementation : to_string(a.backend);
}

int64_t trace_dtype_bytes(const std::string& dtype) {
    if (dtype == "float") return 4;
    if (dtype == "double") return 8;
    if (dtype == "c10::Half" || dtype == "c10::BFloat16" || dtype == "Half" || dtype == "BFloat16") return 2;
    if (dtype.find("Float8") != std::string::npos || dtype == "signed char" || dtype == "unsigned char" ||
        dtype == "c10::Byte" || dtype == "int8")
        return 1;
    if (dtype == "int") return 4;
    if (dtype == "long int" || dtype == "long") return 8;
    return 0;
}

std::vector<AttentionInstance> attention_instances(const Trace& trace, const RunSpec* spec) {
    Calls calls(trace);
    find_op_calls(calls);
    find_manual_calls(calls);
    find_kernel_calls(calls, trace);
    if (calls.out.empty()) return {};
    assign_device_time(calls, trace);
    mark_captured(calls.out, trace.events());
    for (AttentionInstance& a : calls.out) {
        if (spec) apply_spec(a, *spec);
        cost(a);
    }
    std::vector<AttentionInstance> out = std::move(calls.out);
    std::stable_sort(out.begin(), out.end(),
                     [](const AttentionInstance& a, const AttentionInstance& b) { return a.start_ns < b.start_ns; });
    return out;
}

std::vector<AttentionGroup> group_attention(const std::vector<AttentionInstance>& instances) {
    using Key = std::tuple<int, std::string, std::string, bool, int, int64_t, int64_t, int64_t, int64_t, int64_t,
                           int64_t, int64_t, std::string, std::string, int, int64_t, bool>;
    std::map<Key, size_t> index;
    std::vector<AttentionGroup> groups;
    for (const AttentionInstance& a : instances) {
        const AttentionShape& s = a.shape;
        const auto [it, added] = index.try_emplace(
            Key{int(a.backend), a.library, a.implementation, a.backward, int(a.layout), s.batch, s.heads_q, s.heads_kv,
                s.seq_q, s.seq_k, s.head_dim, a.query_tokens, a.dtype, a.kv_dtype, a.causal, a.window, a.replayed},
            groups.size());
        if (added) groups.push_back({a});
        groups[it->second].add(a);
    }
    std::stable_sort(groups.begin(), groups.end(),
                     [](const AttentionGroup& a, const AttentionGroup& b) { return a.time_ns > b.time_ns; });
    return groups;
}

std::string attention_conventions() {
    return "FLOPs: 2 x visible pairs x (D + Dv) forward, backward 2.5x forward as FlashAttention counts (with "
           "recompute; "
           "torch.utils.flop_counter: 2x); causal: top-left as PyTorch's is_causal, '-' a mask tensor (every pair "
           "counted); "
           "bytes: Q, K, V, O once (backward also dO, dQ, dK, dV; a KV cache at its own element size); varlen and "
           "paged calls "
           "need each sequence's lengths, which traces do not hold: FLOPs '?' unless the batch is one sequence; rates "
           "over the "
           "device time, or the CPU time where no kernel ran";
}

std::string bytes_model_convention() {
    return "bytes model: of ideal (each tensor once), scores (the [Nq, Nk] scores at every pass) and chunked (K, V "
           "re-read per "
           "128-query block), the one whose roofline time max(FLOP / peak, bytes / bandwidth) is nearest the measured "
           "time; '=' when "
           "all three give the same time (compute-bound)";
}

std::vector<Roof> call_roofs(const Roof& measured, const std::string& device_name,
                             const std::vector<AttentionInstance>& calls) {
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
    uncosted_calls += a.costed() ? 0 : 1;
    cpu_ns += a.cpu_ns();
    device_ns += a.device_ns;
    time_ns += a.time_ns();
    kernels += a.kernels;
    flops += a.flops;
    bytes += a.bytes;
    bytes_scores += a.bytes_scores;
    bytes_chunked += a.bytes_chunked;
}

AttentionGroup AttentionGroup::of(const AttentionInstance& call) {
    AttentionGroup one{call};
    one.add(call);
    return one;
}

RoofFit roof_fit(const AttentionInstance& call, const Roof& roof) { return roof_fit(AttentionGroup::of(call), roof); }

RoofFit roof_fit(const AttentionGroup& g, const Roof& roof) {
    RoofFit fit;
    const bool cpu_roof = roof.measured && roof.device == "CPU";
    fit.applies = roof.known() && g.first.shape.known() && g.time_ns > 0 && g.bytes > 0 &&
                  (cpu_roof ? g.device_ns == 0 : g.device_ns > 0);
    if (!fit.applies) return fit;
    fit.attainable_tflops = roof.attainable_tflops(g.flops, g.bytes);
    fit.share = fit.attainable_tflops > 0 ? g.tflops_per_s() / fit.attainable_tflops : 0.0;
    const double bytes[3] = {g.bytes, g.bytes_scores, g.bytes_chunked};
    fit.bytes = fit_bytes_model(g.flops, bytes, double(g.time_ns), roof.peak_tflops, roof.memory_tb_s);
    return fit;
}

}  // namespace awb
