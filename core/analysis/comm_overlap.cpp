#include "analysis/comm_overlap.h"

#include <algorithm>
#include <cctype>
#include <tuple>
#include <climits>
#include <cmath>
#include <set>
#include <unordered_map>

#include "analysis/collectives_detail.h"
#include "analysis/hta_view.h"
#include "analysis/intervals.h"
#include "analysis/trace_links.h"
#include "model/recorded_steps.h"
#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

using Span = TimeSpan;

// What one rank communicates and computes: each call's work (span, step, collective), and the computation.
struct RankWork {
    bool on_device = false;
    std::vector<std::tuple<Span, int, std::string>> comm;
    std::vector<Span> comp;
};

void add_cpu_ranks(const Trace& trace, const CollectiveReport& report, std::map<int32_t, RankWork>& ranks);

std::map<int32_t, RankWork> rank_work(const Trace& trace, const std::vector<KernelClass>& classes,
                                      const CollectiveReport& report, const LaunchCalls& launches) {
    const auto& events = trace.events();
    const StepSpans steps(trace);
    std::map<int32_t, RankWork> ranks;
    std::unordered_map<int32_t, std::string> call_of_kernel;
    for (const CollectiveCall& c : report.calls)
        if (c.on_device)
            for (int32_t k : c.work) call_of_kernel[k] = c.name;
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& e = events[i];
        if (!is_device_work(e)) continue;
        RankWork& w = ranks[e.rank];
        if (classes[i] == KernelClass::Communication) {
            w.on_device = true;
            const auto it = call_of_kernel.find(int32_t(i));
            w.comm.emplace_back(Span{e.start_ns, e.end_ns}, steps.at(e.rank, launches.launched_at(e)),
                                it == call_of_kernel.end() ? std::string("communication") : it->second);
        } else if (is_computation(classes[i])) {
            w.comp.push_back({e.start_ns, e.end_ns});
        }
    }
    add_cpu_ranks(trace, report, ranks);
    return ranks;
}

// CPU ranks (gloo): the calls' work against the ops that are part of no call (find_calls says which are:
// what runs under gloo's send/recv spans, open on the calling thread until wait(), is the computation
// that hides the transfer, not part of it).
void add_cpu_ranks(const Trace& trace, const CollectiveReport& report, std::map<int32_t, RankWork>& ranks) {
    const auto& events = trace.events();
    std::set<int32_t> cpu_ranks;
    for (const CollectiveCall& c : report.calls)
        if (!c.on_device && !ranks[c.rank].on_device) cpu_ranks.insert(c.rank);
    if (cpu_ranks.empty()) return;
    for (const CollectiveCall& c : report.calls)
        if (cpu_ranks.count(c.rank)) ranks[c.rank].comm.emplace_back(Span{c.start_ns, c.end_ns}, c.step, c.name);
    const std::vector<int32_t> call_of = collectives_detail::find_calls(trace).call_of;
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& e = events[i];
        if (nests_on_cpu(e) && e.kind == EventKind::CpuOp && call_of[i] < 0 && cpu_ranks.count(e.rank))
            ranks[e.rank].comp.push_back({e.start_ns, e.end_ns});
    }
}

CommOverlap overlap_of(int32_t rank, int step, const RankWork& w, const std::vector<Span>& comp) {
    CommOverlap o;
    o.rank = rank;
    o.step = step;
    o.on_device = w.on_device;
    std::vector<Span> comm;
    std::map<std::string, std::vector<Span>> calls;
    for (const auto& [s, k, name] : w.comm)
        if (step < 0 || k == step) {
            comm.push_back(s);
            calls[name].push_back(s);
        }
    const std::vector<Span> u = merged(std::move(comm));
    o.comm_ns = length(u);
    o.hidden_ns = length_inside(u, comp);
    for (auto& [name, spans] : calls) {
        const std::vector<Span> c = merged(std::move(spans));
        o.exposed_by_collective[name] = length(c) - length_inside(c, comp);
    }
    return o;
}

