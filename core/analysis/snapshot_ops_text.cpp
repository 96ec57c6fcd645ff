#include "analysis/snapshot_ops_text.h"

#include <algorithm>
#include <cinttypes>

#include "analysis/snapshot_text.h"
#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

std::string text_line(const std::string& s) { return s + "\n"; }

const SnapshotEvent& event_of(const MemorySnapshot& s, const OpAllocation& a) {
    return s.device_traces[size_t(a.device)][size_t(a.event)];
}

std::string heading(const SnapshotOpsView& v) {
    std::string out =
        text_line(printf_string("operators of %s: %s of %s allocations made inside them (%s with a time)",
                                v.trace_name.c_str(), format_count(v.ops.in_ops).c_str(),
                                format_count(v.ops.allocations).c_str(), format_count(v.ops.timed).c_str()));
    if (const std::string why = attribution_problem(v.ops, v.trace); !why.empty()) out += text_line("  " + why);
    for (const TracePeak& p : v.peaks)
        if (const std::string peak = trace_peak_text(p, v.timeline, v.snapshot); !peak.empty())
            out += text_line("  " + peak);
    return out;
}

std::string rows_text(const SnapshotOpsView& v) {
    const std::vector<OpMemoryRow>& rows = v.table;
    std::string out =
        text_line("  by operator (the one running when each block was allocated), most bytes at the peak first");
    out += text_line(
        printf_string("    %-12s %-9s %-12s %-9s %s", "At peak", "Blocks", "Allocated", "Allocs", "Operator"));
    const size_t n = v.rows > 0 ? std::min(rows.size(), size_t(v.rows)) : rows.size();
    for (size_t i = 0; i < n; ++i) {
        const OpMemoryRow& r = rows[i];
        out += text_line(printf_string("    %-12s %-9" PRId64 " %-12s %-9" PRId64 " %s",
                                       format_bytes(r.bytes_at_peak).c_str(), r.at_peak, format_bytes(r.bytes).c_str(),
                                       r.allocations, r.name.c_str()));
    }
    if (n < rows.size()) out += text_line(printf_string("    (%zu more; --rows 0 shows all)", rows.size() - n));
    return out;
}

std::string under_text(const SnapshotOpsView& v) {
    const std::vector<OpAllocation>& under = v.under;
    const AllocationBytes bytes = allocation_bytes(v.snapshot, v.at_peak, under);
    std::string out = text_line(printf_string(
        "  allocated while %s ran (by it or an operator under it): %zu block(s), %s; alive at the peak %s",
        v.op.c_str(), under.size(), format_bytes(bytes.bytes).c_str(), format_bytes(bytes.at_peak).c_str()));
    if (under.empty()) return out;
    out += text_line(printf_string("    %-6s %-9s %-12s %-11s %-8s %-28s %s", "Device", "Alloc #", "Time", "Size",
                                   "At peak", "Made by", "Stack (innermost first)"));
    const size_t n = v.rows > 0 ? std::min(under.size(), size_t(v.rows)) : under.size();
    for (size_t i = 0; i < n; ++i) {
        const OpAllocation& a = under[i];
        const SnapshotEvent& e = event_of(v.snapshot, a);
        out += text_line(printf_string(
            "    %-6d %-9" PRId64 " %-12s %-11s %-8s %-28s %s", a.device, a.event, time_in_trace(e, v.trace).c_str(),
            format_bytes(e.size).c_str(), alive_at_peak(v.at_peak, a) ? "yes" : "no",
            std::string(operator_name(v.trace, a.op)).c_str(), stack_text(v.snapshot, e.stack).c_str()));
    }
    if (n < under.size()) out += text_line(printf_string("    (%zu more; --rows 0 shows all)", under.size() - n));
    return out;
}

}  // namespace

std::string time_in_trace(const SnapshotEvent& e, const Trace& trace) {
    if (e.time_us < 0) return "-";
    return format_ms(double(e.time_us * 1000 - trace.begin_ns()));
}

