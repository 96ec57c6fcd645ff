#include "analysis/advisor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "analysis/collective_findings.h"
#include "analysis/memory_replay.h"
#include "model/recorded_steps.h"
#include "analysis/op_columns.h"
#include "analysis/results_text.h"
#include "analysis/trace_links.h"
#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

template <typename... Args>
std::string fmt(const char* format, Args... args) {
    return printf_string(format, double(args)...);
}

// The innermost CPU op holding each allocation (by thread and time): one pass over the events, the
// allocations sorted by time. Names in allocation order; "(no op)" where none holds it.
std::vector<std::string> ops_at(const Trace& trace, const std::vector<const MemoryEvent*>& allocations) {
    std::vector<size_t> order(allocations.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return allocations[a]->ts_ns < allocations[b]->ts_ns; });
    std::vector<const TraceEvent*> best(allocations.size(), nullptr);
    for (const auto& e : trace.events()) {
        if (e.device != DeviceKind::CPU || e.kind == EventKind::Other) continue;
        auto it = std::lower_bound(order.begin(), order.end(), e.start_ns,
                                   [&](size_t i, int64_t ts) { return allocations[i]->ts_ns < ts; });
        for (; it != order.end() && allocations[*it]->ts_ns <= e.end_ns; ++it)
            if (allocations[*it]->thread == e.thread && (!best[*it] || e.depth >= best[*it]->depth)) best[*it] = &e;
    }
    std::vector<std::string> names;
    for (const TraceEvent* e : best) names.push_back(e ? e->name.str() : std::string("(no op)"));
    return names;
}

// What to do about materialised scores depends on what sdpa is on the run's LibTorch (measured in
// tests/engine/test_sdpa_backends.cpp): 1.13's is the math path, 2.x's a fused kernel unless math is forced.
std::string score_matrix_action(const ProfileResult& run) {
    const bool torch1 = run.environment.torch_version.rfind("1.", 0) == 0;
    const std::string chunked = "the chunked variant (block-wise online softmax) never holds it either";
    if (run.spec.variant == "sdpa" && torch1)
        return "On LibTorch " + run.environment.torch_version +
               " scaled_dot_product_attention is the math path and "
               "holds [N, N] itself; LibTorch 2.x runs a fused kernel that does not (flash on CPU; flash, "
               "memory-efficient or cuDNN on CUDA): profile it there (scripts/build.sh --torch2); " +
               chunked + ".";
    if (run.spec.variant == "sdpa" && run.spec.sdpa_backend == SdpaBackend::Math)
        return "The math backend was forced (--sdpa-backend math): auto or flash (CPU and CUDA), efficient or cudnn "
               "(CUDA) run fused kernels whose memory is linear in N.";
    return "Use an attention that never holds [N, N]: scaled_dot_product_attention on LibTorch 2.x (flash on CPU; "
           "flash, memory-efficient or cuDNN on CUDA; on 1.13 it is the math path and holds it too), or " +
           chunked + "; memory becomes linear in N.";
}

void score_matrix(const ProfileResult& run, const RunAnalysis& analysis, const AdvisorThresholds& t,
                  std::vector<Finding>& out) {
    if (!run.spec_known) return;  // a foreign trace: B, H, N are not known
    const RunSpec& s = run.spec;
    const int64_t bytes = s.batch * s.heads * s.seq_q * s.seq_k * element_size(s.dtype);
    if (bytes <= 0) return;
    int64_t peak = 0;
    const char* basis = "relative";  // of the trace's peak: the allocator's Total Allocated, or relative to the start
    for (const auto& series : analysis.memory)
        if (series.device == s.device.kind && series.quoted_peak_bytes() > peak) {
            peak = series.quoted_peak_bytes();
            basis = memory_peak_basis(series);
        }
    if (run.device_peak_bytes > 0) peak = std::max(peak, run.device_peak_bytes);
    if (peak <= 0 || double(bytes) < t.score_share_of_peak * double(peak)) return;
    std::vector<const MemoryEvent*> matching;
    for (const auto& m : run.trace.memory())
        if (m.device == s.device.kind && double(m.bytes) >= 0.95 * double(bytes) &&
            double(m.bytes) <= 1.05 * double(bytes))
            matching.push_back(&m);
    const int count = int(matching.size());
    std::map<std::string, int> by_op;
    for (const std::string& name : ops_at(run.trace, matching)) ++by_op[name];
    if (count == 0) return;
    const int steps = recorded_step_count(run);
    Finding f;
    f.rule = "score-matrix";
    f.weight = double(bytes) / double(peak);
    f.title = "The [B, H, Nq, Nk] = [" + std::to_string(s.batch) + ", " + std::to_string(s.heads) + ", " +
              std::to_string(s.seq_q) + ", " + std::to_string(s.seq_k) + "] " + to_string(s.dtype) + " score matrix (" +
              format_mib(bytes) + ") is materialised: " + fmt("%.0f", double(count) / steps) +
              " allocation(s) of that size per step, each " + format_share(f.weight) + " of the peak";
    for (const auto& [name, n] : by_op)
        f.evidence.push_back(name + " allocates " + format_mib(bytes) + fmt(" (%.0f per step)", double(n) / steps));
    f.evidence.push_back(
        "peak memory " + format_mib(peak) + " (" +
        (run.device_peak_bytes > 0 ? std::string("CUDA allocator") : std::string("[memory] events, ") + basis) + ")");
    f.evidence.push_back("memory for [N, N] grows as N^2: at 2N it is " + format_mib(bytes * 4));
    f.action = score_matrix_action(run);
    out.push_back(std::move(f));
}

