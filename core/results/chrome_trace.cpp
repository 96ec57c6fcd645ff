#include "results/chrome_trace.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "analysis/results_text.h"
#include "results/run_json.h"

namespace awb {

using nlohmann::json;

namespace {

// Microseconds relative to the trace origin (baseTimeNanoseconds): whole ones as integers (exact at
// any magnitude), others with their nanosecond fraction.
json ts_us(int64_t ns, int64_t origin) {
    const int64_t rel = ns - origin;
    if (rel % 1000 == 0) return rel / 1000;
    return double(rel) / 1000.0;
}

json duration_us(int64_t ns) { return ns % 1000 == 0 ? json(ns / 1000) : json(double(ns) / 1000.0); }

// The category the importer reads back as the event's kind, on the event's side (CPU or device).
std::string category_of(const TraceEvent& e) {
    if (e.device != DeviceKind::CPU && e.kind == EventKind::UserAnnotation) return "gpu_user_annotation";
    if (e.device != DeviceKind::CPU && e.kind == EventKind::Other) return "cuda_sync";
    return to_string(e.kind);
}

void put_launch(json& args, const DeviceLaunch& l) {
    args["grid"] = l.grid;
    args["block"] = l.block;
    args["registers per thread"] = l.registers_per_thread;
    args["shared memory"] = l.shared_memory_bytes;
    args["blocks per SM"] = l.blocks_per_sm;
    args["warps per SM"] = l.warps_per_sm;
    args["est. achieved occupancy %"] = l.occupancy_pct;
    args["bytes"] = l.bytes;
    args["memory bandwidth (GB/s)"] = l.bandwidth_gb_s;
    if (!l.kernel.empty()) args["kernel"] = l.kernel;
}

// A collective's record as record_param_comms writes it (lists as text: "[0, 1]").
void put_comm(json& args, const CommArgs& c) {
    auto list = [](const auto& values) {
        std::string out;
        for (const auto& v : values) out += (out.empty() ? "" : ", ") + std::to_string(v);
        return "[" + out + "]";
    };
    if (!c.collective.empty()) args["Collective name"] = c.collective;
    if (!c.dtype.empty()) args["dtype"] = c.dtype;
    if (c.in_nelems >= 0) args["In msg nelems"] = c.in_nelems;
    if (c.out_nelems >= 0) args["Out msg nelems"] = c.out_nelems;
    if (c.group_size >= 0) args["Group size"] = c.group_size;
    if (!c.group_name.empty()) args["Process Group Name"] = c.group_name;
    if (!c.group_desc.empty()) args["Process Group Description"] = c.group_desc;
    if (!c.group_ranks.empty()) args["Process Group Ranks"] = list(c.group_ranks);
    if (!c.in_splits.empty()) args["In split size"] = list(c.in_splits);
    if (!c.out_splits.empty()) args["Out split size"] = list(c.out_splits);
    if (c.seq >= 0) args["Seq"] = c.seq;
    if (c.rank >= 0) args["Rank"] = c.rank;
    if (c.peer >= 0) args[c.collective == "recv" ? "Src Rank" : "Dst Rank"] = c.peer;
}

void put_inputs(json& args, const TraceEvent& e) {
    if (!e.shapes().empty() || !e.dtypes().empty()) {
        args["Input Dims"] = e.shapes();
        args["Input type"] = e.dtypes();
    }
    if (!e.concrete().empty()) args["Concrete Inputs"] = e.concrete();
    if (!e.stack().empty()) {
        std::string stack;
        for (const auto& f : e.stack()) stack += (stack.empty() ? "" : ";") + f;
        args["Call stack"] = stack;
    }
    if (const CommArgs* c = e.comm()) put_comm(args, *c);
}

json cpu_args(const TraceEvent& e) {
    json args = json::object();
    if (e.kind == EventKind::Runtime) {  // Kineto's: CUPTI's correlation, and the op it belongs to
        if (e.correlation_id != 0) args["correlation"] = e.correlation_id;
        if (e.linked_correlation_id != 0) args["External id"] = e.linked_correlation_id;
    } else if (e.correlation_id != 0) {
        args["External id"] = e.correlation_id;
    }
    if (e.sequence_nr >= 0) args["Sequence number"] = e.sequence_nr;
    if (e.sequence_nr >= 0 || e.fwd_thread != 0) args["Fwd thread id"] = e.fwd_thread;
    put_inputs(args, e);
    if (e.replayed) args["Replayed from capture"] = true;  // TraceEvent::replayed: no CPU time when read back
    if (e.is_async) args["Async"] = true;
    if (e.scope != (e.kind == EventKind::UserAnnotation ? 5 : 0)) args["Record scope"] = e.scope;
    if (e.launch) put_launch(args, *e.launch);
    return args;
}

json device_args(const TraceEvent& e) {
    json args = json::object();
    args["device"] = e.device_index;
    if (e.thread <= uint64_t(INT64_MAX)) args["stream"] = e.thread;
    args["correlation"] = e.correlation_id;
    if (e.linked_correlation_id != 0) args["External id"] = e.linked_correlation_id;
    if (e.launch) put_launch(args, *e.launch);
    if (e.sequence_nr >= 0) args["Sequence number"] = e.sequence_nr;
    if (const CommArgs* c = e.comm()) put_comm(args, *c);  // Kineto copies a collective's record onto its kernels
    return args;
}

// Kineto's deviceProperties, with the fields the importer reads (what is not known is not written).
json device_properties_json(const std::vector<DeviceProperties>& devices) {
    json out = json::array();
    for (const DeviceProperties& d : devices) {
        json j{{"id", d.id}, {"name", d.name}};
        if (d.total_global_mem >= 0) j["totalGlobalMem"] = d.total_global_mem;
        if (d.compute_major >= 0) {
            j["computeMajor"] = d.compute_major;
            j["computeMinor"] = d.compute_minor;
        }
        if (d.num_sms >= 0) j["numSms"] = d.num_sms;
        out.push_back(std::move(j));
    }
    return out;
}

// The file's baseTimeNanoseconds: the trace's origin, unless its events lie far from it (a trace of
// absolute epoch microseconds without a base): then its first event, so that timestamps stay small
// enough for their nanoseconds to survive as decimals (restore_trace_meta puts the origin back). That
// base lies whole microseconds from the origin, so each time keeps its fraction of a microsecond from
// the origin (HTA's figure rounds to microseconds of the file's clock: comm_overlap.h).
int64_t base_of(const Trace& trace) {
    const int64_t origin = trace.meta().origin_ns;
    const int64_t from_origin = trace.begin_ns() - origin;
    if (from_origin <= int64_t(1e12) && from_origin >= 0) return origin;
    const int64_t whole_us = from_origin >= 0 ? from_origin / 1000 : -((999 - from_origin) / 1000);
    return origin + whole_us * 1000;
}

// Writes one trace (or one rank of it) as Kineto's event list.
class Writer {
public:
    Writer(const Trace& trace, const ChromeTraceInfo& info) : trace_(trace), info_(info), origin_(base_of(trace)) {
        for (const auto& e : trace.events())
            if (e.device != DeviceKind::CPU && wanted(e.rank)) devices_.insert(e.device_index);
        cpu_pid_ = info.pid != 0 ? info.pid : int64_t(getpid());
        while (devices_.count(int(cpu_pid_))) ++cpu_pid_;  // a device's pid names its streams, not threads
        for (size_t i = 0; i < trace.events().size(); ++i) {
            const auto& e = trace.events()[i];
            if (e.device == DeviceKind::CPU && e.correlation_id > 0 && e.kind != EventKind::Runtime && wanted(e.rank))
                cpu_op_by_correlation_.emplace(e.correlation_id, i);
        }
    }

