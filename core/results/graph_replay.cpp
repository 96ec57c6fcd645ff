#include "results/graph_replay.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "analysis/graph_capture.h"

namespace awb {

namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool is_runtime_call(const TraceEvent& e) { return e.kind == EventKind::Runtime && e.device == DeviceKind::CPU; }

bool is_op(const TraceEvent& e) {
    return e.device == DeviceKind::CPU && (e.kind == EventKind::CpuOp || e.kind == EventKind::UserAnnotation);
}

// A replayed kernel and a captured launch are paired by kind and, where the capture names its
// kernels, by name (interned: equal names are the same pointer). nullptr: no name.
struct SlotKey {
    EventKind kind;
    const std::string* name;
    bool operator==(const SlotKey&) const = default;
};
struct SlotKeyHash {
    size_t operator()(const SlotKey& k) const { return std::hash<const void*>{}(k.name) * 31 + size_t(k.kind); }
};
using SlotCounts = std::unordered_map<SlotKey, int32_t, SlotKeyHash>;

SlotKey slot_of(const TraceEvent& device_event, bool named) {
    return {device_event.kind, named && device_event.kind == EventKind::Kernel ? &device_event.name.str() : nullptr};
}

// One BeginCapture .. EndCapture region of a capture trace: the graph captured there.
struct CapturedLaunch {
    SlotKey key;
    std::vector<int32_t> ops;  // the op that launched it and its ancestors inside the region, innermost first
};
struct CapturedGraph {
    const Trace* trace = nullptr;
    int32_t rank = -1;
    uint64_t thread = 0;
    int64_t begin_ns = 0, end_ns = INT64_MAX;  // open until its EndCapture
    std::vector<CapturedLaunch> launches;      // in capture order
    bool named = false;                        // some kernel launch names its kernel
    SlotCounts counts;
};

bool inside(const TraceEvent& e, const CapturedGraph& g) {
    return e.rank == g.rank && e.start_ns >= g.begin_ns && e.end_ns <= g.end_ns;
}

// The op at capture time behind a launch: the op its External id names when that lies inside the
// region, else the nearest op around the launch; with that op's ancestors inside the region.
class CaptureOps {
public:
    explicit CaptureOps(const Trace& t) : trace_(t) {
        for (size_t i = 0; i < t.events().size(); ++i)
            if (is_op(t.events()[i]) && t.events()[i].correlation_id > 0)
                by_id_.emplace(link_key(t.events()[i].rank, t.events()[i].correlation_id), int32_t(i));
    }
    std::vector<int32_t> chain(int32_t launch, const CapturedGraph& g) const {
        const auto& events = trace_.events();
        const TraceEvent& l = events[size_t(launch)];
        int32_t op = l.parent;
        const auto it =
            l.linked_correlation_id > 0 ? by_id_.find(link_key(l.rank, l.linked_correlation_id)) : by_id_.end();
        if (it != by_id_.end() && inside(events[size_t(it->second)], g)) op = it->second;
        std::vector<int32_t> out;
        for (; op >= 0 && inside(events[size_t(op)], g); op = events[size_t(op)].parent)
            if (is_op(events[size_t(op)])) out.push_back(op);  // python frames are walked through, not kept
        return out;
    }

private:
    const Trace& trace_;
    std::unordered_map<int64_t, int32_t> by_id_;
};

void add_launch(CapturedGraph& g, const CaptureOps& ops, int32_t launch, EventKind kind) {
    const TraceEvent& l = g.trace->events()[size_t(launch)];
    const bool named = kind == EventKind::Kernel && l.launch && !l.launch->kernel.empty();
    g.named |= named;
    g.launches.push_back({{kind, named ? &l.launch->kernel.str() : nullptr}, ops.chain(launch, g)});
}

// The capture regions of one trace, per (rank, thread), in the order they began.
void find_captured_graphs(const Trace& t, std::vector<CapturedGraph>& out) {
    const CaptureOps ops(t);
    std::map<std::pair<int32_t, uint64_t>, size_t> open;
    const auto& events = t.events();
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& e = events[i];
        if (!is_runtime_call(e)) continue;
        const std::pair<int32_t, uint64_t> where{e.rank, e.thread};
        if (contains(e.name, "BeginCapture")) {
            open[where] = out.size();
            out.push_back({&t, e.rank, e.thread, e.start_ns, INT64_MAX, {}, false, {}});
            continue;
        }
        const auto it = open.find(where);
        if (it == open.end()) continue;
        if (contains(e.name, "EndCapture")) {
            out[it->second].end_ns = e.end_ns;
            open.erase(it);
        } else if (const auto kind = launched_work(e.name)) {
            add_launch(out[it->second], ops, int32_t(i), *kind);
        }
    }
}

