#include "io/trace_convert.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace awb::trace_io {

namespace {

constexpr size_t kMaxWarnings = 5;

LaunchKey key_of(const DeviceLaunch& l) {
    auto bits = [](double d) {
        int64_t b = 0;
        std::memcpy(&b, &d, sizeof b);
        return b;
    };
    return {{l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], l.registers_per_thread,
             l.shared_memory_bytes, bits(l.blocks_per_sm), bits(l.warps_per_sm), bits(l.occupancy_pct), l.bytes,
             bits(l.bandwidth_gb_s),
             int64_t(reinterpret_cast<intptr_t>(l.kernel.data()))}};  // interned: equal names, equal pointers
}

}  // namespace

size_t LaunchKeyHash::operator()(const LaunchKey& k) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t x : k.v) h = (h ^ uint64_t(x)) * 1099511628211ull;
    return size_t(h);
}

EventKind kind_of(std::string_view cat) {
    if (cat == "cpu_op" || cat == "Operator" || cat == "operator") return EventKind::CpuOp;
    if (cat == "user_annotation" || cat == "gpu_user_annotation") return EventKind::UserAnnotation;
    if (cat == "kernel" || cat == "Kernel") return EventKind::Kernel;
    if (cat == "gpu_memcpy" || cat == "Memcpy") return EventKind::Memcpy;
    if (cat == "gpu_memset" || cat == "Memset") return EventKind::Memset;
    if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime") return EventKind::Runtime;
    return EventKind::Other;
}

bool on_device(std::string_view cat) {
    return cat == "kernel" || cat == "Kernel" || cat == "gpu_memcpy" || cat == "Memcpy" || cat == "gpu_memset" ||
           cat == "Memset" || cat == "gpu_user_annotation" || cat == "cuda_sync";
}

void EventConverter::finish(int64_t base_ns) {
    if (events_.empty() && memory_.empty())
        throw ReadError{"holds no trace events (no complete \"X\" events or [memory] instants" +
                        (out_.notes.skipped_events ? ": " + out_.notes.warnings.front() + ")" : std::string(")"))};
    // One pass over the events (a big trace's are hundreds of MB): Kineto writes baseTimeNanoseconds
    // after the events, and timestamps relative to it; a rank from distributedInfo; the device streams.
    // A thread name under a device's pid and a stream id its events use names a stream (Kineto puts
    // GPU streams under pid = device index, tid = stream), any other a CPU thread.
    std::set<std::pair<uint64_t, uint64_t>> streams;
    std::pair<uint64_t, uint64_t> last_stream{0, 0};
    for (auto& e : events_) {
        e.start_ns += base_ns;
        e.end_ns += base_ns;
        if (out_.rank >= 0) e.rank = out_.rank;
        if (e.device == DeviceKind::CPU) continue;
        const std::pair<uint64_t, uint64_t> stream{uint64_t(int64_t(e.device_index)), e.thread};
        if (streams.empty() || stream != last_stream) streams.insert(stream);
        last_stream = stream;
    }
    for (auto& m : memory_) {
        m.ts_ns += base_ns;
        if (out_.rank >= 0) m.rank = out_.rank;
    }
    link_legacy_device_spans();
    meta_.origin_ns = base_ns;
    for (auto& n : thread_names_) {
        auto& names = streams.count({n.pid, n.tid}) ? meta_.stream_names : meta_.thread_names;
        if (n.from_metadata)
            names[n.tid] = std::move(n.name);  // "M" thread_name wins over a textual tid
        else
            names.emplace(n.tid, std::move(n.name));
    }
    meta_.world_size = out_.world_size;
    meta_.backend = out_.backend;
    meta_.process_groups = out_.process_groups;
    if (out_.rank >= 0) meta_.ranks = {out_.rank};
    for (const Category& c : category_counts_) out_.categories[c.name] += c.count;
    out_.trace = Trace::build(std::move(events_), std::move(memory_), std::move(meta_));
}

std::shared_ptr<const DeviceLaunch> EventConverter::shared_launch(const DeviceLaunch& launch) {
    auto& shared = launches_[key_of(launch)];
    if (!shared) shared = std::make_shared<const DeviceLaunch>(launch);
    return shared;
}

void EventConverter::skip(const std::string& why, int64_t offset) {
    ++out_.notes.skipped_events;
    if (out_.notes.warnings.size() < kMaxWarnings)
        out_.notes.warnings.push_back("event at byte offset " + std::to_string(offset) + " skipped: " + why);
}

