// The in-memory trace of a run or an imported file: events with start/end in ns, thread, nesting
// (parent and depth), shapes and dtypes, memory events, and correlation ids that link CPU launches
// to device work. Built once, then read-only. Pure C++: no torch, no Qt.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/comm_args.h"
#include "model/event_name.h"
#include "model/run_spec.h"

namespace awb {

enum class EventKind : uint8_t { CpuOp, UserAnnotation, Kernel, Memcpy, Memset, Runtime, Other };

// What Kineto records about a kernel launch or a copy (CUPTI's activity record); -1 / 0 when absent
// (ROCm traces carry fewer of these). Kernels, copies and sets carry one; so does a runtime launch call
// that names its kernel (ROCm's hipLaunchKernel & co. write "kernel" in their args; CUDA's do not).
struct DeviceLaunch {
    EventName kernel;  // runtime launch calls: the kernel launched (interned), "" otherwise
    std::array<int32_t, 3> grid{0, 0, 0};
    std::array<int32_t, 3> block{0, 0, 0};
    int32_t registers_per_thread = -1;
    int64_t shared_memory_bytes = -1;
    double blocks_per_sm = -1;
    double warps_per_sm = -1;
    double occupancy_pct = -1;   // "est. achieved occupancy %"
    int64_t bytes = -1;          // memcpy / memset
    double bandwidth_gb_s = -1;  // "memory bandwidth (GB/s)"
    bool operator==(const DeviceLaunch&) const = default;
};

// What an op was called with: the same few combinations repeat every step, so events share them.
struct EventInputs {
    std::vector<std::vector<int64_t>> shapes;
    std::vector<std::string> dtypes;
    std::vector<std::string> stack;
    // torch 2.x's "Concrete Inputs": each scalar argument as text ("True", "0.", "-1"), "" for tensors.
    std::vector<std::string> concrete;
    // A collective call's record (record_param_comms, or the NCCL kernel Kineto copies it onto).
    CommArgs comm;
    bool empty() const { return shapes.empty() && dtypes.empty() && stack.empty() && concrete.empty() && comm.empty(); }
    bool operator==(const EventInputs&) const = default;
};
const EventInputs& no_inputs();

// Hands out one shared EventInputs per distinct value (null for empty ones).
class InputsInterner {
public:
    std::shared_ptr<const EventInputs> intern(EventInputs inputs);

private:
    std::unordered_map<size_t, std::vector<std::shared_ptr<const EventInputs>>> by_hash_;
};

struct TraceEvent {
    EventName name;  // interned
    EventKind kind = EventKind::CpuOp;
    DeviceKind device = DeviceKind::CPU;
    int device_index = -1;
    int64_t start_ns = 0;
    int64_t end_ns = 0;
    uint64_t thread = 0;         // thread the event started on (for device events: the stream)
    bool is_async = false;       // started and ended on different threads, or flagged async
    bool replayed = false;       // a CPU op recorded while a CUDA graph was captured, placed where its kernels were
                                 // replayed (results/graph_replay.h): it did not run on the CPU here
    int scope = 0;               // at::RecordScope: 0 function, 1 backward function, 5 user scope...
    int64_t correlation_id = 0;  // CPU op: its id; kernels: the launch they belong to
    int64_t linked_correlation_id = 0;  // device events / runtime calls: the CPU op they link to
    int64_t sequence_nr = -1;           // autograd sequence number, links forward and backward ops
    uint64_t fwd_thread = 0;
    std::shared_ptr<const EventInputs> inputs;   // shapes, dtypes, stack; shared between equal ones, null when none
    std::shared_ptr<const DeviceLaunch> launch;  // kernels, memcpy, memset of imported traces; shared when equal
    int32_t rank = -1;                           // distributed rank of the file it came from, -1 for one process
    // Filled in by Trace::build: the enclosing event on the same thread (-1 at top level) and depth.
    int32_t parent = -1;
    int32_t depth = 0;