// HTA 0.5.0's figure for each GPU rank (see the header): one pass over the events for all ranks.
std::vector<HtaOverlap> hta_overlaps(const Trace& trace, const std::vector<KernelClass>& classes,
                                     const std::set<int32_t>& gpu_ranks, const LaunchCalls& launches) {
    const auto& events = trace.events();
    const std::map<int32_t, HtaView> views = hta_views(trace);
    std::map<int32_t, std::pair<std::vector<Span>, std::vector<Span>>> work;  // rank -> communication, computation
    for (int32_t r : gpu_ranks) work[r];
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& e = events[i];
        const auto it = work.find(e.rank);
        if (it == work.end() || e.device == DeviceKind::CPU || e.kind == EventKind::UserAnnotation ||
            e.correlation_id <= 0)
            continue;
        const HtaView& h = views.at(e.rank);
        if (!h.keeps(e, events, launches)) continue;  // only what was launched in the trace, before the last step
        const Span s{h.start(e.start_ns), h.end(e.start_ns, e.end_ns)};
        const std::string_view n = e.name.view();
        if (is_device_work(e) && classes[i] == KernelClass::Communication)
            it->second.first.push_back(s);
        else if (n.find("Memcpy") == std::string_view::npos && n.find("Memset") == std::string_view::npos &&
                 n.find("Sync") == std::string_view::npos)
            it->second.second.push_back(s);
    }
    std::vector<HtaOverlap> out;
    for (auto& [rank, spans] : work) {
        HtaOverlap o;
        o.rank = rank;
        o.steps = views.count(rank) ? views.at(rank).steps() : "all";
        const std::vector<Span> uc = merged(std::move(spans.first)), up = merged(std::move(spans.second));
        o.comm_ns = length(uc);
        o.hidden_ns = length_inside(uc, up);
        o.pct = o.comm_ns > 0 ? std::nearbyint(100.0 * (double(o.hidden_ns) / double(o.comm_ns)) * 100.0) / 100.0 : 0.0;
        out.push_back(std::move(o));
    }
    return out;
}

// The attention calls' windows: the analysis's calls, and the outermost CPU ranges named like attention.
std::vector<AttentionComm> attention_windows(const Trace& trace, const std::vector<AttentionInstance>& attention) {
    std::vector<AttentionComm> out;
    for (const AttentionInstance& a : attention)
        if (!a.kernel_only && a.event >= 0)
            out.push_back({a.rank, trace.events()[size_t(a.event)].name.str(), a.event, a.start_ns, a.end_ns});
    const auto& events = trace.events();
    std::vector<char> inside(events.size(), 0);
    std::unordered_map<const char*, bool> like_attention;  // per interned name
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& e = events[i];
        if (!nests_on_cpu(e)) continue;
        const bool above = e.parent >= 0 && inside[size_t(e.parent)];
        auto [named, added] = like_attention.try_emplace(e.name.data(), false);
        if (added) {
            std::string name(e.name.view());
            std::transform(name.begin(), name.end(), name.begin(),
                           [](unsigned char c) { return char(std::tolower(c)); });
            named->second = name.find("attention") != std::string::npos || name.find("attn") != std::string::npos;
        }
        const bool attention_range = e.kind == EventKind::UserAnnotation && named->second;
        inside[i] = above || attention_range;
        if (attention_range && !above) out.push_back({e.rank, e.name.str(), int32_t(i), e.start_ns, e.end_ns});
    }
    std::sort(out.begin(), out.end(), [](const AttentionComm& a, const AttentionComm& b) {
        return std::tie(a.start_ns, a.rank) < std::tie(b.start_ns, b.rank);
    });
    return out;
}

// Each window's collectives (its rank's calls issued in it) against its rank's computation.
void add_attention_comm(const Trace& trace, const CollectiveReport& collectives,
                        const std::vector<AttentionInstance>& attention,
                        const std::map<int32_t, std::vector<Span>>& comp, OverlapReport& out) {
    std::map<int32_t, std::vector<const CollectiveCall*>> by_rank;  // in op start order
    for (const CollectiveCall& c : collectives.calls)
        if (c.op >= 0) by_rank[c.rank].push_back(&c);
    for (auto& [rank, calls] : by_rank)
        std::sort(calls.begin(), calls.end(), [](auto* a, auto* b) { return a->op_start_ns < b->op_start_ns; });
    for (AttentionComm w : attention_windows(trace, attention)) {
        const auto it = by_rank.find(w.rank);
        if (it == by_rank.end()) continue;
        const auto first = std::lower_bound(it->second.begin(), it->second.end(), w.start_ns,
                                            [](auto* c, int64_t t) { return c->op_start_ns < t; });
        std::vector<Span> work;
        for (auto c = first; c != it->second.end() && (*c)->op_start_ns < w.end_ns; ++c) {
            ++w.collectives;
            w.bytes += std::max<int64_t>((*c)->bytes, 0);
            work.push_back({(*c)->start_ns, (*c)->end_ns});
        }
        if (w.collectives == 0) continue;
        const Union u = merged(work);
        w.comm_ns = length(u);
        const auto c = comp.find(w.rank);
        w.hidden_ns = c == comp.end() ? 0 : length_inside(u, c->second);
        out.attention.push_back(std::move(w));
    }
}

}  // namespace