    // The events as the text of a JSON list's items, each written as it is made (a trace's worth of
    // json values would take ten times the text's memory).
    std::string run() {
        for (const auto& e : trace_.events())
            if (wanted(e.rank)) add_event(e);
        for (const auto& m : trace_.memory())
            if (wanted(m.rank)) add_memory(m);
        add_names();
        return std::move(text_);
    }

private:
    void put(const json& event) {
        if (!text_.empty()) text_ += ',';
        text_ += event.dump();
    }

    bool wanted(int32_t rank) const { return info_.rank == kAllRanks || rank == info_.rank; }
    // All ranks in one file: each rank's CPU threads under a process of its own.
    int64_t pid_of(int32_t rank) const {
        return info_.rank == kAllRanks && trace_.meta().ranks.size() > 1 ? cpu_pid_ + 1 + std::max(0, rank) : cpu_pid_;
    }

    void add_event(const TraceEvent& e) {
        json ev{{"ph", "X"},
                {"cat", category_of(e)},
                {"name", e.name},
                {"ts", ts_us(e.start_ns, origin_)},
                {"dur", duration_us(e.duration_ns())}};
        if (e.device == DeviceKind::CPU) {
            ev["pid"] = pid_of(e.rank);
            ev["tid"] = e.thread;
            ev["args"] = cpu_args(e);
        } else {
            ev["pid"] = e.device_index;
            ev["tid"] = e.thread;
            ev["args"] = device_args(e);
            streams_.insert({e.device_index, e.thread});
            add_flow(e);
        }
        put(ev);
    }