std::vector<CapturedGraph> captured_graphs(const std::vector<const Trace*>& captures) {
    std::vector<CapturedGraph> out;
    for (const Trace* t : captures) find_captured_graphs(*t, out);
    // A region's ops are read once its end is known: the launches were added while it was open, so their
    // chains stop at the region's start only; drop ancestors past its end now.
    for (CapturedGraph& g : out) {
        for (CapturedLaunch& l : g.launches) {
            std::erase_if(l.ops, [&](int32_t op) { return !inside(g.trace->events()[size_t(op)], g); });
            ++g.counts[l.key];
        }
    }
    return out;
}

// A graph launch of the replay and the device work it ran (in start order).
struct ReplayedGraph {
    int32_t launch = -1;
    std::vector<int32_t> work;
};

std::vector<ReplayedGraph> replayed_graphs(const Trace& t) {
    std::vector<ReplayedGraph> out;
    std::unordered_map<int64_t, size_t> by_id;
    const auto& events = t.events();
    for (size_t i = 0; i < events.size(); ++i)
        if (is_graph_launch(events[i])) {
            if (events[i].correlation_id > 0)
                by_id.emplace(link_key(events[i].rank, events[i].correlation_id), out.size());
            out.push_back({int32_t(i), {}});
        }
    if (by_id.empty()) return out;
    for (size_t i = 0; i < events.size(); ++i) {
        if (!is_device_work(events[i])) continue;
        const auto it = by_id.find(link_key(events[i].rank, events[i].correlation_id));
        if (it != by_id.end()) out[it->second].work.push_back(int32_t(i));
    }
    return out;
}

enum class Fit { None, Subset, Exact };

// The replayed graph's kernels counted by slot, as a named and as an unnamed capture sees them.
struct Needs {
    SlotCounts named, unnamed;
    size_t total = 0;
};

Needs needs_of(const Trace& replay, const ReplayedGraph& r) {
    Needs n;
    n.total = r.work.size();
    for (int32_t w : r.work) {
        ++n.named[slot_of(replay.events()[size_t(w)], true)];
        ++n.unnamed[slot_of(replay.events()[size_t(w)], false)];
    }
    return n;
}

Fit fit(const Needs& n, const CapturedGraph& g) {
    if (n.total > g.launches.size() || (!g.named && n.total != g.launches.size())) return Fit::None;
    const SlotCounts& need = g.named ? n.named : n.unnamed;
    bool exact = need.size() == g.counts.size();
    for (const auto& [key, count] : need) {
        const auto it = g.counts.find(key);
        if (it == g.counts.end() || it->second < count) return Fit::None;
        exact &= it->second == count;
    }
    return exact ? Fit::Exact : Fit::Subset;
}

