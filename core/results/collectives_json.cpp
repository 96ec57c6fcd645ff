#include "results/collectives_json.h"

#include <algorithm>
#include <cmath>

namespace awb {

namespace {

using json = nlohmann::json;

json number_or_null(double v) { return v > 0 && std::isfinite(v) ? json(v) : json(nullptr); }

json matched_json(const MatchedCollective& m, const CollectiveReport& r) {
    json ranks = json::array();
    for (const RankArrival& a : m.ranks)
        ranks.push_back(
            {{"rank", a.rank}, {"start_ns", a.start_ns}, {"duration_ns", a.duration_ns}, {"wait_ns", a.wait_ns}});
    const CollectiveCall& first = r.calls[size_t(m.ranks.front().call)];
    return {{"name", m.name},
            {"group", m.group},
            {"group_size", m.group_size},
            {"index", m.index},
            {"step", m.step},
            {"bytes", m.bytes < 0 ? json(nullptr) : json(m.bytes)},
            {"dtype", first.dtype},
            {"algorithm", first.algorithm},
            {"skew_ns", m.skew_ns},
            {"transfer_ns", m.transfer_ns},
            {"algbw_gbps", number_or_null(m.algbw_gbps())},
            {"busbw_gbps", number_or_null(m.busbw_gbps())},
            {"last_rank", m.last_rank < 0 ? json(nullptr) : json(m.last_rank)},
            {"split_imbalance", number_or_null(m.split_imbalance)},
            {"ranks", ranks}};
}

json call_json(const CollectiveCall& c) {
    return {{"rank", c.rank},
            {"name", c.name},
            {"group", c.group},
            {"group_ranks", c.group_ranks},
            {"peer", c.peer < 0 ? json(nullptr) : json(c.peer)},
            {"step", c.step},
            {"bytes", c.bytes < 0 ? json(nullptr) : json(c.bytes)},
            {"dtype", c.dtype},
            {"start_ns", c.start_ns},
            {"duration_ns", c.duration_ns()},
            {"op_start_ns", c.op_start_ns},
            {"op_duration_ns", c.op_end_ns - c.op_start_ns},
            {"on_device", c.on_device},
            {"algorithm", c.algorithm},
            {"algbw_gbps", number_or_null(c.algbw_gbps())},
            {"busbw_gbps", number_or_null(c.busbw_gbps())},
            {"in_splits", c.in_splits},
            {"out_splits", c.out_splits}};
}

}  // namespace

json collectives_json(const CollectiveReport& r, const OverlapReport& overlap) {
    json calls = json::array(), per_rank = json::array(), ranks = json::array(), rows = json::array(),
         hta = json::array();
    for (const MatchedCollective& m : r.matched) calls.push_back(matched_json(m, r));
    for (const CollectiveCall& c : r.calls) per_rank.push_back(call_json(c));
    json straggler = nullptr;
    for (const RankStraggle& s : r.ranks) {
        const json row = {{"rank", s.rank},
                          {"own_wait_ns", s.own_wait_ns},
                          {"caused_wait_ns", s.caused_wait_ns},
                          {"caused_wait_per_step_ns", double(s.caused_wait_ns) / std::max(r.steps, 1)},
                          {"last_arrivals", s.last_arrivals}};
        ranks.push_back(row);
        if (s.rank == r.straggler) straggler = row;
    }
    for (const CommOverlap& o : overlap.rows)
        rows.push_back({{"rank", o.rank},
                        {"step", o.step},
                        {"on_device", o.on_device},
                        {"comm_ns", o.comm_ns},
                        {"hidden_ns", o.hidden_ns},
                        {"exposed_ns", o.exposed_ns()},
                        {"hidden_pct", 100.0 * o.hidden_share()},
                        {"exposed_by_collective_ns", o.exposed_by_collective}});
    for (const HtaOverlap& h : overlap.hta)
        hta.push_back({{"rank", h.rank},
                       {"steps", h.steps},
                       {"comm_ns", h.comm_ns},
                       {"hidden_ns", h.hidden_ns},
                       {"comp_comm_overlap_pctg", h.pct}});
    json attention = json::array();
    for (const AttentionComm& a : overlap.attention)
        attention.push_back({{"rank", a.rank},
                             {"name", a.name},
                             {"start_ns", a.start_ns},
                             {"duration_ns", a.end_ns - a.start_ns},
                             {"collectives", a.collectives},
                             {"bytes", a.bytes},
                             {"comm_ns", a.comm_ns},
                             {"hidden_ns", a.hidden_ns},
                             {"exposed_ns", a.exposed_ns()}});
    return {{"calls", calls},         {"per_rank", per_rank},
            {"attention", attention}, {"straggler", straggler},
            {"ranks", ranks},         {"steps", r.steps},
            {"overlap", rows},        {"overlap_hta", hta},
            {"notes", r.notes},       {"clock_disagreements", r.clock_disagreements}};
}

json rank_comparison_json(const RankComparison& c) {
    json ranks = json::array(), ops = json::array();
    for (const RankStep& r : c.ranks)
        ranks.push_back({{"rank", r.rank},
                         {"step_ns", r.step_ns},
                         {"computation_ns", r.computation_ns},
                         {"communication_ns", r.communication_ns},
                         {"exposed_ns", r.exposed_ns},
                         {"idle_ns", r.idle_ns},
                         {"wait_ns", r.wait_ns},
                         {"caused_wait_ns", r.caused_wait_ns}});
    for (const OperatorDiffRow& o : c.operators)
        ops.push_back({{"name", o.name},
                       {"self_cpu_a_ns", o.a.self_cpu_ns},
                       {"self_cpu_b_ns", o.b.self_cpu_ns},
                       {"self_cpu_delta_ns", o.self_cpu_delta_ns()},
                       {"self_device_delta_ns", o.self_device_delta_ns()}});
    auto rank = [](int32_t r) { return r < 0 ? json(nullptr) : json(r); };
    return {{"step", c.step},
            {"steps", c.steps},
            {"ranks", ranks},
            {"slowest", rank(c.slowest)},
            {"fastest", rank(c.fastest)},
            {"operators", ops}};
}

}  // namespace awb