// ---- materialised scores of manual attention in a trace without a spec ----

// The work between a manual call's two matmuls (softmax, scale, mask, dropout, casts): the outermost CPU
// ops on the call's thread after its Q K^T op ends and before its P V op; their CPU time and the device
// time of what they launched, per op name.
struct BetweenOps {
    std::map<std::string, std::pair<int64_t, int64_t>> by_name;  // name -> (CPU ns, device ns)
    int64_t cpu_ns = 0, device_ns = 0;
};

bool is_product_op(const EventName& n) {
    return n == "aten::matmul" || n == "aten::bmm" || n == "aten::baddbmm" || n == "aten::einsum" || n == "aten::mm";
}

// Marks the ops between the call's two matmuls (their outermost ones only).
void mark_between(const Trace& trace, const AttentionInstance& call, std::vector<char>& marks) {
    const auto& events = trace.events();
    if (call.event < 0 || size_t(call.event) >= events.size()) return;  // a call read back without its trace
    const TraceEvent& qk = events[size_t(call.event)];
    for (size_t i = size_t(call.event) + 1; i < events.size() && events[i].start_ns <= call.end_ns; ++i) {
        const TraceEvent& e = events[i];
        if (e.kind != EventKind::CpuOp || !nests_on_cpu(e) || e.thread != call.thread || e.rank != call.rank ||
            e.start_ns < qk.end_ns || e.end_ns > call.end_ns || is_product_op(e.name))
            continue;
        bool nested = false;  // inside an op that itself starts after Q K^T: counted there, or P V's own
        for (int32_t a = e.parent; a >= 0 && !nested; a = events[size_t(a)].parent)
            nested = events[size_t(a)].kind == EventKind::CpuOp && events[size_t(a)].start_ns >= qk.end_ns;
        if (!nested) marks[i] = 1;
    }
}

// The marked op holding event i (or i itself), -1 for none.
int32_t marked_holder(const std::vector<TraceEvent>& events, const std::vector<char>& marks, int32_t i) {
    for (int32_t a = i; a >= 0; a = events[size_t(a)].parent)
        if (marks[size_t(a)]) return a;
    return -1;
}

BetweenOps between_ops(const Trace& trace, const std::vector<const AttentionInstance*>& calls) {
    const auto& events = trace.events();
    std::vector<char> marks(events.size(), 0);
    for (const AttentionInstance* c : calls) mark_between(trace, *c, marks);
    BetweenOps out;
    for (size_t i = 0; i < events.size(); ++i)
        if (marks[i]) {
            out.by_name[events[i].name.str()].first += events[i].duration_ns();
            out.cpu_ns += events[i].duration_ns();
        }
    const LaunchingOps ops(trace);
    for (const TraceEvent& e : events) {
        const int32_t op = e.device != DeviceKind::CPU && is_device_work(e) ? ops.of(e) : -1;
        const int32_t holder = op >= 0 ? marked_holder(events, marks, op) : -1;
        if (holder < 0) continue;
        out.by_name[events[size_t(holder)].name.str()].second += e.duration_ns();
        out.device_ns += e.duration_ns();
    }
    return out;
}

