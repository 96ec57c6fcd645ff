#include "model/trace_order.h"

#include <algorithm>
#include <cstdint>
#include <future>
#include <map>
#include <queue>
#include <utility>

#include "model/huge_pages.h"

namespace awb {

namespace {

constexpr size_t kTwoCores = size_t(1) << 16;  // events from which the work is split over two threads
constexpr uint32_t kNoGroup = UINT32_MAX;

// An event's place in time, 24 bytes: where it is in the events as given, and its nesting group (a
// dense id of its (rank, thread) for synchronous CPU events, kNoGroup for the others).
struct StartKey {
    int64_t start, end;
    uint32_t index;
    uint32_t group;
};

bool before(const StartKey& a, const StartKey& b) {
    if (a.start != b.start) return a.start < b.start;
    if (a.end != b.end) return a.end > b.end;
    return a.index < b.index;  // equal intervals keep the order they were reported in
}

std::vector<StartKey> start_keys(const std::vector<TraceEvent>& events, size_t& groups, TimeExtent& extent) {
    std::map<std::pair<int32_t, uint64_t>, uint32_t> ids;
    std::pair<int32_t, uint64_t> last{0, 0};
    uint32_t last_id = kNoGroup;  // events of one thread come in runs: the last one is tried first
    std::vector<StartKey> keys(events.size());
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& e = events[i];
        uint32_t group = kNoGroup;
        if (nests_on_cpu(e)) {
            const std::pair<int32_t, uint64_t> thread{e.rank, e.thread};
            if (last_id == kNoGroup || thread != last) {
                last_id = ids.try_emplace(thread, uint32_t(ids.size())).first->second;
                last = thread;
            }
            group = last_id;
        }
        keys[i] = {e.start_ns, e.end_ns, uint32_t(i), group};
        extent.begin_ns = std::min(extent.begin_ns, e.start_ns);
        extent.end_ns = std::max(extent.end_ns, e.end_ns);
    }
    groups = ids.size();
    return keys;
}

// Sorts keys[from, to). A trace arrives as a few ascending runs (each thread's ops, each stream's
// kernels): those are merged pairwise; a range in no particular order is sorted.
void sort_range(std::vector<StartKey>& keys, size_t from, size_t to) {
    std::vector<size_t> runs{from};  // where each ascending run starts
    for (size_t i = from + 1; i < to; ++i)
        if (before(keys[i], keys[i - 1])) runs.push_back(i);
    if (runs.size() == 1) return;
    const auto at = [&keys](size_t i) { return keys.begin() + std::ptrdiff_t(i); };
    if (runs.size() > 64 && runs.size() > (to - from) / 64) {
        std::sort(at(from), at(to), before);
        return;
    }
    runs.push_back(to);
    while (runs.size() > 2) {  // merge neighbouring runs pairwise until one is left
        std::vector<size_t> merged{from};
        for (size_t r = 0; r + 2 < runs.size(); r += 2) {
            std::inplace_merge(at(runs[r]), at(runs[r + 1]), at(runs[r + 2]), before);
            merged.push_back(runs[r + 2]);
        }
        if (runs.size() % 2 == 0) merged.push_back(runs.back());  // an odd run out waits for the next round
        runs = std::move(merged);
    }
}

void sort_keys(std::vector<StartKey>& keys) {
    const size_t n = keys.size();
    if (n < kTwoCores) {
        sort_range(keys, 0, n);
        return;
    }
    const size_t half = n / 2;
    auto second = std::async(std::launch::async, [&keys, half, n] { sort_range(keys, half, n); });
    sort_range(keys, 0, half);
    second.get();
    std::inplace_merge(keys.begin(), keys.begin() + std::ptrdiff_t(half), keys.end(), before);
}

// Position i receives events[keys[i].index], in place (no second array of events): each cycle once.
void permute(std::vector<TraceEvent>& events, const std::vector<StartKey>& keys) {
    std::vector<bool> done(events.size(), false);
    for (size_t i = 0; i < events.size(); ++i) {
        if (done[i] || keys[i].index == i) continue;
        TraceEvent held = std::move(events[i]);
        size_t at = i;
        for (;;) {
            done[at] = true;
            const size_t from = keys[at].index;
            if (from == i) {
                events[at] = std::move(held);
                break;
            }
            __builtin_prefetch(&events[keys[from].index]);  // the next move's source, while this one runs
            events[at] = std::move(events[from]);
            at = from;
        }
    }
}

// Each event's parent and depth, the events and keys now both in sorted order: per nesting group a
// stack of open events; an event inside the top of its group's stack is its child. Read from the
// keys (24 bytes an event), written straight into the events: no array of n parents beside them.
void nest(std::vector<TraceEvent>& events, const std::vector<StartKey>& keys, size_t groups) {
    std::vector<std::vector<int32_t>> open(groups);
    for (size_t i = 0; i < keys.size(); ++i) {
        const StartKey& e = keys[i];
        TraceEvent& event = events[i];
        event.parent = -1;
        event.depth = 0;
        if (e.group == kNoGroup) continue;
        std::vector<int32_t>& stack = open[e.group];
        while (!stack.empty()) {
            const StartKey& p = keys[size_t(stack.back())];
            if (e.start >= p.end || e.end > p.end) {
                stack.pop_back();
            } else {
                event.parent = stack.back();
                event.depth = events[size_t(stack.back())].depth + 1;
                break;
            }
        }
        stack.push_back(int32_t(i));
    }
}

// The head of a part in merge_ordered: its next event's place in time; on equal intervals the earlier part
// first (the concatenation's order, which order_and_nest keeps).
struct PartHead {
    int64_t start, end;
    uint32_t part;
    bool operator<(const PartHead& b) const {  // priority_queue's "lower priority than"
        if (start != b.start) return start > b.start;
        if (end != b.end) return end < b.end;
        return part > b.part;
    }
};

}  // namespace

