// The calls matched across ranks, the straggler, and the process groups of gloo's calls.
#include <algorithm>
#include <climits>
#include <map>
#include <set>

#include "analysis/collectives_detail.h"
#include "model/units.h"

namespace awb::collectives_detail {

std::vector<int32_t> default_group_ranks(const TraceMeta& meta, const std::string& group) {
    for (const ProcessGroup& g : meta.process_groups)
        if (!group.empty() && g.name == group && !g.ranks.empty()) return g.ranks;
    if (group.empty())
        for (const ProcessGroup& g : meta.process_groups)
            if (g.desc == "default_pg" && !g.ranks.empty()) return g.ranks;
    std::vector<int32_t> out;
    if (meta.world_size > 0)
        for (int32_t r = 0; r < meta.world_size; ++r) out.push_back(r);
    else
        out = meta.ranks;
    return out;
}

void assign_gloo_groups(const Trace& trace, FoundCalls& found) {
    const TraceMeta& meta = trace.meta();
    std::map<int32_t, std::set<uint64_t>> workers;  // rank -> gloo worker threads (not the calling threads)
    for (const auto& [call, thread] : found.gloo_thread_of) {
        const CollectiveCall& c = found.calls[call];
        if (c.op >= 0 && trace.events()[size_t(c.op)].thread != thread) workers[c.rank].insert(thread);
    }
    for (const auto& [rank, threads] : workers) {
        std::vector<const ProcessGroup*> groups;
        for (const ProcessGroup& g : meta.process_groups) {
            const bool member = g.ranks.empty() || std::find(g.ranks.begin(), g.ranks.end(), rank) != g.ranks.end();
            const bool gloo =
                g.backend.find("gloo") != std::string::npos || (g.backend.empty() && meta.backend == "gloo");
            if (member && gloo) groups.push_back(&g);
        }
        if (groups.empty()) continue;
        if (threads.size() % groups.size() != 0) {
            found.notes.push_back(
                "rank " + std::to_string(rank) + ": gloo ran its calls on " + std::to_string(threads.size()) +
                " worker threads for " + std::to_string(groups.size()) +
                " process groups: which group each call was in is not known; they are matched by order alone");
            continue;
        }
        const size_t per = threads.size() / groups.size();
        std::map<uint64_t, const ProcessGroup*> group_of;
        size_t i = 0;
        for (uint64_t t : threads) group_of[t] = groups[i++ / per];
        for (const auto& [call, thread] : found.gloo_thread_of) {
            CollectiveCall& c = found.calls[call];
            const auto it = group_of.find(thread);
            if (c.rank != rank || it == group_of.end() || !c.group.empty()) continue;
            c.group = it->second->name;
            c.group_desc = it->second->desc;
            c.group_ranks = it->second->ranks;
        }
    }
}

namespace {

bool is_p2p(const std::string& name) { return name == "send" || name == "recv"; }

// What the k-th calls of a sequence on each rank make.
MatchedCollective matched_of(const CollectiveReport& report, const std::vector<int32_t>& calls, int64_t index,
                             int group_size) {
    MatchedCollective m;
    const CollectiveCall& first = report.calls[size_t(calls.front())];
    m.name = first.name;
    m.group = first.group;
    m.index = index;
    m.group_size = group_size;
    m.step = first.step;
    int64_t last = INT64_MIN, first_start = INT64_MAX;
    m.transfer_ns = INT64_MAX;
    for (int32_t ci : calls) {
        const CollectiveCall& c = report.calls[size_t(ci)];
        m.ranks.push_back({c.rank, ci, c.start_ns, c.duration_ns(), 0});
        m.bytes = std::max(m.bytes, c.bytes);
        first_start = std::min(first_start, c.start_ns);
        if (c.start_ns > last) {
            last = c.start_ns;
            m.last_rank = c.rank;
        }
        m.transfer_ns = std::min(m.transfer_ns, c.duration_ns());
    }
    std::sort(m.ranks.begin(), m.ranks.end(),
              [](const RankArrival& a, const RankArrival& b) { return a.rank < b.rank; });
    for (RankArrival& a : m.ranks) a.wait_ns = last - a.start_ns;
    m.skew_ns = last - first_start;
    m.first_ns = first_start;
    if (m.ranks.size() < 2 || m.skew_ns == 0) m.last_rank = -1;
    if (m.name == "all_to_all") m.split_imbalance = split_imbalance(report, calls);
    return m;
}

// The calls of one sequence (a process group, or a send/recv pair) on each of its ranks, in issue order.
struct Sequence {
    std::string label;
    std::map<int32_t, std::vector<int32_t>> by_rank;
    std::vector<int32_t> members;  // ranks of the group present in the trace
    std::string pair;              // send/recv: "src->dst"
    int group_size = 0;
};

std::string rank_list(const std::map<int32_t, size_t>& counts) {
    std::string out;
    for (const auto& [rank, n] : counts)
        out += (out.empty() ? "" : ", ") + ("rank " + std::to_string(rank) + ": " + std::to_string(n));
    return out;
}

void match_sequence(CollectiveReport& report, const Sequence& s, std::vector<char>& matched) {
    size_t longest = 0, shortest = SIZE_MAX;
    std::map<int32_t, size_t> counts;
    for (int32_t r : s.members) {
        const size_t n = s.by_rank.count(r) ? s.by_rank.at(r).size() : 0;
        counts[r] = n;
        longest = std::max(longest, n);
        shortest = std::min(shortest, n);
    }
    if (longest == 0) return;
    for (size_t k = 0; k < longest; ++k) {
        std::vector<int32_t> calls;
        for (int32_t r : s.members)
            if (k < counts[r]) calls.push_back(s.by_rank.at(r)[k]);
        if (calls.empty()) break;
        // Every rank's k-th call must be the same collective (a send and its recv for a pair).
        const std::string& name = report.calls[size_t(calls.front())].name;
        const bool same = std::all_of(calls.begin(), calls.end(), [&](int32_t c) {
            const std::string& n = report.calls[size_t(c)].name;
            return n == name || (is_p2p(n) && is_p2p(name));
        });
        if (!same) {
            report.notes.push_back(s.label + ": call " + std::to_string(k + 1) +
                                   " is not the same collective on every rank (" +
                                   report.calls[size_t(calls.front())].name + " on rank " +
                                   std::to_string(report.calls[size_t(calls.front())].rank) +
                                   "): the ranks' sequences part there; the rest of the group is not matched");
            break;
        }
        for (int32_t c : calls) matched[size_t(c)] = 1;
        MatchedCollective m = matched_of(report, calls, int64_t(k), s.group_size);
        if (is_p2p(name)) {
            m.name = "send_recv";
            m.group = s.pair;  // "0->1"
        }
        report.matched.push_back(std::move(m));
    }
    if (shortest != longest)
        report.notes.push_back(s.label + ": the ranks hold different numbers of calls (" + rank_list(counts) +
                               "): the first ones were matched in order, the rest only on the ranks that have them");
}

void find_straggler(CollectiveReport& report) {
    std::map<int32_t, RankStraggle> ranks;
    for (const CollectiveCall& c : report.calls) ranks[c.rank].rank = c.rank;
    for (const MatchedCollective& m : report.matched) {
        int64_t others = 0;
        for (const RankArrival& a : m.ranks) {
            ranks[a.rank].own_wait_ns += a.wait_ns;
            others += a.wait_ns;
        }
        if (m.last_rank < 0) continue;
        ranks[m.last_rank].caused_wait_ns += others;
        ++ranks[m.last_rank].last_arrivals;
    }
    const RankStraggle* top = nullptr;
    for (auto& [rank, s] : ranks) {
        report.ranks.push_back(s);
        if (s.caused_wait_ns > 0 &&
            (!top || std::tie(s.caused_wait_ns, s.last_arrivals) > std::tie(top->caused_wait_ns, top->last_arrivals)))
            top = &s;
    }
    report.straggler = top ? top->rank : -1;
}

}  // namespace

double split_imbalance(const CollectiveReport& report, const std::vector<int32_t>& calls) {
    int64_t total = 0, most = 0, pairs = 0;
    for (int32_t ci : calls)
        for (int64_t rows : report.calls[size_t(ci)].in_splits) {
            total += rows;
            most = std::max(most, rows);
            ++pairs;
        }
    return pairs > 0 && total > 0 ? double(most) / (double(total) / double(pairs)) : 0.0;
}

void match_collectives(CollectiveReport& report, const TraceMeta& meta) {
    std::set<int32_t> present;
    for (const CollectiveCall& c : report.calls) present.insert(c.rank);
    std::map<std::string, Sequence> sequences;
    std::vector<char> matched(report.calls.size(), 0);
    int64_t p2p_unknown = 0;
    for (size_t i = 0; i < report.calls.size(); ++i) {
        const CollectiveCall& c = report.calls[i];
        std::string key;
        Sequence s;
        if (is_p2p(c.name)) {
            if (c.peer < 0 || c.rank < 0) {
                ++p2p_unknown;
                continue;
            }
            const int32_t src = c.name == "send" ? c.rank : c.peer, dst = c.name == "send" ? c.peer : c.rank;
            key = "p2p " + std::to_string(src) + " -> " + std::to_string(dst);
            s.label = "send/recv from rank " + std::to_string(src) + " to rank " + std::to_string(dst);
            s.pair = std::to_string(src) + "->" + std::to_string(dst);
            for (int32_t r : {src, dst})
                if (present.count(r)) s.members.push_back(r);
            s.group_size = 2;
        } else {
            key = "group " + c.group;
            s.label = c.group.empty() ? "calls of no known process group" : "process group " + c.group;
            const std::vector<int32_t> ranks =
                c.group_ranks.empty() ? default_group_ranks(meta, c.group) : c.group_ranks;
            for (int32_t r : ranks)
                if (present.count(r)) s.members.push_back(r);
            if (s.members.empty()) s.members = {c.rank};
            s.group_size = int(std::max<size_t>(ranks.size(), 1));
        }
        auto [it, added] = sequences.try_emplace(key, std::move(s));
        it->second.by_rank[c.rank].push_back(int32_t(i));
        if (std::find(it->second.members.begin(), it->second.members.end(), c.rank) == it->second.members.end())
            it->second.members.push_back(c.rank);
    }
    for (auto& [key, s] : sequences) {
        // Calls in the order they were issued on each rank.
        for (auto& [rank, list] : s.by_rank)
            std::stable_sort(list.begin(), list.end(), [&](int32_t a, int32_t b) {
                return report.calls[size_t(a)].op_start_ns < report.calls[size_t(b)].op_start_ns;
            });
        std::sort(s.members.begin(), s.members.end());
        match_sequence(report, s, matched);
    }
    if (p2p_unknown > 0)
        report.notes.push_back(std::to_string(p2p_unknown) + " send/recv call(s) name no peer: not matched");
    std::stable_sort(report.matched.begin(), report.matched.end(),
                     [](const MatchedCollective& a, const MatchedCollective& b) { return a.first_ns < b.first_ns; });
    // On one clock a collective cannot end on a rank before its last rank arrived.
    int64_t impossible = 0, over_ranks = 0;
    for (const MatchedCollective& m : report.matched) {
        if (m.ranks.size() < 2 || m.name == "send_recv" || m.name == "broadcast") continue;
        ++over_ranks;
        int64_t last = INT64_MIN, first_end = INT64_MAX;
        for (const RankArrival& a : m.ranks) {
            last = std::max(last, a.start_ns);
            first_end = std::min(first_end, a.start_ns + a.duration_ns);
        }
        if (first_end + kClockSlackNs < last) ++impossible;
    }
    if (impossible > 0)
        report.notes.push_back(
            std::to_string(impossible) + " of " + std::to_string(over_ranks) +
            " collectives matched over several ranks end on one rank before their last rank arrived: the ranks' "
            "clocks disagree (different hosts?), so their waits and skews are off by the clocks' offset");
    report.clock_disagreements = impossible;
    find_straggler(report);
}

}  // namespace awb::collectives_detail