// The trace's time the shares are of: all kernels, copies and sets; or, on a CPU-only trace, the
// outermost CPU ops.
struct TraceTime {
    int64_t ns = 0;
    bool device = false;
};

TraceTime trace_time(const Trace& trace) {
    TraceTime t;
    const auto& events = trace.events();
    for (const TraceEvent& e : events)
        if (e.device != DeviceKind::CPU && is_device_work(e)) t.ns += e.duration_ns();
    t.device = t.ns > 0;
    if (t.device) return t;
    for (const TraceEvent& e : events) {
        if (e.kind != EventKind::CpuOp || !nests_on_cpu(e)) continue;
        bool outermost = true;
        for (int32_t a = e.parent; a >= 0 && outermost; a = events[size_t(a)].parent)
            outermost = events[size_t(a)].kind != EventKind::CpuOp;
        if (outermost) t.ns += e.duration_ns();
    }
    return t;
}

// "[B, H, Nq, Nk] = [2, 8, 1024, 1024]" or, heads folded, "[BxH, Nq, Nk] = [16, 1024, 1024]".
std::string scores_shape(const AttentionInstance& c) {
    const AttentionShape& s = c.shape;
    if (c.heads_folded)
        return "[BxH, Nq, Nk] = [" + std::to_string(s.batch) + ", " + std::to_string(s.seq_q) + ", " +
               std::to_string(s.seq_k) + "]";
    return "[B, H, Nq, Nk] = [" + std::to_string(s.batch) + ", " + std::to_string(s.heads_q) + ", " +
           std::to_string(s.seq_q) + ", " + std::to_string(s.seq_k) + "]";
}

// 0 when the element size is unknown or the size does not fit (a damaged trace's dims).
int64_t scores_bytes(const AttentionInstance& c) {
    int64_t bytes = trace_dtype_bytes(c.dtype);
    for (int64_t d : {c.shape.batch, c.shape.heads_q, c.shape.seq_q, c.shape.seq_k, int64_t(4)})
        if (d <= 0 || __builtin_mul_overflow(bytes, d, &bytes)) return 0;
    return bytes / 4;  // the factor 4 checked that the size at 2N fits too
}

// The manual forward calls grouped by their scores (shape, dtype), most bytes in all first.
std::vector<std::vector<const AttentionInstance*>> score_groups(const std::vector<AttentionInstance>& calls) {
    std::map<std::tuple<std::string, std::string, std::string>, std::vector<const AttentionInstance*>> groups;
    for (const AttentionInstance& c : calls)
        if (c.backend == AttentionBackend::Manual && !c.backward && c.shape.known())
            groups[{scores_shape(c), c.dtype, c.op}].push_back(&c);
    std::vector<std::vector<const AttentionInstance*>> out;
    for (auto& [key, members] : groups) out.push_back(std::move(members));
    auto total = [](const std::vector<const AttentionInstance*>& g) {
        return double(scores_bytes(*g.front())) * double(g.size());
    };
    std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return total(a) > total(b); });
    return out;
}

std::string group_evidence(const std::vector<const AttentionInstance*>& g) {
    const AttentionInstance& c = *g.front();
    const int64_t bytes = scores_bytes(c);
    return c.op + fmt(": %.0f forward call(s) on ", double(g.size())) + scores_shape(c) + " " + c.dtype + " scores" +
           (c.heads_folded ? " (heads folded into the batch)" : "") + ", " +
           (bytes > 0 ? format_bytes(bytes) + " per call" : "size unknown") + "; [Nq, Nk] grows as N^2: at 2N " +
           (bytes > 0 ? format_bytes(bytes * 4) : "4x");
}

// The calls' own time (their two matmuls and the ops between) against the trace's.
void calls_evidence(const std::vector<const AttentionInstance*>& calls, const BetweenOps& between,
                    const TraceTime& total, Finding& f) {
    int64_t ns = 0;
    for (const AttentionInstance* c : calls) ns += total.device ? c->device_ns : c->cpu_ns();
    const int64_t between_ns = total.device ? between.device_ns : between.cpu_ns;
    if (ns <= 0 || total.ns <= 0) return;
    f.evidence.push_back(fmt("the %.0f forward call(s): ", double(calls.size())) + format_duration_ns(double(ns)) +
                         " (" + format_share(double(ns) / double(total.ns)) +
                         (total.device ? " of the device time" : " of the CPU op time") +
                         "), the matmuls and layout ops " + format_duration_ns(double(ns - between_ns)) +
                         ", the ops between " + format_duration_ns(double(between_ns)));
}