TimeExtent merge_ordered(std::vector<std::vector<TraceEvent>>& parts, std::vector<TraceEvent>& out) {
    TimeExtent extent;
    size_t total = 0;
    for (const auto& p : parts) total += p.size();
    out.clear();
    out.reserve(total);
    prefer_huge_pages(out);  // a GB of events written once: a fault per 2 MiB, not per 4 KiB
    std::vector<std::vector<int32_t>> moved_to(parts.size());  // per part: its events' places in out
    std::vector<size_t> next(parts.size(), 0);
    std::priority_queue<PartHead> heads;
    for (size_t p = 0; p < parts.size(); ++p) {
        moved_to[p].resize(parts[p].size());
        if (!parts[p].empty()) heads.push({parts[p][0].start_ns, parts[p][0].end_ns, uint32_t(p)});
    }
    while (!heads.empty()) {
        const uint32_t p = heads.top().part;
        heads.pop();
        std::vector<TraceEvent>& part = parts[p];
        const size_t i = next[p]++;
        TraceEvent& e = part[i];
        moved_to[p][i] = int32_t(out.size());
        if (e.parent >= 0) e.parent = moved_to[p][size_t(e.parent)];  // a parent comes before its children
        extent.begin_ns = std::min(extent.begin_ns, e.start_ns);
        extent.end_ns = std::max(extent.end_ns, e.end_ns);
        out.push_back(std::move(e));
        if (i + 1 < part.size()) heads.push({part[i + 1].start_ns, part[i + 1].end_ns, p});
    }
    for (auto& p : parts) std::vector<TraceEvent>().swap(p);
    return extent;
}

TimeExtent order_and_nest(std::vector<TraceEvent>& events) {
    size_t groups = 0;
    TimeExtent extent;
    std::vector<StartKey> keys = start_keys(events, groups, extent);
    sort_keys(keys);
    permute(events, keys);
    nest(events, keys, groups);
    return extent;
}

}  // namespace awb
