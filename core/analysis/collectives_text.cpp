// The collectives as text, for attnwb inspect --collectives.
#include <algorithm>
#include <map>
#include <set>

#include "analysis/collectives.h"
#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

std::string bytes_text(int64_t b) { return b >= 0 ? format_bytes(b) : std::string("?"); }

std::string waits_text(const MatchedCollective& m) {
    std::string out;
    for (const RankArrival& a : m.ranks)
        out += (out.empty() ? "" : " ") + std::to_string(a.rank) + ":" + format_duration_ns(double(a.wait_ns));
    return out;
}

// One line per kind of collective (name and group): how many, how big, how fast, how much waiting.
std::string by_kind(const CollectiveReport& r) {
    std::string out = printf_string("%-16s %-6s %6s %12s %14s %14s %14s %14s\n", "collective", "group", "calls",
                                    "bytes", "transfer", "mean busbw", "skew", "waits (all)");
    for (const auto& [key, s] : collective_sums(r))
        out += printf_string("%-16s %-6s %6lld %12s %14s %14s %14s %14s\n", key.first.c_str(),
                             key.second.empty() ? "?" : key.second.c_str(), (long long)s.count,
                             format_bytes(s.bytes).c_str(), format_duration_ns(double(s.transfer_ns)).c_str(),
                             format_gb_s(s.busbw_gbps).c_str(), format_duration_ns(double(s.skew_ns)).c_str(),
                             format_duration_ns(double(s.wait_ns)).c_str());
    return out;
}

}  // namespace

std::map<std::pair<std::string, std::string>, CollectiveKindSum> collective_sums(const CollectiveReport& r) {
    std::map<std::pair<std::string, std::string>, CollectiveKindSum> out;
    std::map<std::pair<std::string, std::string>, int64_t> known;
    for (const MatchedCollective& m : r.matched) {
        CollectiveKindSum& s = out[{m.name, m.group}];
        ++s.count;
        s.bytes += std::max<int64_t>(m.bytes, 0);
        s.transfer_ns += m.transfer_ns;
        s.skew_ns += m.skew_ns;
        for (const RankArrival& a : m.ranks) s.wait_ns += a.wait_ns;
        if (m.busbw_gbps() > 0) {
            s.busbw_gbps += m.busbw_gbps();
            ++known[{m.name, m.group}];
        }
    }
    for (auto& [k, s] : out)
        if (known[k] > 0) s.busbw_gbps /= double(known[k]);
    return out;
}

std::string format_collectives(const CollectiveReport& r, size_t rows) {
    if (r.calls.empty())
        return "Collectives: none in the trace (no c10d::*, record_param_comms, nccl:* / gloo:* or communication "
               "kernels)\n";
    std::set<int32_t> ranks;
    for (const CollectiveCall& c : r.calls) ranks.insert(c.rank);
    size_t over_ranks = 0;
    for (const MatchedCollective& m : r.matched) over_ranks += m.ranks.size() > 1;
    std::string out = printf_string(
        "Collectives: %zu calls on %zu rank(s), %zu collectives (%zu matched across ranks by process group and order), "
        "%d step(s)\n",
        r.calls.size(), ranks.size(), r.matched.size(), over_ranks, r.steps);
    out += by_kind(r);
    out += printf_string("\n%-5s %-14s %-6s %-5s %11s %10s %11s %11s %12s %12s %-5s %s\n", "#", "collective", "group",
                         "step", "bytes", "skew", "transfer", "busbw", "algbw", "imbalance", "last", "wait per rank");
    // The collectives that cost the most waiting first.
    std::vector<const MatchedCollective*> order;
    for (const MatchedCollective& m : r.matched) order.push_back(&m);
    std::stable_sort(order.begin(), order.end(),
                     [](const MatchedCollective* a, const MatchedCollective* b) { return a->skew_ns > b->skew_ns; });
    for (size_t i = 0; i < order.size() && i < rows; ++i) {
        const MatchedCollective& m = *order[i];
        out += printf_string("%-5zu %-14s %-6s %-5s %11s %10s %11s %11s %12s %12s %-5s %s\n", i + 1, m.name.c_str(),
                             m.group.empty() ? "?" : m.group.c_str(),
                             m.step < 0 ? "-" : ("#" + std::to_string(m.step)).c_str(), bytes_text(m.bytes).c_str(),
                             format_duration_ns(double(m.skew_ns)).c_str(),
                             format_duration_ns(double(m.transfer_ns)).c_str(), format_gb_s(m.busbw_gbps()).c_str(),
                             format_gb_s(m.algbw_gbps()).c_str(),
                             m.split_imbalance > 0 ? printf_string("%.2fx", m.split_imbalance).c_str() : "-",
                             m.last_rank < 0 ? "-" : std::to_string(m.last_rank).c_str(), waits_text(m).c_str());
    }
    if (order.size() > rows) out += printf_string("... %zu more (--rows)\n", order.size() - rows);
    out += printf_string("\n%-5s %6s %16s %16s %14s\n", "rank", "calls", "own wait", "caused wait", "last arrivals");
    std::map<int32_t, int64_t> calls;
    for (const CollectiveCall& c : r.calls) ++calls[c.rank];
    for (const RankStraggle& s : r.ranks)
        out += printf_string("%-5d %6lld %16s %16s %14lld\n", s.rank, (long long)calls[s.rank],
                             format_duration_ns(double(s.own_wait_ns)).c_str(),
                             format_duration_ns(double(s.caused_wait_ns)).c_str(), (long long)s.last_arrivals);
    if (r.straggler >= 0) {
        const auto it =
            std::find_if(r.ranks.begin(), r.ranks.end(), [&](const RankStraggle& s) { return s.rank == r.straggler; });
        out += printf_string(
            "straggler: rank %d: the others waited %s for it (%s per step) at %lld collective(s) it arrived last at\n",
            r.straggler, format_duration_ns(double(it->caused_wait_ns)).c_str(),
            format_duration_ns(double(it->caused_wait_ns) / r.steps).c_str(), (long long)it->last_arrivals);
    } else if (over_ranks > 0) {
        out += "straggler: none (no rank made the others wait)\n";
    }
    for (const std::string& n : r.notes) out += "note: " + n + "\n";
    return out;
}

}  // namespace awb