void between_evidence(const BetweenOps& between, const TraceTime& total, Finding& f) {
    std::vector<std::pair<int64_t, std::string>> ops;
    for (const auto& [name, t] : between.by_name) ops.push_back({total.device ? t.second : t.first, name});
    std::sort(ops.rbegin(), ops.rend());
    const std::string of = total.device ? " of the trace's device time" : " of the trace's CPU op time";
    std::string line =
        "between the two matmuls: " + format_duration_ns(double(total.device ? between.device_ns : between.cpu_ns)) +
        " (" + format_share(f.weight) + of + ")";
    for (size_t i = 0; i < ops.size() && i < 4; ++i)
        line += (i == 0 ? ": " : ", ") + ops[i].second + " " + format_duration_ns(double(ops[i].first));
    f.evidence.push_back(line);
}

// Manual attention in a trace without a spec (an imported one): the [B, H, Nq, Nk] scores are held in
// memory between the two matmuls, and the softmax, scale, mask and dropout run over them as separate
// ops; a fused attention holds neither.
void materialised_scores(const ProfileResult& run, const RunAnalysis& analysis, std::vector<Finding>& out) {
    if (run.spec_known) return;  // our own runs: the score-matrix rule, from the spec and the memory
    const auto groups = score_groups(analysis.attention);
    if (groups.empty()) return;
    std::vector<const AttentionInstance*> calls;
    for (const auto& g : groups) calls.insert(calls.end(), g.begin(), g.end());
    const BetweenOps between = between_ops(run.trace, calls);
    const TraceTime total = trace_time(run.trace);
    Finding f;
    f.rule = "materialised-scores";
    f.weight = total.ns > 0 ? double(total.device ? between.device_ns : between.cpu_ns) / double(total.ns) : 0.0;
    const AttentionInstance& c = *groups.front().front();
    const int64_t bytes = scores_bytes(c), others = int64_t(calls.size() - groups.front().size());
    f.title = "Manual attention materialises its " + scores_shape(c) + " " + c.dtype + " scores" +
              (bytes > 0 ? " (" + format_bytes(bytes) + " per call)" : "") +
              fmt(" in %.0f forward call(s)", double(groups.front().size())) +
              (others > 0 ? fmt(" and %.0f of other shapes", double(others)) : "") +
              "; the ops between its matmuls take " + format_share(f.weight) +
              (total.device ? " of the device time" : " of the CPU op time");
    for (const auto& g : groups) f.evidence.push_back(group_evidence(g));
    calls_evidence(calls, between, total, f);
    between_evidence(between, total, f);
    f.action =
        "Replace the written-out attention with one fused call: torch.nn.functional.scaled_dot_product_attention "
        "(Hugging Face: attn_implementation=\"sdpa\"). Its flash, memory-efficient and cuDNN kernels never hold "
        "[Nq, Nk] (memory linear in N) and apply the scale, mask, softmax and dropout inside the kernel; pass the "
        "mask as attn_mask or is_causal=True. [BxH, N, D] tensors can be passed as they are or viewed as [B, H, N, D].";
    out.push_back(std::move(f));
}