std::string plural(int64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Why no captured graph fits: the kernel count, else the kernels themselves.
std::string why_unmatched(const Needs& n, const std::vector<const CapturedGraph*>& candidates) {
    if (candidates.empty()) return "no captured graph to match them against";
    std::set<size_t> counts;
    for (const CapturedGraph* g : candidates) counts.insert(g->launches.size());
    if (!counts.count(n.total)) {
        std::string listed;
        size_t shown = 0;
        for (size_t c : counts)
            if (shown++ < 8) listed += (listed.empty() ? "" : ", ") + std::to_string(c);
        if (counts.size() > 8) listed += ", ...";
        return "no captured graph has " + plural(int64_t(n.total), "kernel", "kernels") + " (captured: " + listed + ")";
    }
    return "their kernels differ from those of every captured graph of " + std::to_string(n.total) + " launches";
}

// Pairs the replay's graph launches with captured graphs and adds the replayed ops.
class Attacher {
public:
    Attacher(const Trace& replay, const std::vector<CapturedGraph>& graphs, GraphReplayReport& report)
        : replay_(replay), graphs_(graphs), report_(report), events_(replay.events()) {
        for (const TraceEvent& e : events_)
            next_id_ = std::max({next_id_, e.correlation_id + 1, e.linked_correlation_id + 1});
    }
    void attach(const ReplayedGraph& r);
    std::vector<TraceEvent> finish();

private:
    std::vector<const CapturedGraph*> candidates(int32_t rank) const;
    const CapturedGraph* choose(const Needs& n, int32_t rank);
    void link(const ReplayedGraph& r, const CapturedGraph& g);
    void note(const std::string& why, int64_t launches, int64_t kernels);
    int64_t copy_op(std::map<int32_t, TraceEvent>& copies, const CapturedGraph& g, int32_t op,
                    const TraceEvent& kernel);

    const Trace& replay_;
    const std::vector<CapturedGraph>& graphs_;
    GraphReplayReport& report_;
    std::vector<TraceEvent> events_;
    std::vector<TraceEvent> added_;
    std::map<int32_t, size_t> cursor_;  // per rank: where the search for the next graph starts
    std::map<std::string, std::pair<int64_t, int64_t>> reasons_;  // why -> (graph launches, kernels)
    int64_t next_id_ = 1;
};

std::vector<const CapturedGraph*> Attacher::candidates(int32_t rank) const {
    std::vector<const CapturedGraph*> out, any;
    for (const CapturedGraph& g : graphs_) {
        any.push_back(&g);
        if (g.rank == rank) out.push_back(&g);
    }
    return out.empty() ? any : out;  // a capture of another rank (or of one process) serves every rank
}

// The first exact fit from the cursor on, wrapping around; else the first capture holding them all.
const CapturedGraph* Attacher::choose(const Needs& n, int32_t rank) {
    const std::vector<const CapturedGraph*> c = candidates(rank);
    size_t& cursor = cursor_[rank];
    std::optional<size_t> subset;
    for (size_t k = 0; k < c.size(); ++k) {
        const size_t at = (cursor + k) % c.size();
        const Fit f = fit(n, *c[at]);
        if (f == Fit::Subset && !subset) subset = at;
        if (f != Fit::Exact) continue;
        cursor = at + 1;
        return c[at];
    }
    if (!subset) return nullptr;
    cursor = *subset + 1;
    return c[*subset];
}

void Attacher::note(const std::string& why, int64_t launches, int64_t kernels) {
    auto& [l, k] = reasons_[why];
    l += launches;
    k += kernels;
}

void Attacher::attach(const ReplayedGraph& r) {
    if (r.work.empty()) {
        note("no kernel of theirs is in the replay trace", 1, 0);
        return;
    }
    const Needs n = needs_of(replay_, r);
    const int32_t rank = replay_.events()[size_t(r.launch)].rank;
    if (const CapturedGraph* g = choose(n, rank)) {
        ++report_.matched;
        link(r, *g);
    } else {
        note(why_unmatched(n, candidates(rank)), 1, int64_t(n.total));
    }
}

// The copy of a capture-time op for this graph launch (made on first use), stretched over the kernel.
int64_t Attacher::copy_op(std::map<int32_t, TraceEvent>& copies, const CapturedGraph& g, int32_t op,
                          const TraceEvent& kernel) {
    auto [it, added] = copies.try_emplace(op);
    TraceEvent& c = it->second;
    if (added) {
        const TraceEvent& from = g.trace->events()[size_t(op)];
        c.name = from.name;
        c.kind = from.kind;
        c.scope = from.scope;
        c.inputs = from.inputs;  // shapes, dtypes, Concrete Inputs: shared
        c.replayed = true;
        c.rank = kernel.rank;
        c.thread = kGraphReplayLane;
        c.correlation_id = next_id_++;
        c.start_ns = kernel.start_ns;
        c.end_ns = kernel.end_ns;
    }
    c.start_ns = std::min(c.start_ns, kernel.start_ns);
    c.end_ns = std::max(c.end_ns, kernel.end_ns);
    return c.correlation_id;
}

void Attacher::link(const ReplayedGraph& r, const CapturedGraph& g) {
    std::unordered_map<SlotKey, std::vector<size_t>, SlotKeyHash> queue;  // captured launches by slot, in order
    for (size_t i = 0; i < g.launches.size(); ++i) queue[g.launches[i].key].push_back(i);
    std::unordered_map<SlotKey, size_t, SlotKeyHash> taken;
    std::map<int32_t, TraceEvent> copies;  // by capture index: parents before children, as captured
    int64_t no_op = 0;
    for (int32_t w : r.work) {
        TraceEvent& kernel = events_[size_t(w)];
        const SlotKey key = slot_of(kernel, g.named);
        const CapturedLaunch& launch = g.launches[queue[key][taken[key]++]];
        if (launch.ops.empty()) {
            ++no_op;
            continue;
        }
        kernel.linked_correlation_id = copy_op(copies, g, launch.ops.front(), kernel);
        for (size_t a = 1; a < launch.ops.size(); ++a) copy_op(copies, g, launch.ops[a], kernel);
        ++report_.attributed;
    }
    if (no_op > 0) note("their captured launch has no op around it inside the capture region", 1, no_op);
    report_.captured_not_replayed += int64_t(g.launches.size() - r.work.size());
    report_.ops_added += int64_t(copies.size());
    for (auto& [index, op] : copies) added_.push_back(std::move(op));
}

std::vector<TraceEvent> Attacher::finish() {
    for (const auto& [why, counts] : reasons_)
        report_.unattributed.push_back(plural(counts.first, "graph launch", "graph launches") + " (" +
                                       plural(counts.second, "kernel", "kernels") + "): " + why);
    events_.insert(events_.end(), std::make_move_iterator(added_.begin()), std::make_move_iterator(added_.end()));
    return std::move(events_);
}

}  // namespace