const EventConverter::Category& EventConverter::count_category(std::string_view cat) {
    // Events of one category come in runs: the last one matched is tried first.
    if (last_category_ < category_counts_.size() && category_counts_[last_category_].name == cat) {
        ++category_counts_[last_category_].count;
        return category_counts_[last_category_];
    }
    for (size_t i = 0; i < category_counts_.size(); ++i)
        if (category_counts_[i].name == cat) {
            last_category_ = i;
            ++category_counts_[i].count;
            return category_counts_[i];
        }
    last_category_ = category_counts_.size();
    category_counts_.push_back({std::string(cat), 1, kind_of(cat), on_device(cat)});
    return category_counts_.back();
}

// The legacy profiler (torch 1.x, use_cuda=True) timed each op on the device with CUDA events: one
// span per op on pid "CUDA functions", named like the op and joined to it by a cpu_to_cuda flow. The op
// gets the span as its device time the way torch 1.x counts it (total = its span, which already holds
// its children's; self = span minus the children's), marked by TraceMeta::legacy_device_spans.
void EventConverter::link_legacy_device_spans() {
    if (legacy_flows_.empty()) return;
    std::map<std::pair<uint64_t, int64_t>, size_t> cpu_at, device_at;  // (tid, start) -> event
    for (size_t i = 0; i < events_.size(); ++i)
        (events_[i].device == DeviceKind::CPU ? cpu_at : device_at)
            .emplace(std::pair{events_[i].thread, events_[i].start_ns}, i);
    std::map<int64_t, std::pair<int64_t, int64_t>> ends;  // id -> (op, span) event indices
    for (const LegacyFlow& f : legacy_flows_) {
        const auto& at = f.start ? cpu_at : device_at;
        const auto it = at.find({f.tid, f.ts});
        if (it == at.end()) continue;
        auto& e = ends.try_emplace(f.id, -1, -1).first->second;
        (f.start ? e.first : e.second) = int64_t(it->second);
    }
    constexpr int64_t kLegacyIdBase = int64_t(1) << 40;  // apart from any External id in the file
    for (const auto& [id, e] : ends) {
        if (e.first < 0 || e.second < 0) continue;
        events_[size_t(e.first)].correlation_id = kLegacyIdBase + id;
        events_[size_t(e.second)].linked_correlation_id = kLegacyIdBase + id;
        meta_.legacy_device_spans = true;
    }
}

MemoryEvent EventConverter::memory_event(const RawEvent& r) {
    MemoryEvent m;
    m.ts_ns = r.ts;
    m.bytes = r.bytes;
    // c10::DeviceType: 0 CPU, 1 CUDA, 6 HIP (ROCm's allocator reports its GPUs as HIP).
    m.device = r.device_type == 0                         ? DeviceKind::CPU
               : r.device_type == 1 || r.device_type == 6 ? DeviceKind::CUDA
                                                          : DeviceKind::Other;
    m.device_index = int(r.device_id);
    m.thread = r.tid;
    m.total_allocated = r.total_allocated;
    m.total_reserved = r.total_reserved;
    return m;
}

void EventConverter::note_process(const RawEvent& r) {
    // Called once per run of one thread's events: the thread's process, named by its string if it is one.
    last_tid_ = r.tid;
    meta_.thread_process.emplace(r.tid, r.pid);
    if (is_text_id(r.pid)) meta_.process_names.emplace(r.pid, std::string(r.pid_text));
}

void EventConverter::convert(RawEvent& r, int64_t offset) {
    const std::string_view ph = r.ph;
    if (!ph.empty() && ph != "X" && ph != "i" && ph != "I" && ph != "M" && ph != "C" && ph != "s" && ph != "f" &&
        ph != "t") {
        count_category(r.cat.empty() ? ph : r.cat);
        return;  // B/E and other phases: counted, not shown
    }
    if (r.bad) {
        skip(r.bad_field, offset);
        return;
    }
    const Category& category = count_category(!r.cat.empty() ? r.cat : ph.empty() ? std::string_view("(none)") : ph);
    if (ph.empty() || ph == "X")  // no phase: the legacy array's entries are complete events
        convert_complete(r, category, offset);
    else
        convert_marker(r, offset);
}