void layout_copies(const ProfileResult& run, const std::vector<OperatorRow>& rows, const AdvisorThresholds& t,
                   std::vector<Finding>& out) {
    static const std::set<std::string> kCopies = {"aten::copy_", "aten::contiguous", "aten::_to_copy", "aten::clone"};
    const OpTableTotals total = totals(rows);
    if (total.self_cpu_ns <= 0) return;
    int64_t copy_ns = 0;
    std::vector<const OperatorRow*> found;
    for (const auto& r : rows)
        if (r.device == DeviceKind::CPU && kCopies.count(r.name)) {
            copy_ns += r.self_cpu_ns;
            found.push_back(&r);
        }
    const double share = double(copy_ns) / double(total.self_cpu_ns);
    if (found.empty() || share < t.copy_share_of_self_cpu) return;
    const int steps = recorded_step_count(run);
    Finding f;
    f.rule = "layout-copies";
    f.weight = share;
    f.title = "Layout copies take " + format_share(share) + " of self CPU time (" +
              format_duration_ns(double(copy_ns) / steps) + " per step)";
    for (const OperatorRow* r : found)
        f.evidence.push_back(
            r->name + ": " + fmt("%.0f calls per step, ", double(r->calls) / steps) +
            format_duration_ns(double(r->self_cpu_ns) / steps) + " self per step" +
            (r->cpu_memory_bytes > 0 ? ", " + format_mib(r->cpu_memory_bytes / steps) + " per step" : ""));
    if (run.spec.layout == Layout::BNHD) {
        f.evidence.push_back("q, k, v arrive as [B, N, H, D] (layout bnhd) and are transposed before the matmuls");
        f.action =
            "Fix the projection's output layout: have it produce [B, H, N, D] (or pass the transposed views to "
            "scaled_dot_product_attention, which takes strided inputs) instead of copying after the transpose.";
    } else {
        f.action =
            "Find the transpose / permute that feeds each copy (the timeline shows the parent op) and produce the "
            "layout the next op wants directly, instead of calling .contiguous() after it.";
    }
    out.push_back(std::move(f));
}

void fragmentation(const ProfileResult& run, const std::vector<OperatorRow>& rows, const AdvisorThresholds& t,
                   std::vector<Finding>& out) {
    const int steps = recorded_step_count(run);
    const OpTableTotals total = totals(rows);
    std::vector<const OperatorRow*> many;
    int64_t self = 0;
    for (const auto& r : rows) {
        if (r.device != DeviceKind::CPU || r.calls == 0 || r.name == "ProfilerStep*") continue;
        const double per_step = double(r.calls) / steps;
        const double avg_us = double(r.self_cpu_ns) / double(r.calls) / 1e3;
        if (per_step >= t.calls_per_step && avg_us <= t.max_avg_self_us) {
            many.push_back(&r);
            self += r.self_cpu_ns;
        }
    }
    if (many.empty()) return;
    std::sort(many.begin(), many.end(), [](const OperatorRow* a, const OperatorRow* b) { return a->calls > b->calls; });
    Finding f;
    f.rule = "fragmentation";
    f.weight = total.self_cpu_ns > 0 ? double(self) / double(total.self_cpu_ns) : 0;
    f.title = std::to_string(many.size()) + " operator(s) run " + fmt("%.0f", t.calls_per_step) +
              "+ times per step for little work each (" + format_share(f.weight) + " of self CPU time)";
    for (size_t i = 0; i < many.size() && i < 5; ++i)
        f.evidence.push_back(many[i]->name + fmt(": %.0f calls per step, %.2f us self each",
                                                 double(many[i]->calls) / steps,
                                                 double(many[i]->self_cpu_ns) / double(many[i]->calls) / 1e3));
    f.action =
        "Fuse or batch: replace loops over heads or rows with one batched op (one bmm, not one matmul per head); "
        "each call pays the dispatcher's fixed cost whatever its size.";
    out.push_back(std::move(f));
}

// The host waiting, not dispatching: synchronisations with the device (cuda/hip/cu Stream, Device,
// Event and context synchronize) and the DataLoader handing over a batch (its __next__, as PyTorch's
// record_function "enumerate(DataLoader)#..." or the Python frame of dataloader.py names it).
const char* host_wait_kind(const TraceEvent& e) {
    if (e.device != DeviceKind::CPU) return nullptr;
    const std::string_view n = e.name;
    auto has = [n](std::string_view s) { return n.find(s) != std::string_view::npos; };
    if (has("StreamSynchronize") || has("DeviceSynchronize") || has("EventSynchronize") || has("CtxSynchronize"))
        return "device synchronisation";
    if ((has("DataLoader") || has("dataloader.py")) && (has("__next__") || n.rfind("enumerate(DataLoader)", 0) == 0))
        return "DataLoader";
    return nullptr;
}

struct HostWaits {
    int64_t ns = 0;  // merged over threads, within the steps (the whole trace without any)
    std::map<std::string, std::pair<int64_t, int64_t>> by_name;  // name -> calls, summed time (not merged)
};