OverlapReport comm_overlap(const Trace& trace, const std::vector<KernelClass>& classes,
                           const CollectiveReport& collectives, const std::vector<AttentionInstance>& attention) {
    return comm_overlap(trace, classes, collectives, attention, LaunchCalls(trace));
}

OverlapReport comm_overlap(const Trace& trace, const std::vector<KernelClass>& classes,
                           const CollectiveReport& collectives, const std::vector<AttentionInstance>& attention,
                           const LaunchCalls& launches) {
    OverlapReport out;
    std::set<int32_t> gpu_ranks;
    std::map<int32_t, std::vector<Span>> comps;
    for (auto& [rank, w] : rank_work(trace, classes, collectives, launches)) {
        if (w.comm.empty()) continue;
        const std::vector<Span>& comp = comps[rank] = merged(w.comp);
        out.rows.push_back(overlap_of(rank, -1, w, comp));
        std::set<int> steps;
        for (const auto& [s, k, name] : w.comm)
            if (k >= 0) steps.insert(k);
        for (int k : steps) out.rows.push_back(overlap_of(rank, k, w, comp));
        if (w.on_device) gpu_ranks.insert(rank);
    }
    if (!gpu_ranks.empty()) out.hta = hta_overlaps(trace, classes, gpu_ranks, launches);
    add_attention_comm(trace, collectives, attention, comps, out);
    return out;
}

std::string format_attention_comm(const std::vector<AttentionComm>& calls, size_t rows) {
    if (calls.empty()) return "";
    int64_t comm = 0, hidden = 0;
    for (const AttentionComm& a : calls) {
        comm += a.comm_ns;
        hidden += a.hidden_ns;
    }
    std::string out = printf_string(
        "Attention calls that communicate (%zu; their collectives' work against the rank's computation): %s of %s "
        "hidden (%s)\n",
        calls.size(), format_duration_ns(double(hidden)).c_str(), format_duration_ns(double(comm)).c_str(),
        format_share(comm > 0 ? double(hidden) / double(comm) : 0).c_str());
    out += printf_string("%-5s %-28s %12s %11s %10s %12s %12s %12s\n", "rank", "call", "duration", "collectives",
                         "bytes", "communication", "hidden", "exposed");
    for (size_t i = 0; i < calls.size() && i < rows; ++i) {
        const AttentionComm& a = calls[i];
        out += printf_string("%-5d %-28.28s %12s %11lld %10s %12s %12s %12s\n", a.rank, a.name.c_str(),
                             format_duration_ns(double(a.end_ns - a.start_ns)).c_str(), (long long)a.collectives,
                             format_bytes(a.bytes).c_str(), format_duration_ns(double(a.comm_ns)).c_str(),
                             format_duration_ns(double(a.hidden_ns)).c_str(),
                             format_duration_ns(double(a.exposed_ns())).c_str());
    }
    if (calls.size() > rows) out += printf_string("... %zu more (--rows)\n", calls.size() - rows);
    return out;
}

std::string format_overlap(const OverlapReport& report) {
    if (report.rows.empty()) return "Communication overlap: no communication in the trace\n";
    std::string out = "Communication hidden under computation (intervals merged across streams)\n";
    out += printf_string("%-5s %-6s %-7s %14s %14s %8s %14s  %s\n", "rank", "step", "on", "communication", "hidden",
                         "hidden", "exposed", "exposed by collective");
    for (const CommOverlap& o : report.rows) {
        std::string by;
        for (const auto& [name, ns] : o.exposed_by_collective)
            by += (by.empty() ? "" : ", ") + name + " " + format_duration_ns(double(ns));
        out += printf_string("%-5d %-6s %-7s %14s %14s %8s %14s  %s\n", o.rank,
                             o.step < 0 ? "all" : ("#" + std::to_string(o.step)).c_str(),
                             o.on_device ? "device" : "CPU", format_duration_ns(double(o.comm_ns)).c_str(),
                             format_duration_ns(double(o.hidden_ns)).c_str(), format_share(o.hidden_share()).c_str(),
                             format_duration_ns(double(o.exposed_ns())).c_str(), by.c_str());
    }
    for (const HtaOverlap& h : report.hta)
        out += printf_string(
            "rank %d as HolisticTraceAnalysis 0.5.0 counts it (kernels %s, whole us): %.2f%% of %s hidden\n", h.rank,
            h.steps.c_str(), h.pct, format_duration_ns(double(h.comm_ns)).c_str());
    return out;
}

}  // namespace awb
