#include "io/chrome_trace.h"

#include <unistd.h>

#include <cmath>
#include <map>
#include <unordered_map>

#include "analysis/results_text.h"
#include "io/json_io.h"

namespace awb {

using nlohmann::json;

namespace {

// Microseconds with nanosecond fraction, relative to the trace origin (baseTimeNanoseconds).
double ts_us(int64_t ns, int64_t origin) { return double(ns - origin) / 1000.0; }

}  // namespace

json to_chrome_trace(const Trace& trace, const ChromeTraceInfo& info) {
    const int64_t origin = trace.meta().origin_ns;
    const int64_t pid = info.pid != 0 ? info.pid : int64_t(getpid());
    json events = json::array();

    std::map<uint64_t, int> thread_order;
    for (uint64_t t : trace.threads()) thread_order.emplace(t, int(thread_order.size()));
    std::map<std::pair<int, uint64_t>, bool> streams;  // (device index, stream)

    std::unordered_map<int64_t, size_t> cpu_op_by_correlation;
    for (size_t i = 0; i < trace.events().size(); ++i) {
        const auto& e = trace.events()[i];
        if (e.device == DeviceKind::CPU && e.correlation_id > 0) cpu_op_by_correlation.emplace(e.correlation_id, i);
    }

    int64_t flow_id = 0;
    for (const auto& e : trace.events()) {
        json ev{{"ph", "X"}, {"cat", to_string(e.kind)}, {"name", e.name},
                {"ts", ts_us(e.start_ns, origin)}, {"dur", double(e.duration_ns()) / 1000.0}};
        json args = json::object();
        if (e.device == DeviceKind::CPU) {
            ev["pid"] = pid;
            ev["tid"] = e.thread;
            if (e.correlation_id > 0) args["External id"] = e.correlation_id;
            if (e.sequence_nr >= 0) {
                args["Sequence number"] = e.sequence_nr;
                args["Fwd thread id"] = e.fwd_thread;
            }
            if (!e.shapes().empty() || !e.dtypes().empty()) {
                args["Input Dims"] = e.shapes();
                args["Input type"] = e.dtypes();
            }
            if (!e.concrete().empty()) args["Concrete Inputs"] = e.concrete();
            if (e.replayed) args["Replayed from capture"] = true;  // TraceEvent::replayed: no CPU time when read back
            if (!e.stack().empty()) {
                std::string stack;
                for (const auto& f : e.stack()) stack += (stack.empty() ? "" : ";") + f;
                args["Call stack"] = stack;
            }
        } else {
            const int device = e.device_index < 0 ? 0 : e.device_index;
            ev["pid"] = device;
            ev["tid"] = e.thread;
            streams[{device, e.thread}] = true;
            args["device"] = device;
            args["stream"] = e.thread;
            args["correlation"] = e.correlation_id;
            if (e.linked_correlation_id > 0) {
                args["External id"] = e.linked_correlation_id;
                auto op = cpu_op_by_correlation.find(e.linked_correlation_id);
                if (op != cpu_op_by_correlation.end()) {
                    const auto& src = trace.events()[op->second];
                    ++flow_id;
                    events.push_back({{"ph", "s"}, {"id", flow_id}, {"pid", pid}, {"tid", src.thread},
                                      {"ts", ts_us(src.start_ns, origin)}, {"cat", "ac2g"}, {"name", "ac2g"}});
                    events.push_back({{"ph", "f"}, {"id", flow_id}, {"pid", device}, {"tid", e.thread},
                                      {"ts", ts_us(e.start_ns, origin)}, {"cat", "ac2g"}, {"name", "ac2g"}, {"bp", "e"}});
                }
            }
        }
        ev["args"] = std::move(args);
        events.push_back(std::move(ev));
    }

    // The allocator's totals only where it gave them: a running sum written as "Total Allocated" would
    // read back as absolute memory.
    for (const auto& m : trace.memory()) {
        json args = {{"Device Type", m.device == DeviceKind::CUDA ? 1 : 0}, {"Device Id", m.device_index}, {"Addr", 0}, {"Bytes", m.bytes}};
        if (m.total_allocated >= 0) args["Total Allocated"] = m.total_allocated;
        if (m.total_reserved >= 0) args["Total Reserved"] = m.total_reserved;
        events.push_back({{"ph", "i"},
                          {"s", "t"},
                          {"cat", "cpu_instant_event"},
                          {"name", "[memory]"},
                          {"pid", pid},
                          {"tid", m.thread},
                          {"ts", ts_us(m.ts_ns, origin)},
                          {"args", std::move(args)}});
    }

    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", info.process_name}}}});
    events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"tid", 0}, {"args", {{"sort_index", -1}}}});
    for (const auto& [tid, order] : thread_order) {
        const std::string name = order == 0 ? "thread " + std::to_string(tid) + " (engine)" : "thread " + std::to_string(tid);
        events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
        events.push_back({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid}, {"tid", tid}, {"args", {{"sort_index", order}}}});
    }
    std::map<int, bool> devices;
    for (const auto& [key, present] : streams) {
        if (!devices[key.first])
            events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", key.first}, {"tid", 0},
                              {"args", {{"name", "GPU " + std::to_string(key.first)}}}});
        devices[key.first] = true;
        events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", key.first}, {"tid", key.second},
                          {"args", {{"name", "stream " + std::to_string(key.second)}}}});
    }

    json out{{"schemaVersion", 1},
             {"deviceProperties", json::array()},
             {"displayTimeUnit", "ms"},
             {"baseTimeNanoseconds", origin},
             {"traceName", info.trace_name},
             {"traceEvents", std::move(events)}};
    if (info.metadata.is_object())
        for (const auto& [key, value] : info.metadata.items()) out[key] = value;
    return out;
}

ChromeTraceInfo run_trace_info(const ProfileResult& result, std::string process_name) {
    ChromeTraceInfo info;
    info.trace_name = describe_spec(result.spec);
    info.process_name = std::move(process_name);
    info.metadata = json{{"attention_workbench",
                          {{"spec", result.spec},
                           {"options", result.options},
                           {"environment", result.environment},
                           {"steps", result.steps},
                           {"device_peak_bytes", result.device_peak_bytes},
                           {"roof", result.roof}, {"interrupted", result.interrupted}}}};
    return info;
}

void write_chrome_trace(const Trace& trace, const ChromeTraceInfo& info, const std::string& path) {
    write_text_file(path, to_chrome_trace(trace, info).dump());
}

}  // namespace awb