// The waits inside the given spans, their intervals merged (nested or overlapping waits count once).
HostWaits host_waits(const Trace& trace, const std::vector<std::pair<int64_t, int64_t>>& spans) {
    HostWaits w;
    std::vector<std::pair<int64_t, int64_t>> in;
    for (const auto& e : trace.events()) {
        if (!host_wait_kind(e)) continue;
        for (const auto& [from, to] : spans) {
            const int64_t a = std::max(from, e.start_ns), b = std::min(to, e.end_ns);
            if (b <= a) continue;
            in.push_back({a, b});
            auto& [calls, ns] = w.by_name[e.name];
            ++calls;
            ns += b - a;
        }
    }
    std::sort(in.begin(), in.end());
    int64_t end = INT64_MIN;
    for (const auto& [a, b] : in) {
        w.ns += std::max<int64_t>(0, b - std::max(a, end));
        end = std::max(end, b);
    }
    return w;
}

void dispatch_bound(const ProfileResult& run, const std::vector<OperatorRow>& rows, const AdvisorThresholds& t,
                    std::vector<Finding>& out) {
    int64_t device_ns = 0, step_ns = 0, launches = 0;
    std::vector<std::pair<int64_t, int64_t>> steps;
    for (const auto& e : run.trace.events()) {
        if (e.device != DeviceKind::CPU && is_device_work(e)) device_ns += e.duration_ns();
        // A launch is a kernel started: the runtime's other calls (copies, sets, syncs, queries) are not.
        launches += e.device != DeviceKind::CPU && e.kind == EventKind::Kernel ? 1 : 0;
    }
    for (size_t i : step_span_events(run.trace)) {
        const TraceEvent& e = run.trace.events()[i];
        step_ns += e.duration_ns();
        steps.push_back({e.start_ns, e.end_ns});
    }
    if (device_ns <= 0) return;  // a CPU run: no device to starve
    if (steps.empty()) {
        step_ns = run.trace.end_ns() - run.trace.begin_ns();
        steps.push_back({run.trace.begin_ns(), run.trace.end_ns()});
    }
    // Waiting is not dispatch: a step spent in cudaStreamSynchronize or the DataLoader is not CPU-bound.
    const HostWaits waits = host_waits(run.trace, steps);
    const int64_t cpu_ns = step_ns - waits.ns;
    const double ratio = double(cpu_ns) / double(device_ns);
    if (ratio < t.cpu_over_device) return;
    const int n = int(steps.size());
    Finding f;
    f.rule = "dispatch-bound";
    f.weight = 1.0 - 1.0 / ratio;
    f.title = "CPU-bound: " + format_duration_ns(double(cpu_ns) / n) + " of CPU time per step against " +
              format_duration_ns(double(device_ns) / n) + " of kernels (" + fmt("%.1fx", ratio) +
              "); the device waits for launches";
    if (waits.ns > 0) f.title += " (" + format_duration_ns(double(waits.ns) / n) + " per step of waiting left out)";
    f.evidence.push_back(
        fmt("%.0f kernel launches per step, %.1f us of device time (kernels, copies, sets) per launch on average",
            double(launches) / n, launches ? double(device_ns) / double(launches) / 1e3 : 0.0));
    for (const auto& [name, calls_ns] : waits.by_name)
        f.evidence.push_back("waiting, not dispatch: " + name +
                             fmt(": %.0f calls per step, ", double(calls_ns.first) / n) +
                             format_duration_ns(double(calls_ns.second) / n) + " per step");
    std::vector<OperatorRow> top(rows.begin(), rows.end());
    sort_rows(top, SortKey::SelfCpu);
    for (size_t i = 0, shown = 0; i < top.size() && shown < 3; ++i)
        if (top[i].device == DeviceKind::CPU && top[i].name != "ProfilerStep*") {
            f.evidence.push_back(top[i].name + ": " + format_duration_ns(double(top[i].self_cpu_ns) / n) +
                                 " self CPU per step, " + format_duration_ns(double(top[i].self_device_ns) / n) +
                                 " on the device");
            ++shown;
        }
    f.action =
        "Overhead, not arithmetic: fewer, larger launches (batch more work per op, fuse with torch.compile, "
        "capture the step in a CUDA graph) and remove host syncs (cudaStreamSynchronize, .item()).";
    out.push_back(std::move(f));
}

