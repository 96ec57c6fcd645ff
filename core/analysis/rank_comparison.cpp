#include "analysis/rank_comparison.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>

#include "model/printf_string.h"
#include "model/recorded_steps.h"
#include "model/units.h"

namespace awb {

namespace {

using Span = std::pair<int64_t, int64_t>;

// Each rank's ProfilerStep#k spans, by k.
std::map<int32_t, std::map<int, Span>> rank_step_spans(const Trace& trace) {
    std::map<int32_t, std::map<int, Span>> out;
    const StepSpans steps(trace);
    for (const auto& [rank, spans] : steps.by_rank())
        for (const StepSpans::Span& s : spans) out[rank][s.step] = {s.start_ns, s.end_ns};
    return out;
}

int widest_rank_step(const std::map<int32_t, std::map<int, Span>>& spans, const std::vector<int>& steps) {
    int best = steps.empty() ? -1 : steps.front();
    int64_t widest = -1;
    for (int k : steps) {
        int64_t lo = INT64_MAX, hi = 0;
        for (const auto& [rank, s] : spans) {
            const int64_t d = s.at(k).second - s.at(k).first;
            lo = std::min(lo, d);
            hi = std::max(hi, d);
        }
        if (hi - lo > widest) {
            widest = hi - lo;
            best = k;
        }
    }
    return best;
}

// The rank's events over step k: from its start to the next step's start (the kernels it launched run on).
std::vector<OperatorRow> step_operators(const Trace& trace, int32_t rank, const std::map<int, Span>& spans, int k) {
    const Span s = spans.at(k);
    const auto next = spans.upper_bound(k);
    const int64_t end = next != spans.end() ? next->second.first : std::max(s.second, trace.end_ns() + 1);
    return key_averages(trace.of_rank(rank, s.first, end));
}

}  // namespace

RankComparison compare_ranks(const Trace& trace, const RunAnalysis& analysis, int step) {
    RankComparison c;
    const auto spans = rank_step_spans(trace);
    if (spans.size() < 2) return c;
    std::set<int> common;
    for (const auto& [k, s] : spans.begin()->second) common.insert(k);
    for (const auto& [rank, s] : spans) {
        std::set<int> here;
        for (const auto& [k, x] : s)
            if (common.count(k)) here.insert(k);
        common = here;
    }
    c.steps.assign(common.begin(), common.end());
    c.step = step >= 0 && common.count(step) ? step : widest_rank_step(spans, c.steps);
    if (c.step < 0) return c;
    std::map<int32_t, RankStep> rows;
    for (const auto& [rank, s] : spans) rows[rank] = {rank, s.at(c.step).second - s.at(c.step).first};
    for (const GpuBreakdown& b : analysis.gpu) {
        if (b.step != c.step || !rows.count(b.rank)) continue;
        RankStep& r = rows[b.rank];
        r.computation_ns += b.computation_ns;
        r.communication_ns += b.communication_ns;
        r.exposed_ns += b.exposed_communication_ns;
        r.idle_ns += b.idle_ns;
    }
    for (const MatchedCollective& m : analysis.collectives.matched) {
        if (m.step != c.step) continue;
        int64_t others = 0;
        for (const RankArrival& a : m.ranks) {
            if (rows.count(a.rank)) rows[a.rank].wait_ns += a.wait_ns;
            others += a.wait_ns;
        }
        if (m.last_rank >= 0 && rows.count(m.last_rank)) rows[m.last_rank].caused_wait_ns += others;
    }
    for (auto& [rank, r] : rows) c.ranks.push_back(r);
    // The slowest rank is the one whose own work took longest: its step less the waits it had.
    auto own = [](const RankStep& r) { return r.step_ns - r.wait_ns; };
    const auto [fast, slow] = std::minmax_element(
        c.ranks.begin(), c.ranks.end(), [&](const RankStep& a, const RankStep& b) { return own(a) < own(b); });
    c.fastest = fast->rank;
    c.slowest = slow->rank;
    if (c.fastest != c.slowest) {
        c.operators = join_operators(step_operators(trace, c.fastest, spans.at(c.fastest), c.step),
                                     step_operators(trace, c.slowest, spans.at(c.slowest), c.step));
    }
    return c;
}

std::string format_rank_comparison(const RankComparison& c, size_t rows) {
    if (c.step < 0) return "Ranks: no ProfilerStep recorded on two ranks or more to compare\n";
    std::string out =
        printf_string("Ranks in ProfilerStep#%d (the steps all ranks recorded: %zu):\n", c.step, c.steps.size());
    out += printf_string("%-5s %12s %12s %14s %12s %12s %12s %12s\n", "rank", "step", "computation", "communication",
                         "exposed", "idle", "waited", "made wait");
    for (const RankStep& r : c.ranks)
        out += printf_string(
            "%-5d %12s %12s %14s %12s %12s %12s %12s\n", r.rank, format_duration_ns(double(r.step_ns)).c_str(),
            format_duration_ns(double(r.computation_ns)).c_str(),
            format_duration_ns(double(r.communication_ns)).c_str(), format_duration_ns(double(r.exposed_ns)).c_str(),
            format_duration_ns(double(r.idle_ns)).c_str(), format_duration_ns(double(r.wait_ns)).c_str(),
            format_duration_ns(double(r.caused_wait_ns)).c_str());
    if (c.slowest < 0 || c.slowest == c.fastest) return out;
    out += printf_string(
        "slowest rank %d (its step less its waits) against the fastest, rank %d, over the step (self CPU and self "
        "device time):\n",
        c.slowest, c.fastest);
    out += printf_string("%-48s %12s %12s %12s %12s\n", "operator", "self CPU A", "self CPU B", "CPU delta",
                         "device delta");
    for (size_t i = 0; i < c.operators.size() && i < rows; ++i) {
        const OperatorDiffRow& r = c.operators[i];
        out += printf_string("%-48.48s %12s %12s %12s %12s\n", r.name.c_str(),
                             format_duration_ns(double(r.a.self_cpu_ns)).c_str(),
                             format_duration_ns(double(r.b.self_cpu_ns)).c_str(),
                             format_signed_duration_ns(double(r.self_cpu_delta_ns())).c_str(),
                             format_signed_duration_ns(double(r.self_device_delta_ns())).c_str());
    }
    return out;
}

}  // namespace awb