std::string trace_peak_text(const TracePeak& peak, const SnapshotTimeline& timeline, const MemorySnapshot& snapshot) {
    if (peak.device_peak) return "";
    const auto t = std::find_if(timeline.devices.begin(), timeline.devices.end(),
                                [&](const DeviceMemoryTimeline& d) { return d.device == peak.device; });
    if (t == timeline.devices.end() || t->peak_index == 0) return "";
    // The device's peak is not inside the trace's events [first_x, last_x] (peak.device_peak is false).
    const bool timed = snapshot.device_traces[size_t(peak.device)][size_t(t->peak_index - 1)].time_us >= 0;
    const char* where = !timed                         ? "has no time"
                        : t->peak_index < peak.first_x ? "came before the trace began"
                                                       : "came after the trace ended";
    return printf_string("%s: the table's peak is the one inside the trace, %s after event %" PRId64
                         "; the device's own, %s after event %" PRId64 ", %s",
                         snapshot.device_name(peak.device).c_str(), format_bytes(peak.allocated).c_str(),
                         peak.index - 1, format_bytes(t->peak_allocated).c_str(), t->peak_index - 1, where);
}

SnapshotOpsView snapshot_ops_view(const MemorySnapshot& snapshot, const Trace& trace, const SnapshotTimeline& timeline,
                                  const SnapshotOptions& options, const SnapshotOps& ops, std::string trace_name,
                                  std::string op, int rows) {
    SnapshotOpsView v{snapshot,
                      trace,
                      timeline,
                      ops,
                      std::move(trace_name),
                      std::move(op),
                      rows,
                      trace_peaks(snapshot, timeline, options, trace),
                      {},
                      {},
                      {}};
    v.at_peak = allocs_at_peak(v.peaks);
    v.table = op_memory_rows(ops, snapshot, trace, v.at_peak);
    if (!v.op.empty()) v.under = allocations_under(ops, trace, v.op);
    return v;
}

std::string format_snapshot_ops(const SnapshotOpsView& v) {
    std::string out = heading(v);
    if (v.ops.in_ops > 0) out += rows_text(v);
    if (!v.op.empty()) out += under_text(v);
    return out;
}

nlohmann::json snapshot_ops_json(const SnapshotOpsView& v) {
    nlohmann::json rows = nlohmann::json::array();
    for (const OpMemoryRow& r : v.table)
        rows.push_back({{"operator", r.name},
                        {"allocations", r.allocations},
                        {"bytes", r.bytes},
                        {"blocks_at_peak", r.at_peak},
                        {"bytes_at_peak", r.bytes_at_peak}});
    nlohmann::json j{{"trace", v.trace_name},
                     {"allocations", v.ops.allocations},
                     {"timed", v.ops.timed},
                     {"in_operators", v.ops.in_ops},
                     {"problem", attribution_problem(v.ops, v.trace)},
                     {"operators", rows}};
    nlohmann::json peaks = nlohmann::json::array();
    for (const TracePeak& p : v.peaks)
        peaks.push_back({{"device", p.device},
                         {"allocated_bytes", p.allocated},
                         {"after_events", p.index},
                         {"device_peak", p.device_peak},
                         {"blocks", p.blocks.size()}});
    j["peaks"] = peaks;
    if (!v.op.empty()) {
        nlohmann::json under = nlohmann::json::array();
        for (const OpAllocation& a : v.under) {
            const SnapshotEvent& e = event_of(v.snapshot, a);
            under.push_back({{"device", a.device},
                             {"alloc_event", a.event},
                             {"time_us", e.time_us},
                             {"bytes", e.size},
                             {"at_peak", alive_at_peak(v.at_peak, a)},
                             {"made_by", operator_name(v.trace, a.op)},
                             {"stack", stack_text(v.snapshot, e.stack, 64)}});
        }
        j["op"] = {{"name", v.op}, {"allocations", under}};
    }
    return j;
}

}  // namespace awb