    // ac2g: from the CPU op a device event belongs to, to the device event (Perfetto draws the arrow).
    void add_flow(const TraceEvent& e) {
        if (e.linked_correlation_id <= 0) return;
        auto op = cpu_op_by_correlation_.find(e.linked_correlation_id);
        if (op == cpu_op_by_correlation_.end()) return;
        const auto& src = trace_.events()[op->second];
        ++flow_id_;
        put({{"ph", "s"},
             {"id", flow_id_},
             {"pid", pid_of(src.rank)},
             {"tid", src.thread},
             {"ts", ts_us(src.start_ns, origin_)},
             {"cat", "ac2g"},
             {"name", "ac2g"}});
        put({{"ph", "f"},
             {"id", flow_id_},
             {"pid", e.device_index},
             {"tid", e.thread},
             {"ts", ts_us(e.start_ns, origin_)},
             {"cat", "ac2g"},
             {"name", "ac2g"},
             {"bp", "e"}});
    }

    void add_memory(const MemoryEvent& m) {
        // The allocator's totals only where it gave them: a running sum written as "Total Allocated" would
        // read back as absolute memory.
        json args{{"Device Type", m.device == DeviceKind::CUDA ? 1 : 0},
                  {"Device Id", m.device_index},
                  {"Addr", 0},
                  {"Bytes", m.bytes}};
        if (m.total_allocated >= 0) args["Total Allocated"] = m.total_allocated;
        if (m.total_reserved >= 0) args["Total Reserved"] = m.total_reserved;
        put({{"ph", "i"},
             {"s", "t"},
             {"cat", "cpu_instant_event"},
             {"name", "[memory]"},
             {"pid", pid_of(m.rank)},
             {"tid", m.thread},
             {"ts", ts_us(m.ts_ns, origin_)},
             {"args", std::move(args)}});
    }

    void meta_event(const char* what, int64_t pid, uint64_t tid, json args) {
        put({{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}});
    }

    void add_names() {
        const TraceMeta& meta = trace_.meta();
        std::map<std::pair<int64_t, uint64_t>, bool> threads;  // (pid, tid) of CPU events
        for (const auto& e : trace_.events())
            if (e.device == DeviceKind::CPU && wanted(e.rank))
                threads.emplace(std::pair{pid_of(e.rank), e.thread}, true);
        std::set<int64_t> pids;
        int order = 0;
        for (const auto& [key, unused] : threads) {
            if (pids.insert(key.first).second) {
                meta_event("process_name", key.first, 0, {{"name", info_.process_name}});
                meta_event("process_sort_index", key.first, 0, {{"sort_index", -1}});
            }
            const auto named = meta.thread_names.find(key.second);
            if (named != meta.thread_names.end())
                meta_event("thread_name", key.first, key.second, {{"name", named->second}});
            else if (!info_.exact)
                meta_event("thread_name", key.first, key.second, {{"name", "thread " + std::to_string(key.second)}});
            meta_event("thread_sort_index", key.first, key.second, {{"sort_index", order++}});
        }
        std::set<int> named_devices;
        for (const auto& [device, stream] : streams_) {
            if (named_devices.insert(device).second)
                meta_event("process_name", device, 0, {{"name", "GPU " + std::to_string(device)}});
            const auto named = meta.stream_names.find(stream);
            if (named != meta.stream_names.end())
                meta_event("thread_name", device, stream, {{"name", named->second}});
            else if (!info_.exact)
                meta_event("thread_name", device, stream, {{"name", "stream " + std::to_string(stream)}});
        }
    }

