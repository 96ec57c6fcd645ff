#include "report/report_collectives.h"

#include <algorithm>
#include <map>
#include <set>

#include "model/printf_string.h"
#include "model/units.h"
#include "report/html_cells.h"

namespace awb {

namespace {

using html::esc;
using html::num;
using html::td;
using html::th;

std::string ns(int64_t v) { return format_duration_ns(double(v)); }

std::string matched_table(const CollectiveReport& r, size_t rows) {
    std::vector<const MatchedCollective*> order;
    for (const MatchedCollective& m : r.matched) order.push_back(&m);
    std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->skew_ns > b->skew_ns; });
    std::string out = "<table>\n<tr>" + th("collective") + th("group") + th("step") + th("ranks") + th("bytes") +
                      th("skew") + th("transfer") + th("bus bandwidth") + th("alg. bandwidth") + th("last") +
                      th("wait per rank") + "</tr>\n";
    for (size_t i = 0; i < order.size() && i < rows; ++i) {
        const MatchedCollective& m = *order[i];
        std::string waits;
        for (const RankArrival& a : m.ranks)
            waits += (waits.empty() ? "" : " ") + std::to_string(a.rank) + ":" + ns(a.wait_ns);
        out += "<tr>" + td(m.name) + td(m.group.empty() ? "?" : m.group) +
               td(m.step < 0 ? "-" : "#" + std::to_string(m.step)) +
               num(std::to_string(m.ranks.size()) + " of " + std::to_string(m.group_size)) +
               num(m.bytes < 0 ? "?" : format_bytes(m.bytes)) + num(ns(m.skew_ns)) + num(ns(m.transfer_ns)) +
               num(format_gb_s(m.busbw_gbps())) + num(format_gb_s(m.algbw_gbps())) +
               td(m.last_rank < 0 ? "-" : std::to_string(m.last_rank)) + td(waits) + "</tr>\n";
    }
    out += "</table>\n";
    if (order.size() > rows)
        out += "<p class=\"sub\">" + std::to_string(order.size() - rows) +
               " more (attnwb inspect --collectives lists them all)</p>\n";
    return out;
}

std::string ranks_table(const CollectiveReport& r, const OverlapReport& o) {
    std::map<int32_t, const CommOverlap*> whole;
    for (const CommOverlap& row : o.rows)
        if (row.step < 0) whole[row.rank] = &row;
    std::string out = "<table>\n<tr>" + th("rank") + th("own wait") + th("caused wait") + th("last arrivals") +
                      th("communication") + th("hidden") + th("exposed") + "</tr>\n";
    for (const RankStraggle& s : r.ranks) {
        const CommOverlap* w = whole.count(s.rank) ? whole[s.rank] : nullptr;
        out += "<tr>" + td(std::to_string(s.rank) + (s.rank == r.straggler ? " (straggler)" : "")) +
               num(ns(s.own_wait_ns)) + num(ns(s.caused_wait_ns)) + num(std::to_string(s.last_arrivals)) +
               num(w ? ns(w->comm_ns) : "-") +
               num(w ? ns(w->hidden_ns) + " (" + format_share(w->hidden_share()) + ")" : "-") +
               num(w ? ns(w->exposed_ns()) : "-") + "</tr>\n";
    }
    return out + "</table>\n";
}

std::string overlap_table(const OverlapReport& o) {
    std::string out = "<table>\n<tr>" + th("rank") + th("step") + th("on") + th("communication") + th("hidden") +
                      th("exposed") + th("exposed by collective") + "</tr>\n";
    for (const CommOverlap& row : o.rows) {
        std::string by;
        for (const auto& [name, t] : row.exposed_by_collective) by += (by.empty() ? "" : ", ") + name + " " + ns(t);
        out += "<tr>" + td(std::to_string(row.rank)) + td(row.step < 0 ? "all" : "#" + std::to_string(row.step)) +
               td(row.on_device ? "device" : "CPU") + num(ns(row.comm_ns)) +
               num(ns(row.hidden_ns) + " (" + format_share(row.hidden_share()) + ")") + num(ns(row.exposed_ns())) +
               td(by) + "</tr>\n";
    }
    out += "</table>\n";
    for (const HtaOverlap& h : o.hta)
        out += "<p class=\"sub\">" +
               esc(printf_string(
                   "Rank %d as HolisticTraceAnalysis 0.5.0 counts it (kernels %s, whole us): %.2f%% of %s hidden",
                   h.rank, h.steps.c_str(), h.pct, ns(h.comm_ns).c_str())) +
               "</p>\n";
    return out;
}

}  // namespace

std::string collectives_section(const CollectiveReport& r, const OverlapReport& o, size_t rows) {
    if (r.calls.empty()) return "";
    std::set<int32_t> ranks;
    for (const CollectiveCall& c : r.calls) ranks.insert(c.rank);
    std::string out =
        "<h2>Collectives</h2>\n<p>" +
        esc(printf_string(
            "%zu calls on %zu rank(s), %zu collectives matched across ranks by process group and order, %d step(s).",
            r.calls.size(), ranks.size(), r.matched.size(), r.steps));
    if (r.straggler >= 0) {
        const auto s =
            std::find_if(r.ranks.begin(), r.ranks.end(), [&](const RankStraggle& x) { return x.rank == r.straggler; });
        out += " <b>" +
               esc(printf_string("Straggler: rank %d, the others waited %s for it (%s per step).", r.straggler,
                                 ns(s->caused_wait_ns).c_str(),
                                 format_duration_ns(double(s->caused_wait_ns) / std::max(r.steps, 1)).c_str())) +
               "</b>";
    }
    out += "</p>\n" + matched_table(r, rows) + "<h3>Ranks</h3>\n" + ranks_table(r, o) +
           "<h3>Communication hidden under computation</h3>\n" + overlap_table(o);
    for (const std::string& n : r.notes) out += "<p class=\"sub\">" + esc("Note: " + n) + "</p>\n";
    return out;
}

}  // namespace awb
