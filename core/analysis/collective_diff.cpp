#include "analysis/collective_diff.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

using Key = std::pair<std::string, std::string>;

std::string delta(int64_t a, int64_t b) { return format_signed_duration_ns(double(b - a)); }

}  // namespace

CollectiveDiff diff_collectives(const CollectiveReport& a, const OverlapReport& oa, const CollectiveReport& b,
                                const OverlapReport& ob) {
    CollectiveDiff d;
    d.straggler_a = a.straggler;
    d.straggler_b = b.straggler;
    std::map<Key, CollectiveDiffRow> rows;
    for (const auto& [k, s] : collective_sums(a)) rows[k] = {k.first, k.second, s, {}};
    for (const auto& [k, s] : collective_sums(b)) {
        auto [it, added] = rows.try_emplace(k, CollectiveDiffRow{k.first, k.second, {}, s});
        if (!added) it->second.b = s;
    }
    for (auto& [k, r] : rows) d.rows.push_back(r);
    auto impact = [](const CollectiveDiffRow& r) {
        return std::llabs(r.b.wait_ns - r.a.wait_ns) + std::llabs(r.b.transfer_ns - r.a.transfer_ns);
    };
    std::stable_sort(d.rows.begin(), d.rows.end(), [&](const auto& x, const auto& y) { return impact(x) > impact(y); });
    std::map<int32_t, RankCommDiff> ranks;
    for (const CommOverlap& o : oa.rows)
        if (o.step < 0) ranks[o.rank] = {o.rank, o.comm_ns, o.exposed_ns(), 0, 0, true, false};
    for (const CommOverlap& o : ob.rows)
        if (o.step < 0) {
            RankCommDiff& r = ranks[o.rank];
            r.rank = o.rank;
            r.comm_b_ns = o.comm_ns;
            r.exposed_b_ns = o.exposed_ns();
            r.in_b = true;
        }
    for (auto& [rank, r] : ranks) d.ranks.push_back(r);
    return d;
}

std::string format_collective_diff(const CollectiveDiff& d, size_t rows) {
    if (d.empty()) return "";
    std::string out = "Collectives (matched across ranks), A against B:\n";
    out += printf_string("%-16s %-6s %7s %7s %12s %12s %12s %12s %12s %12s %12s\n", "collective", "group", "A", "B",
                         "transfer A", "transfer B", "busbw A", "busbw B", "wait A", "wait B", "wait delta");
    for (size_t i = 0; i < d.rows.size() && (rows == 0 || i < rows); ++i) {
        const CollectiveDiffRow& r = d.rows[i];
        out += printf_string("%-16s %-6s %7lld %7lld %12s %12s %12s %12s %12s %12s %12s\n", r.name.c_str(),
                             r.group.empty() ? "?" : r.group.c_str(), (long long)r.a.count, (long long)r.b.count,
                             format_duration_ns(double(r.a.transfer_ns)).c_str(),
                             format_duration_ns(double(r.b.transfer_ns)).c_str(), format_gb_s(r.a.busbw_gbps).c_str(),
                             format_gb_s(r.b.busbw_gbps).c_str(), format_duration_ns(double(r.a.wait_ns)).c_str(),
                             format_duration_ns(double(r.b.wait_ns)).c_str(), delta(r.a.wait_ns, r.b.wait_ns).c_str());
    }
    out += printf_string("straggler: A %s, B %s\n",
                         d.straggler_a < 0 ? "none" : ("rank " + std::to_string(d.straggler_a)).c_str(),
                         d.straggler_b < 0 ? "none" : ("rank " + std::to_string(d.straggler_b)).c_str());
    out += printf_string("%-5s %14s %14s %14s %14s %14s\n", "rank", "comm A", "exposed A", "comm B", "exposed B",
                         "exposed delta");
    for (const RankCommDiff& r : d.ranks)
        out += printf_string("%-5d %14s %14s %14s %14s %14s\n", r.rank,
                             r.in_a ? format_duration_ns(double(r.comm_a_ns)).c_str() : "-",
                             r.in_a ? format_duration_ns(double(r.exposed_a_ns)).c_str() : "-",
                             r.in_b ? format_duration_ns(double(r.comm_b_ns)).c_str() : "-",
                             r.in_b ? format_duration_ns(double(r.exposed_b_ns)).c_str() : "-",
                             delta(r.exposed_a_ns, r.exposed_b_ns).c_str());
    return out;
}

nlohmann::json collective_diff_json(const CollectiveDiff& d) {
    auto side = [](const CollectiveKindSum& s) {
        return nlohmann::json{{"count", s.count},     {"bytes", s.bytes},     {"transfer_ns", s.transfer_ns},
                              {"skew_ns", s.skew_ns}, {"wait_ns", s.wait_ns}, {"busbw_gbps", s.busbw_gbps}};
    };
    nlohmann::json rows = nlohmann::json::array(), ranks = nlohmann::json::array();
    for (const CollectiveDiffRow& r : d.rows)
        rows.push_back({{"name", r.name}, {"group", r.group}, {"a", side(r.a)}, {"b", side(r.b)}});
    for (const RankCommDiff& r : d.ranks)
        ranks.push_back({{"rank", r.rank},
                         {"in_a", r.in_a},
                         {"in_b", r.in_b},
                         {"comm_a_ns", r.comm_a_ns},
                         {"exposed_a_ns", r.exposed_a_ns},
                         {"comm_b_ns", r.comm_b_ns},
                         {"exposed_b_ns", r.exposed_b_ns}});
    auto rank = [](int32_t r) { return r < 0 ? nlohmann::json(nullptr) : nlohmann::json(r); };
    return {{"by_collective", rows},
            {"ranks", ranks},
            {"straggler_a", rank(d.straggler_a)},
            {"straggler_b", rank(d.straggler_b)}};
}

}  // namespace awb