void cold_start(const BenchResult& b, const AdvisorThresholds& t, std::vector<Finding>& out) {
    if (b.timing.median_ns <= 0 || b.cold_ns <= 0) return;
    const double ratio = b.cold_ns / b.timing.median_ns;
    if (ratio < t.cold_over_median) return;
    Finding f;
    f.rule = "cold-start";
    f.weight = std::min(1.0, (ratio - 1) / ratio);
    f.title = "The first iteration is " + fmt("%.1fx", ratio) + " the steady state (" + format_duration_ns(b.cold_ns) +
              " vs a median of " + format_duration_ns(b.timing.median_ns) + ")";
    f.evidence.push_back("cold iteration on fresh inputs " + format_duration_ns(b.cold_ns) + "; then " +
                         std::to_string(b.warmup_iterations) + " warm-up iteration(s) and " +
                         std::to_string(b.timing.repeats) + " timed samples");
    f.action =
        "Warm up before timing (allocator, kernel selection, lazy initialisation are one-time costs) and report "
        "the first call separately if users pay it (a server's first request).";
    out.push_back(std::move(f));
}

void profiler_distortion(const BenchResult& b, const AdvisorThresholds& t, std::vector<Finding>& out) {
    if (b.profiler_overhead < t.profiler_overhead) return;
    Finding f;
    f.rule = "profiler-distortion";
    f.weight = std::min(1.0, (b.profiler_overhead - 1) / b.profiler_overhead);
    f.title = "The profiler slows a step " + fmt("%.2fx", b.profiler_overhead) + " (" +
              format_duration_ns(b.profiled_step_ns) + " profiled vs " + format_duration_ns(b.timing.median_ns) +
              " off)";
    f.evidence.push_back("median profiled step " + format_duration_ns(b.profiled_step_ns) + ", profiler-off median " +
                         format_duration_ns(b.timing.median_ns) + " (p10-p90 " + format_duration_ns(b.timing.p10_ns) +
                         " - " + format_duration_ns(b.timing.p90_ns) + ")");
    f.action =
        "Quote profiler-off times (attnwb bench); read the profile for where time goes (shares, shapes, calls), "
        "not for how long a step takes.";
    out.push_back(std::move(f));
}

void length_sensitivity(const SweepResult& sweep, const AdvisorThresholds& t, std::vector<Finding>& out) {
    // Per curve (everything but N the same): time per FLOP at each N.
    std::map<std::string, std::vector<std::pair<int64_t, double>>> curves;
    for (const auto& p : sweep.points) {
        if (p.status != PointStatus::Ok || p.bench.timing.median_ns <= 0) continue;
        const double flops = p.bench.flops > 0 ? p.bench.flops : attention_flops(p.spec);
        if (flops <= 0) continue;
        curves[series_name(p.spec)].push_back({p.spec.seq_k, p.bench.timing.median_ns / flops});
    }
    for (auto& [name, points] : curves) {
        if (points.size() < 2) continue;
        const auto [lo, hi] = std::minmax_element(points.begin(), points.end(),
                                                  [](const auto& a, const auto& b) { return a.second < b.second; });
        const double spread = hi->second / lo->second;
        if (spread < t.time_per_flop_spread) continue;
        Finding f;
        f.rule = "length-sensitivity";
        f.weight = std::min(1.0, (spread - 1) / spread);
        f.title = "Time per FLOP changes " + fmt("%.1fx", spread) + " across sequence lengths (" + name + ")";
        std::sort(points.begin(), points.end());
        for (const auto& [n, ns_per_flop] : points)
            f.evidence.push_back(fmt("N = %.0f: %.2f ms per GFLOP", double(n), ns_per_flop * 1e9 / 1e6));
        f.action =
            "Bucket the lengths your traffic has (pad to a few sizes) and benchmark each bucket; one length does "
            "not predict another (different kernels, cache behaviour, memory traffic).";
        out.push_back(std::move(f));
    }
}

void precision(const CheckReport& check, std::vector<Finding>& out) {
    for (const auto& v : check.variants) {
        if (v.passed) continue;
        Finding f;
        f.rule = "precision";
        f.weight = 1.0;
        f.title = v.variant + " is out of tolerance in " + to_string(check.spec.dtype) + " (tolerance " +
                  fmt("%.1e", check.tolerance) + " of max |ref|)";
        if (!v.failure.empty()) f.evidence.push_back("did not run: " + v.failure);
        for (const auto& e : v.tensors)
            if (!e.passed)
                f.evidence.push_back(e.name + ": error " + fmt("%.2e", e.error) + " (max |x - ref| " +
                                     fmt("%.2e", e.max_abs_error) + ", max |ref| " + fmt("%.2e", e.ref_max_abs) + ")" +
                                     (e.finite ? "" : ", NaN or inf"));
        for (const auto& m : v.mask_checks)
            if (!m.passed) f.evidence.push_back(m.name + ": " + m.detail);
        f.action =
            "Do not compare its timings until it is right: compute the softmax in float32 (upcast the scores), "
            "check the mask handling named above, or use a variant within tolerance.";
        out.push_back(std::move(f));
    }
}