void EventConverter::convert_marker(const RawEvent& r, int64_t offset) {
    const std::string_view ph = r.ph;
    if (ph == "M") {
        ++out_.metadata_events;
        if (r.name == "thread_name") {
            thread_names_.push_back({r.pid, r.tid, std::string(r.arg_name), true});
        } else if (r.name == "process_name") {
            meta_.process_names[r.pid] = std::string(r.arg_name);
        }
    } else if (ph == "C") {
        ++out_.counter_events;
    } else if (ph == "s" || ph == "f" || ph == "t") {
        ++out_.flow_events;
        // The legacy profiler's flow from an op to its CUDA span (both at the flow's tid and ts).
        if (r.cat == "cpu_to_cuda" && r.flow_id >= 0 && r.has_ts)
            legacy_flows_.push_back({r.flow_id, ph == "s", r.tid, r.ts});
    } else if (r.name != "[memory]") {  // "i" / "I"
        ++out_.instant_events;
    } else if (!r.has_ts || r.bad_bytes) {
        skip(r.bad_bytes ? "[memory] \"Bytes\" is out of range" : "[memory] instant without \"ts\"", offset);
    } else {
        memory_.push_back(memory_event(r));
    }
}

void EventConverter::place_on_host(RawEvent& r, TraceEvent& t) {
    t.thread = r.tid;
    if (r.tid != last_tid_) note_process(r);
    // A tid that is a name ("PyTorch Profiler" of Kineto's span) names its lane.
    if (!r.tid_text.empty() && id_of_string(r.tid_text) != 0 &&
        r.tid_text.find_first_of("0123456789") == std::string_view::npos)
        thread_names_.push_back({r.pid, r.tid, std::string(r.tid_text), false});
    if (t.kind == EventKind::Runtime) {
        // As in Kineto's own records: a runtime call's id is CUPTI's correlation (its kernels carry
        // the same), and it links to the op whose External id it carries.
        t.correlation_id = r.correlation;
        t.linked_correlation_id = r.external_id;
        if (!r.kernel.empty()) {  // ROCm names the kernel a launch starts: kept with its configuration
            r.launch.kernel = r.kernel;
            t.launch = shared_launch(r.launch);
        }
    } else {
        t.correlation_id = r.external_id;
    }
}

void EventConverter::convert_complete(RawEvent& r, const Category& category, int64_t offset) {
    if (!r.has_ts) {
        skip("no \"ts\"", offset);
        return;
    }
    TraceEvent t;
    t.name = r.name;
    const bool legacy_device = r.cat.empty() && r.pid_text.find("CUDA") != std::string_view::npos;
    t.kind = r.cat.empty() ? (legacy_device ? EventKind::Kernel : EventKind::CpuOp) : category.kind;
    t.start_ns = r.ts;
    t.end_ns = r.ts + std::max<int64_t>(0, r.dur);
    if (r.dur < 0) ++out_.notes.negative_durations;
    if ((!r.cat.empty() && category.on_device) || legacy_device) {
        t.device = DeviceKind::CUDA;
        t.device_index = int(r.device >= 0 ? r.device : int64_t(r.pid));
        t.thread = r.stream >= 0 ? uint64_t(r.stream) : r.tid;
        t.correlation_id = r.correlation;
        t.linked_correlation_id = r.external_id;
        if (r.has_launch) t.launch = shared_launch(r.launch);
    } else {
        place_on_host(r, t);
    }
    if (t.kind == EventKind::UserAnnotation) t.scope = 5;  // at::RecordScope::USER_SCOPE
    if (r.scope >= 0) t.scope = int(r.scope);              // ours: "Record scope"
    t.is_async = r.is_async;
    t.sequence_nr = r.sequence_nr;
    t.replayed = r.replayed && t.device == DeviceKind::CPU;
    t.fwd_thread = uint64_t(r.fwd_thread);
    if (!r.comm.empty() && r.comm.group_ranks.empty() && r.global_rank_start >= 0 && r.global_rank_stride > 0 &&
        r.comm.group_size > 0)
        for (int32_t i = 0; i < r.comm.group_size; ++i)
            r.comm.group_ranks.push_back(int32_t(r.global_rank_start + i * r.global_rank_stride));
    if (!r.shapes.empty() || !r.dtypes.empty() || !r.concrete.empty() || !r.stack.empty() || !r.comm.empty())
        t.inputs = inputs_.intern(
            {std::move(r.shapes), std::move(r.dtypes), std::move(r.stack), std::move(r.concrete), std::move(r.comm)});
    events_.push_back(std::move(t));
}

}  // namespace awb::trace_io
