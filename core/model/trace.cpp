#include "model/trace.h"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <optional>

#include "model/stable_group.h"

namespace awb {

namespace {

// PyTorch's _populate_cpu_children: per thread, walk events by (start, -end) with a stack of open
// parents; an event whose interval lies inside the top of the stack becomes its child.
void assign_nesting(std::vector<TraceEvent>& events) {
    // The events are in (start, -end) order: grouped by (rank, thread) in that order.
    const std::vector<int32_t> order = stable_group<std::pair<int32_t, uint64_t>>(events.size(), [&events](size_t i) {
        return nests_on_cpu(events[i]) ? std::optional(std::pair{events[i].rank, events[i].thread}) : std::nullopt;
    });
    std::vector<int32_t> open;
    for (size_t i = 0; i < order.size(); ++i) {
        if (i == 0 || events[order[i]].thread != events[order[i - 1]].thread || events[order[i]].rank != events[order[i - 1]].rank)
            open.clear();
        TraceEvent& e = events[order[i]];
        while (!open.empty()) {
            const TraceEvent& p = events[open.back()];
            if (e.start_ns >= p.end_ns || e.end_ns > p.end_ns) {
                open.pop_back();
            } else {
                e.parent = open.back();
                e.depth = p.depth + 1;
                break;
            }
        }
        open.push_back(order[i]);
    }
}

// Stable sort by (start ascending, end descending) without std::stable_sort's buffer of n events
// (hundreds of MB for a large imported trace): sort 24-byte keys, then permute in place. A trace
// arrives as a few sorted runs (each thread's ops, each stream's kernels): those are merged, in
// O(n log runs); a file in no particular order is sorted.
void sort_by_start(std::vector<TraceEvent>& events) {
    struct Key {
        int64_t start, end;
        size_t index;
    };
    const auto before = [](const Key& a, const Key& b) {
        if (a.start != b.start) return a.start < b.start;
        if (a.end != b.end) return a.end > b.end;
        return a.index < b.index;  // equal intervals keep the order they were reported in
    };
    std::vector<Key> keys(events.size());
    std::vector<size_t> runs{0};  // where each ascending run starts
    for (size_t i = 0; i < events.size(); ++i) {
        keys[i] = {events[i].start_ns, events[i].end_ns, i};
        if (i > 0 && before(keys[i], keys[i - 1])) runs.push_back(i);
    }
    if (runs.size() == 1) return;
    if (runs.size() > 64 && runs.size() > keys.size() / 64) {
        std::sort(keys.begin(), keys.end(), before);
    } else {
        runs.push_back(keys.size());
        while (runs.size() > 2) {  // merge neighbouring runs pairwise until one is left
            std::vector<size_t> merged{0};
            for (size_t r = 0; r + 2 < runs.size(); r += 2) {
                std::inplace_merge(keys.begin() + std::ptrdiff_t(runs[r]), keys.begin() + std::ptrdiff_t(runs[r + 1]),
                                   keys.begin() + std::ptrdiff_t(runs[r + 2]), before);
                merged.push_back(runs[r + 2]);
            }
            if (runs.size() % 2 == 0) merged.push_back(runs.back());  // an odd run out waits for the next round
            runs = std::move(merged);
        }
    }
    // Position i receives events[keys[i].index]: follow each cycle once.
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
            events[at] = std::move(events[from]);
            at = from;
        }
    }
}

}  // namespace

Trace Trace::build(std::vector<TraceEvent> events, std::vector<MemoryEvent> memory, TraceMeta meta) {
    Trace t;
    sort_by_start(events);
    for (auto& e : events) {
        e.parent = -1;
        e.depth = 0;
    }
    assign_nesting(events);
    std::stable_sort(memory.begin(), memory.end(),
                     [](const MemoryEvent& a, const MemoryEvent& b) { return a.ts_ns < b.ts_ns; });
    if (!events.empty() || !memory.empty()) {
        t.begin_ns_ = INT64_MAX;
        t.end_ns_ = INT64_MIN;
        for (const auto& e : events) {
            t.begin_ns_ = std::min(t.begin_ns_, e.start_ns);
            t.end_ns_ = std::max(t.end_ns_, e.end_ns);
        }
        if (!memory.empty()) {
            t.begin_ns_ = std::min(t.begin_ns_, memory.front().ts_ns);
            t.end_ns_ = std::max(t.end_ns_, memory.back().ts_ns);
        }
    }
    t.events_ = std::move(events);
    t.memory_ = std::move(memory);
    t.meta_ = std::move(meta);
    return t;
}

const EventInputs& no_inputs() {
    static const EventInputs none;
    return none;
}

std::shared_ptr<const EventInputs> InputsInterner::intern(EventInputs inputs) {
    if (inputs.empty()) return nullptr;
    size_t h = 1469598103934665603ull;
    auto mix = [&h](size_t v) { h = (h ^ v) * 1099511628211ull; };
    for (const auto& shape : inputs.shapes) {
        mix(shape.size());
        for (int64_t d : shape) mix(size_t(d));
    }
    for (const auto& d : inputs.dtypes) mix(std::hash<std::string>{}(d));
    for (const auto& f : inputs.stack) mix(std::hash<std::string>{}(f));
    for (const auto& c : inputs.concrete) mix(std::hash<std::string>{}(c));
    auto& bucket = by_hash_[h];
    for (const auto& existing : bucket)
        if (*existing == inputs) return existing;
    bucket.push_back(std::make_shared<const EventInputs>(std::move(inputs)));
    return bucket.back();
}

std::vector<uint64_t> Trace::threads() const {
    std::vector<uint64_t> out;
    for (const auto& e : events_)
        if (e.device == DeviceKind::CPU) out.push_back(e.thread);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::string format_shapes(const std::vector<std::vector<int64_t>>& shapes) {
    std::string out = "[";
    for (size_t i = 0; i < shapes.size(); ++i) {
        if (i) out += ", ";
        out += "[";
        for (size_t j = 0; j < shapes[i].size(); ++j) {
            if (j) out += ", ";
            out += std::to_string(shapes[i][j]);
        }
        out += "]";
    }
    return out + "]";
}

int profiler_step_number(std::string_view name) {
    constexpr std::string_view prefix = "ProfilerStep#";
    if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return -1;
    int k = 0;
    const auto digits = name.substr(prefix.size());
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
    return error == std::errc() && end == digits.data() + digits.size() && k >= 0 ? k : -1;
}

std::string to_string(EventKind k) {
    switch (k) {
        case EventKind::CpuOp: return "cpu_op";
        case EventKind::UserAnnotation: return "user_annotation";
        case EventKind::Kernel: return "kernel";
        case EventKind::Memcpy: return "gpu_memcpy";
        case EventKind::Memset: return "gpu_memset";
        case EventKind::Runtime: return "cuda_runtime";
        case EventKind::Other: return "other";
    }
    return "other";
}

}  // namespace awb