// A trace recorded while CUDA graphs were captured: its kernels did not run, so no device figure of it
// describes the model (and CPU over device time is capture overhead, not dispatch).
bool graph_capture(const RunAnalysis& analysis, std::vector<Finding>& out) {
    const GraphCaptureSummary& c = analysis.capture;
    if (c.graphs == 0) return false;
    Finding f;
    f.rule = "graph-capture";
    f.weight = 1.0;  // it qualifies every other figure: first
    f.title = "A graph-capture trace: " + std::to_string(c.launches) + " launches inside " + std::to_string(c.graphs) +
              " captured graphs did not run, so its device time is not the model's";
    f.evidence.push_back(std::to_string(c.graphs) + " " + c.begin_call + " .. EndCapture regions holding " +
                         std::to_string(c.launches) + " kernel, copy and set launches");
    f.evidence.push_back(
        std::to_string(c.device_events) +
        " device events ran outside the captures (warm-up, copies): " + format_duration_ns(double(c.device_ns)));
    f.action =
        "Open the replay trace (the one recorded while the graphs ran) with this capture: attnwb inspect REPLAY "
        "--capture "
        "CAPTURE, or File > Open of both files; its kernels are then attributed to the ops captured here.";
    out.push_back(std::move(f));
    return true;
}

}  // namespace

std::vector<Finding> advise(const Measurements& in, const AdvisorThresholds& t) {
    std::vector<Finding> out;
    if (in.run) {
        std::optional<RunAnalysis> computed;
        if (!in.run_analysis) computed = analyze_run(*in.run);
        const RunAnalysis& analysis = in.run_analysis ? *in.run_analysis : *computed;
        const std::vector<OperatorRow>& rows = analysis.operators;
        score_matrix(*in.run, analysis, t, out);
        materialised_scores(*in.run, analysis, out);
        layout_copies(*in.run, rows, t, out);
        fragmentation(*in.run, rows, t, out);
        if (!graph_capture(analysis, out)) dispatch_bound(*in.run, rows, t, out);
        collective_findings(in.run->trace, analysis, out, in.run->environment.device_name);
    }
    if (in.bench) {
        cold_start(*in.bench, t, out);
        profiler_distortion(*in.bench, t, out);
    }
    if (in.sweep) length_sensitivity(*in.sweep, t, out);
    if (in.check) precision(*in.check, out);
    std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) { return a.weight > b.weight; });
    return out;
}

bool reads_the_run(const std::string& rule) {
    static const std::set<std::string>
        kRunRules = {"score-matrix",   "materialised-scores", "layout-copies", "fragmentation",
                     "dispatch-bound", "graph-capture",       "straggler",     "exposed-communication",
                     "latency-bound",  "low-bandwidth"};  // advise's rules on in.run, collective_findings' included
    return kRunRules.count(rule) != 0;
}

nlohmann::json findings_json(const std::vector<Finding>& findings) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& f : findings)
        out.push_back({{"rule", f.rule},
                       {"title", f.title},
                       {"evidence", f.evidence},
                       {"action", f.action},
                       {"weight", f.weight}});
    return out;
}

std::vector<Finding> findings_from_json(const nlohmann::json& j) {
    std::vector<Finding> out;
    for (const auto& e : j)
        out.push_back({e.at("rule").get<std::string>(), e.at("title").get<std::string>(),
                       e.at("evidence").get<std::vector<std::string>>(), e.at("action").get<std::string>(),
                       e.value("weight", 0.0)});
    return out;
}

std::string format_findings(const std::vector<Finding>& findings) {
    if (findings.empty()) return "Findings: none of the advisor's rules fired.\n";
    std::string out = "Findings:\n";
    for (const auto& f : findings) {
        out += "* [" + f.rule + "] " + f.title + "\n";
        for (const auto& e : f.evidence) out += "    - " + e + "\n";
        out += "    -> " + f.action + "\n";
    }
    return out;
}

}  // namespace awb