bool is_graph_launch(const TraceEvent& e) { return is_runtime_call(e) && contains(e.name, "GraphLaunch"); }

int64_t graph_launch_count(const Trace& trace) {
    return std::count_if(trace.events().begin(), trace.events().end(),
                         [](const TraceEvent& e) { return is_graph_launch(e); });
}

int64_t graph_capture_count(const Trace& trace) {
    return std::count_if(trace.events().begin(), trace.events().end(),
                         [](const TraceEvent& e) { return is_runtime_call(e) && contains(e.name, "BeginCapture"); });
}

AttachedTrace attach_capture(const Trace& replay, const Trace& capture) { return attach_captures(replay, {&capture}); }

AttachedTrace attach_captures(const Trace& replay, const std::vector<const Trace*>& captures) {
    AttachedTrace out;
    GraphReplayReport& report = out.report;
    const std::vector<CapturedGraph> graphs = captured_graphs(captures);
    const std::vector<ReplayedGraph> replayed = replayed_graphs(replay);
    report.captured_graphs = int64_t(graphs.size());
    report.graph_launches = int64_t(replayed.size());
    for (const ReplayedGraph& r : replayed) report.kernels += int64_t(r.work.size());
    if (replayed.empty())
        report.problems.push_back(
            "the replay holds no graph launch (cudaGraphLaunch / hipGraphLaunch): nothing to attribute");
    if (graphs.empty() && !captures.empty())
        report.problems.push_back(
            "the capture holds no graph capture (cudaStreamBeginCapture / hipStreamBeginCapture .. EndCapture)");
    if (replayed.empty()) {
        out.trace = replay;
        return out;
    }
    Attacher attacher(replay, graphs, report);
    for (const ReplayedGraph& r : replayed) attacher.attach(r);
    std::vector<TraceEvent> events = attacher.finish();
    TraceMeta meta = replay.meta();
    if (report.ops_added > 0) meta.thread_names[kGraphReplayLane] = kGraphReplayLaneName;
    // Unchanged events keep their order; the kernels' new links and the added ops need the nesting anew.
    out.trace = report.attributed > 0 ? Trace::build(std::move(events), replay.memory(), std::move(meta)) : replay;
    return out;
}

std::string graph_replay_summary(const GraphReplayReport& r) {
    return "CUDA graph replay: " + std::to_string(r.attributed) + " of " + plural(r.kernels, "kernel", "kernels") +
           " attributed to capture-time ops (" + std::to_string(r.matched) + " of " +
           plural(r.graph_launches, "graph launch", "graph launches") + " matched)";
}

std::vector<std::string> graph_replay_lines(const GraphReplayReport& r, bool with_problems) {
    std::vector<std::string> out{
        graph_replay_summary(r) + "; " + plural(r.captured_graphs, "captured graph", "captured graphs") + ", " +
        plural(r.ops_added, "op", "ops") + " added on the lane \"" + kGraphReplayLaneName + "\""};
    for (const std::string& f : r.capture_files) out.push_back("  capture: " + f);
    if (r.captured_not_replayed > 0)
        out.push_back("  " + plural(r.captured_not_replayed, "captured launch", "captured launches") +
                      " of the matched graphs ran no kernel in the replay trace");
    if (r.unattributed_kernels() > 0)
        out.push_back("  " + plural(r.unattributed_kernels(), "kernel", "kernels") +
                      " not attributed (kept as they are):");
    for (const std::string& why : r.unattributed) out.push_back("    " + why);
    if (with_problems)
        for (const std::string& p : r.problems) out.push_back("  problem: " + p);
    return out;
}

}  // namespace awb
