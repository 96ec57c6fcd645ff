// The kernel recogniser: attention kernels known by name (attention_rules.h's kernel rules) that no
// call's op launched: a Triton or custom kernel with no aten op around it, an inference engine's
// kernel under an op the table does not know, or a kernel replayed from a graph with no op at all.
// One call per launching op (its CPU span; its device time the op's attention kernels only, as the op
// may launch others), or per kernel when the kernel's launch names no op (then it has no CPU span).
// Shapes come from the launching op when it is the kernel's own (Inductor names it after the kernel).
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "analysis/attention_detail.h"
#include "analysis/attention_rules.h"
#include "analysis/trace_links.h"

namespace awb::attention_detail {

namespace {

// The rule's shapes from the launching op's inputs (an Inductor kernel's op records them), when the
// rule gives a layout.
void read_launching_op(AttentionInstance& call, const TraceEvent& op, const AttentionRule& r) {
    const std::vector<int64_t>*q = input(op, r.q), *k = input(op, r.k), *v = input(op, r.v);
    if (r.layout != QkvLayout::BHND || !q || !k || q->size() != 4 || k->size() != 4) {
        call.missing = r.note.empty() ? "found by its kernel's name: no shapes in the trace" : std::string(r.note);
        return;
    }
    call.shape = {(*q)[0], (*q)[1], (*k)[1], (*q)[2], (*k)[2], (*q)[3], v && v->size() == 4 ? (*v)[3] : (*q)[3]};
    call.query_tokens = call.shape.batch * call.shape.seq_q;
    call.key_tokens = call.shape.batch * call.shape.seq_k;
    call.dtype = dtype_of(op, r.q);
    const std::string kv = dtype_of(op, r.v);
    if (!kv.empty() && kv != call.dtype) call.kv_dtype = kv;
}

AttentionInstance kernel_call(const Calls& calls, int32_t at, const AttentionRule& r) {
    AttentionInstance call = calls.at(at);
    call.backend = AttentionBackend::Library;
    call.library = r.library;
    call.implementation = r.implementation;
    call.backward = r.backward;
    call.missing = r.note.empty() ? "found by its kernel's name: no shapes in the trace" : std::string(r.note);
    return call;
}

// The correlation ids of graph launches (cudaGraphLaunch, hipGraphLaunch), per rank: their kernels'
// External id names the op around the launch (a torch.compile region), not the kernel's own op.
std::unordered_set<int64_t> graph_launches(const std::vector<TraceEvent>& events) {
    std::unordered_set<int64_t> out;
    for (const TraceEvent& e : events)
        if (e.kind == EventKind::Runtime && e.correlation_id > 0 && e.name.find("GraphLaunch") != std::string::npos)
            out.insert(link_key(e.rank, e.correlation_id));
    return out;
}

}  // namespace

void find_kernel_calls(Calls& calls, const Trace& trace) {
    const auto& events = calls.events;
    std::unordered_map<const char*, const AttentionRule*> rule_of;
    std::unordered_map<int32_t, int32_t> call_of_op;  // launching op -> the call its attention kernels make
    const LaunchingOps ops(trace);
    std::optional<std::unordered_set<int64_t>> graphs;  // built at the first attention kernel
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& e = events[i];
        if (e.kind != EventKind::Kernel) continue;
        auto [it, added] = rule_of.try_emplace(e.name.data(), nullptr);
        if (added) it->second = match_kernel_rule(e.name.view());
        const AttentionRule* rule = it->second;
        if (!rule) continue;
        int32_t op = ops.of(e);
        if (op >= 0 && calls.owner(op) >= 0) continue;  // a call's op launched it: its device time already
        if (!graphs) graphs = graph_launches(events);
        // A region (a user's record_function) or a graph launch holds many kernels: not one call's op.
        // (A graph's kernel that a capture trace attributed to its captured op keeps that op: graph_replay.h.)
        const bool via_graph =
            graphs->count(link_key(e.rank, e.correlation_id)) && !(op >= 0 && events[size_t(op)].replayed);
        if (op >= 0 && (events[size_t(op)].kind != EventKind::CpuOp || via_graph)) op = -1;
        if (op >= 0) {
            // One call per launching op; it owns its attention kernels only (the op may launch others).
            auto [call, fresh] = call_of_op.try_emplace(op, -1);
            if (fresh) {
                AttentionInstance found = kernel_call(calls, op, *rule);
                if (match_kernel_rule(events[size_t(op)].name.view()) == rule)
                    read_launching_op(found, events[size_t(op)], *rule);
                call->second = calls.add_unowned(std::move(found));
            }
            calls.instance_of[i] = call->second;
            continue;
        }
        AttentionInstance call = kernel_call(calls, int32_t(i), *rule);
        call.kernel_only = true;
        call.missing =
            "a kernel with no op recorded around its launch (a CUDA graph's replay, or a bare launch): no shapes; a "
            "capture trace names a replay's ops (attnwb inspect --capture)";
        calls.add(std::move(call), int32_t(i));
    }
}

}  // namespace awb::attention_detail