    int64_t duration_ns() const { return end_ns - start_ns; }
    const std::vector<std::vector<int64_t>>& shapes() const { return (inputs ? *inputs : no_inputs()).shapes; }
    const std::vector<std::string>& dtypes() const { return (inputs ? *inputs : no_inputs()).dtypes; }
    const std::vector<std::string>& stack() const { return (inputs ? *inputs : no_inputs()).stack; }
    const std::vector<std::string>& concrete() const { return (inputs ? *inputs : no_inputs()).concrete; }
    const CommArgs* comm() const { return inputs && !inputs->comm.empty() ? &inputs->comm : nullptr; }
};

struct MemoryEvent {
    int64_t ts_ns = 0;
    int64_t bytes = 0;  // negative on free
    DeviceKind device = DeviceKind::CPU;
    int device_index = -1;
    uint64_t thread = 0;
    int32_t rank = -1;
    int64_t total_allocated = -1;  // as reported by the allocator, -1 when unknown
    int64_t total_reserved = -1;
};

struct TraceMeta {
    int64_t origin_ns = 0;            // time zero of the trace (profiler start)
    int64_t clock_resolution_ns = 1;  // 1000 where the profiler reports whole microseconds
    std::string source;               // "profiler" or the file it came from
    // Names from the trace's "M" metadata events (imported traces): CPU threads by tid, device streams
    // by stream id, processes by pid.
    std::map<uint64_t, std::string> thread_names;
    std::map<uint64_t, std::string> stream_names;
    std::map<uint64_t, std::string> process_names;  // a pid that is a string ("Spans") names itself
    std::map<uint64_t, uint64_t> thread_process;    // CPU thread -> the pid its events came under
    std::vector<int32_t> ranks;                     // distributed ranks present, ascending; empty for one process
    int world_size = -1;                            // what the trace's distributedInfo says: ranks in the run, backend,
    std::string backend;                            // process groups (pg_config, where it lists them)
    std::vector<ProcessGroup> process_groups;
    // Per rank, what was added to its times to align its clock on the others' (analysis/clock_alignment.h).
    std::map<int32_t, int64_t> clock_offsets_ns;
    // torch 1.x legacy traces: each op's device time is one CUDA span holding its children's (see
    // trace_import.cpp); the operator table counts it as torch 1.x did and shows no device rows.
    bool legacy_device_spans = false;
};

class Trace {
public:
    Trace() = default;
    // Sorts events stably by (start ascending, end descending), so equal intervals keep the order
    // the profiler reported them in, sorts memory events stably by time, and computes nesting.
    static Trace build(std::vector<TraceEvent> events, std::vector<MemoryEvent> memory, TraceMeta meta);
    // The same trace as build() of the parts' events concatenated, where each part is already a trace's
    // events (ordered and nested) and no event nests under another part's (the ranks of a run): merged,
    // not sorted and nested again.
    static Trace merge(std::vector<std::vector<TraceEvent>> parts, std::vector<MemoryEvent> memory, TraceMeta meta);

    const std::vector<TraceEvent>& events() const { return events_; }
    const std::vector<MemoryEvent>& memory() const { return memory_; }
    const TraceMeta& meta() const { return meta_; }
    int64_t begin_ns() const { return begin_ns_; }
    int64_t end_ns() const { return end_ns_; }
    std::vector<uint64_t> threads() const;  // CPU threads with events, ascending
    // The events and memory moved out, the trace left empty: to merge traces without holding two copies.
    std::pair<std::vector<TraceEvent>, std::vector<MemoryEvent>> take() &&;
    // One rank's events and memory (of a run of several ranks) as a trace of its own, its meta's ranks
    // {rank}; with lo < hi only the events starting in [lo, hi) and the memory events in it.
    Trace of_rank(int32_t rank, int64_t lo = 0, int64_t hi = 0) const;

private:
    // events ordered and nested, from begin_ns to end_ns; the memory events sorted here.
    static Trace finish(std::vector<TraceEvent> events, int64_t begin_ns, int64_t end_ns,
                        std::vector<MemoryEvent> memory, TraceMeta meta);

    std::vector<TraceEvent> events_;
    std::vector<MemoryEvent> memory_;
    TraceMeta meta_;
    int64_t begin_ns_ = 0;
    int64_t end_ns_ = 0;
};

// Ids (pid, tid) of imported traces that were strings without digits ("Spans", "PyTorch Profiler"):
// a hash with the top bit set, to be shown by name, never as a number.
constexpr uint64_t kTextIdBit = uint64_t(1) << 63;
inline bool is_text_id(uint64_t id) { return (id & kTextIdBit) != 0 && id != ~uint64_t(0); }

// True for synchronous CPU events: the ones that nest into a per-thread tree (PyTorch's rule).
inline bool nests_on_cpu(const TraceEvent& e) { return e.device == DeviceKind::CPU && !e.is_async; }

// True for the work a device does: kernels, copies and sets (not device-side annotations, which are spans).
inline bool is_device_work(const TraceEvent& e) {
    return e.kind == EventKind::Kernel || e.kind == EventKind::Memcpy || e.kind == EventKind::Memset;
}

// A correlation or External id as a key across ranks: each process numbers its ids from 1, so in a
// distributed trace an id means something within its rank (the rank goes in the high bits).
inline int64_t link_key(int32_t rank, int64_t id) {
    return int64_t(uint64_t(id) ^ (uint64_t(uint32_t(rank + 1)) << 48));
}

// "[[2, 8, 512, 64], []]": Python's str() of the shapes list, the key PyTorch groups by.
std::string format_shapes(const std::vector<std::vector<int64_t>>& shapes);

std::string to_string(EventKind k);

// k of a "ProfilerStep#k" event name (torch.profiler's step regions), -1 for any other name.
int profiler_step_number(std::string_view name);

}  // namespace awb
