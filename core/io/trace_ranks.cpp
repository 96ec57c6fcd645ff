#include "io/trace_ranks.h"

#include <algorithm>
#include <climits>
#include <set>

namespace awb::trace_io {

ImportedTrace merge_ranks(std::vector<ImportedTrace> parts, const std::vector<std::string>& paths) {
    std::set<int> ranks;
    bool unique = true;
    for (const auto& p : parts) unique = unique && p.rank >= 0 && ranks.insert(p.rank).second;
    ImportedTrace out;
    std::vector<TraceEvent> events;
    std::vector<MemoryEvent> memory;
    TraceMeta meta;
    meta.origin_ns = INT64_MAX;
    for (size_t i = 0; i < parts.size(); ++i) {
        ImportedTrace& p = parts[i];
        const int32_t rank = unique ? p.rank : int32_t(i);
        meta.ranks.push_back(rank);
        meta.origin_ns = std::min(meta.origin_ns, p.trace.meta().origin_ns);
        for (TraceEvent e : p.trace.events()) {
            e.rank = rank;
            events.push_back(std::move(e));
        }
        for (MemoryEvent m : p.trace.memory()) {
            m.rank = rank;
            memory.push_back(m);
        }
        for (const auto& [tid, name] : p.trace.meta().thread_names) meta.thread_names.emplace(tid, name);
        for (const auto& [tid, name] : p.trace.meta().stream_names) meta.stream_names.emplace(tid, name);
        for (const auto& [pid, name] : p.trace.meta().process_names) meta.process_names.emplace(pid, name);
        for (const auto& [tid, pid] : p.trace.meta().thread_process) meta.thread_process.emplace(tid, pid);
        meta.legacy_device_spans = meta.legacy_device_spans || p.trace.meta().legacy_device_spans;
        for (const auto& [cat, n] : p.categories) out.categories[cat] += n;
        out.flow_events += p.flow_events;
        out.counter_events += p.counter_events;
        out.metadata_events += p.metadata_events;
        out.instant_events += p.instant_events;
        out.notes.skipped_events += p.notes.skipped_events;
        out.notes.negative_durations += p.notes.negative_durations;
        for (auto& w : p.notes.warnings) out.notes.warnings.push_back(paths[i] + ": " + w);
        out.bytes_read += p.bytes_read;
        out.world_size = std::max(out.world_size, p.world_size);
        if (out.backend.empty()) out.backend = p.backend;
        meta.world_size = out.world_size;
        meta.backend = out.backend;
        if (out.devices.empty()) out.devices = p.devices;
        if (out.header.empty()) out.header = p.header;
        if (out.extra.is_null()) out.extra = p.extra;
    }
    std::sort(meta.ranks.begin(), meta.ranks.end());
    meta.source = paths.front();
    out.trace_name = std::to_string(parts.size()) + " ranks of one run";
    out.trace = Trace::build(std::move(events), std::move(memory), std::move(meta));
    return out;
}

}  // namespace awb::trace_io