    const Trace& trace_;
    const ChromeTraceInfo& info_;
    const int64_t origin_;
    int64_t cpu_pid_ = 0;
    std::set<int> devices_;
    std::unordered_map<int64_t, size_t> cpu_op_by_correlation_;
    std::set<std::pair<int, uint64_t>> streams_;  // (device index, stream)
    int64_t flow_id_ = 0;
    std::string text_;
};

}  // namespace

std::string chrome_trace_text(const Trace& trace, const ChromeTraceInfo& info) {
    json out{{"schemaVersion", 1},
             {"deviceProperties", device_properties_json(info.devices)},
             {"displayTimeUnit", "ms"},
             {"baseTimeNanoseconds", base_of(trace)},
             {"traceName", info.trace_name}};
    if (info.rank != kAllRanks && info.rank >= 0)
        out["distributedInfo"] = distributed_info_json(info.rank, trace.meta().world_size, trace.meta().backend,
                                                       trace.meta().process_groups);
    if (info.metadata.is_object())
        for (const auto& [key, value] : info.metadata.items()) out[key] = value;
    std::string text = out.dump();
    text.pop_back();  // the object's '}': the events follow as its last key
    return text + ",\"traceEvents\":[" + Writer(trace, info).run() + "]}";
}

json distributed_info_json(int32_t rank, int world_size, const std::string& backend,
                           const std::vector<ProcessGroup>& groups) {
    json out{{"rank", rank}, {"world_size", world_size}};
    if (!backend.empty()) out["backend"] = backend;
    json pg = json::array();
    for (const ProcessGroup& g : groups)
        pg.push_back({{"pg_name", g.name},
                      {"pg_desc", g.desc},
                      {"backend_config", g.backend},
                      {"pg_size", g.size},
                      {"ranks", g.ranks}});
    if (!pg.empty()) out["pg_config"] = std::move(pg);
    return out;
}

json trace_meta_json(const TraceMeta& meta) {
    return {{"origin_ns", meta.origin_ns},
            {"source", meta.source},
            {"clock_resolution_ns", meta.clock_resolution_ns},
            {"thread_names", meta.thread_names},
            {"stream_names", meta.stream_names},
            {"process_names", meta.process_names},
            {"thread_process", meta.thread_process},
            {"world_size", meta.world_size},
            {"backend", meta.backend},
            {"legacy_device_spans", meta.legacy_device_spans}};
}

Trace restore_trace_meta(const Trace& trace, const json& j) {
    if (!j.is_object()) return trace;
    TraceMeta meta = trace.meta();
    try {  // another version's fields: the names the file's own metadata events gave stay
        TraceMeta saved = meta;
        saved.origin_ns = j.value("origin_ns", meta.origin_ns);
        saved.source = j.value("source", meta.source);
        saved.clock_resolution_ns = j.value("clock_resolution_ns", meta.clock_resolution_ns);
        if (j.contains("thread_names"))
            saved.thread_names = j.at("thread_names").get<std::map<uint64_t, std::string>>();
        if (j.contains("stream_names"))
            saved.stream_names = j.at("stream_names").get<std::map<uint64_t, std::string>>();
        if (j.contains("process_names"))
            saved.process_names = j.at("process_names").get<std::map<uint64_t, std::string>>();
        if (j.contains("thread_process"))
            saved.thread_process = j.at("thread_process").get<std::map<uint64_t, uint64_t>>();
        saved.world_size = j.value("world_size", meta.world_size);
        saved.backend = j.value("backend", meta.backend);
        saved.legacy_device_spans = j.value("legacy_device_spans", meta.legacy_device_spans);
        meta = std::move(saved);
    } catch (const json::exception&) {}
    return Trace::build(trace.events(), trace.memory(), std::move(meta));
}

ChromeTraceInfo run_trace_info(const ProfileResult& result, std::string process_name) {
    ChromeTraceInfo info;
    info.trace_name = result.spec_known ? describe_spec(result.spec) : result.trace.meta().source;
    info.process_name = std::move(process_name);
    info.metadata = json{{"attention_workbench",
                          {{"options", result.options},
                           {"environment", result.environment},
                           {"steps", result.steps},
                           {"device_peak_bytes", result.device_peak_bytes},
                           {"roof", result.roof},
                           {"interrupted", result.interrupted},
                           {"trace_meta", trace_meta_json(result.trace.meta())}}}};
    if (result.spec_known) info.metadata["attention_workbench"]["spec"] = result.spec;  // an imported trace has none
    return info;
}

void write_chrome_trace(const Trace& trace, const ChromeTraceInfo& info, const std::string& path) {
    write_text_file(path, chrome_trace_text(trace, info));
}

void write_rank_file(const Trace& trace, const ImportedTrace& source, int32_t rank, nlohmann::json summary,
                     const std::string& path) {
    ChromeTraceInfo info;
    info.trace_name = source.trace_name;
    info.process_name = rank >= 0 ? "rank " + std::to_string(rank) : "attnwb";
    info.exact = true;
    info.devices = source.devices;
    info.metadata = source.header.is_object() ? source.header : json::object();  // Kineto's versions and options
    if (rank >= 0) {
        json distributed = distributed_info_json(rank, source.world_size, source.backend, source.process_groups);
        if (info.metadata.contains("nccl_version"))
            distributed["nccl_version"] = info.metadata["nccl_version"];  // read from there
        info.metadata["distributedInfo"] = std::move(distributed);
    }
    info.metadata.erase("nccl_version");
    info.metadata["attention_workbench"] = {{"summary", std::move(summary)}};
    write_chrome_trace(trace, info, path);
}

}  // namespace awb
