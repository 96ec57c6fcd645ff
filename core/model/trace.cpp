#include "model/trace.h"

#include <algorithm>
#include <charconv>

#include "model/trace_order.h"

namespace awb {

Trace Trace::build(std::vector<TraceEvent> events, std::vector<MemoryEvent> memory, TraceMeta meta) {
    const TimeExtent extent = order_and_nest(events);
    return finish(std::move(events), extent.begin_ns, extent.end_ns, std::move(memory), std::move(meta));
}

Trace Trace::merge(std::vector<std::vector<TraceEvent>> parts, std::vector<MemoryEvent> memory, TraceMeta meta) {
    std::vector<TraceEvent> events;
    const TimeExtent extent = merge_ordered(parts, events);
    return finish(std::move(events), extent.begin_ns, extent.end_ns, std::move(memory), std::move(meta));
}

Trace Trace::finish(std::vector<TraceEvent> events, int64_t begin_ns, int64_t end_ns, std::vector<MemoryEvent> memory,
                    TraceMeta meta) {
    Trace t;
    std::stable_sort(memory.begin(), memory.end(),
                     [](const MemoryEvent& a, const MemoryEvent& b) { return a.ts_ns < b.ts_ns; });
    if (!events.empty() || !memory.empty()) {
        t.begin_ns_ = begin_ns;
        t.end_ns_ = end_ns;
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
    const CommArgs& comm = inputs.comm;
    mix(std::hash<std::string>{}(comm.collective));
    mix(size_t(comm.in_nelems));
    mix(size_t(comm.out_nelems));
    mix(size_t(comm.seq));
    auto& bucket = by_hash_[h];
    for (const auto& existing : bucket)
        if (*existing == inputs) return existing;
    bucket.push_back(std::make_shared<const EventInputs>(std::move(inputs)));
    return bucket.back();
}

std::pair<std::vector<TraceEvent>, std::vector<MemoryEvent>> Trace::take() && {
    std::pair<std::vector<TraceEvent>, std::vector<MemoryEvent>> out{std::move(events_), std::move(memory_)};
    events_.clear();
    memory_.clear();
    return out;
}

Trace Trace::of_rank(int32_t rank, int64_t lo, int64_t hi) const {
    const bool window = lo < hi;
    std::vector<TraceEvent> events;
    std::vector<MemoryEvent> memory;
    for (const TraceEvent& e : events_)
        if (e.rank == rank && (!window || (e.start_ns >= lo && e.start_ns < hi)))
            events.push_back(e);  // nested anew by build
    for (const MemoryEvent& m : memory_)
        if (m.rank == rank && (!window || (m.ts_ns >= lo && m.ts_ns < hi))) memory.push_back(m);
    TraceMeta meta = meta_;
    meta.ranks = {rank};
    return build(std::move(events), std::move(memory), std::move(meta));
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
