#include "analysis/clock_alignment.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "analysis/kernel_class.h"
#include "model/bench_stats.h"
#include "model/units.h"

namespace awb {

std::map<int32_t, int64_t> rank_clock_offsets(const CollectiveReport& report) {
    std::map<int32_t, std::vector<double>> differences;
    int32_t reference = INT32_MAX;
    for (const CollectiveCall& c : report.calls) reference = std::min(reference, c.rank);
    for (const MatchedCollective& m : report.matched) {
        if (m.ranks.size() < 2 || m.name == "send_recv" || m.name == "broadcast") continue;
        const auto ref =
            std::find_if(m.ranks.begin(), m.ranks.end(), [&](const RankArrival& a) { return a.rank == reference; });
        if (ref == m.ranks.end()) continue;
        const int64_t ref_end = ref->start_ns + ref->duration_ns;
        for (const RankArrival& a : m.ranks)
            if (a.rank != reference) differences[a.rank].push_back(double(ref_end - (a.start_ns + a.duration_ns)));
    }
    std::map<int32_t, int64_t> out;
    for (const auto& [rank, d] : differences) out[rank] = int64_t(std::llround(quantile(d, 0.5)));
    return out;
}

namespace {

// Communication by name alone, everything else Other: all that the matching needs, without the op index
// the full classification builds.
std::vector<KernelClass> communication_only(const Trace& trace) {
    std::vector<KernelClass> out(trace.events().size(), KernelClass::Other);
    std::unordered_map<const char*, bool> seen;
    for (size_t i = 0; i < out.size(); ++i) {
        const TraceEvent& e = trace.events()[i];
        if (e.kind != EventKind::Kernel) continue;
        auto [it, added] = seen.try_emplace(e.name.data(), false);
        if (added) it->second = is_communication_kernel(e.name.view());
        if (it->second) out[i] = KernelClass::Communication;
    }
    return out;
}

std::string offsets_text(const std::map<int32_t, int64_t>& offsets) {
    std::string out;
    for (const auto& [rank, ns] : offsets)
        out += (out.empty() ? "" : ", ") + ("rank " + std::to_string(rank) + " " + (ns >= 0 ? "+" : "-") +
                                            format_duration_ns(double(ns >= 0 ? ns : -ns)));
    return out;
}

}  // namespace

ClockAlignment align_rank_clocks(Trace& trace) {
    ClockAlignment out;
    if (trace.meta().ranks.size() < 2) return out;
    const CollectiveReport report = collective_report(trace, communication_only(trace));
    if (report.clock_disagreements == 0) return out;
    std::map<int32_t, int64_t> offsets = rank_clock_offsets(report);
    std::erase_if(offsets, [](const auto& o) { return o.second == 0; });
    if (offsets.empty()) return out;
    std::vector<TraceEvent> events = trace.events();
    std::vector<MemoryEvent> memory = trace.memory();
    for (TraceEvent& e : events)
        if (const auto it = offsets.find(e.rank); it != offsets.end()) {
            e.start_ns += it->second;
            e.end_ns += it->second;
        }
    for (MemoryEvent& m : memory)
        if (const auto it = offsets.find(m.rank); it != offsets.end()) m.ts_ns += it->second;
    TraceMeta meta = trace.meta();
    meta.clock_offsets_ns = offsets;
    trace = Trace::build(std::move(events), std::move(memory), std::move(meta));
    out.offsets_ns = std::move(offsets);
    out.note =
        "the ranks' clocks disagree (" + std::to_string(report.clock_disagreements) +
        " collective(s) end on a rank before their last rank arrived): aligned on the ends of the collectives the "
        "ranks "
        "share, " +
        offsets_text(out.offsets_ns) + " added to their times";
    return out;
}

}  // namespace awb
