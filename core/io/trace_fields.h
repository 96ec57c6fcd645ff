// Stage 3 of the trace importer, field reading: one event object (parsed by simdjson) into a RawEvent,
// through a table from each key Kineto, the legacy profiler and ROCm write to the code that reads it.
// Fields of the wrong type mark the event bad (it is skipped with a warning naming the field); unknown
// keys are ignored.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace.h"

namespace awb::trace_io {

// The fields of one event object as read, before it becomes a TraceEvent / MemoryEvent.
struct RawEvent {
    std::string_view ph, cat, name, pid_text, tid_text;
    int64_t flow_id = -1;  // "id" of s/f flow events
    bool has_ts = false, has_dur = false, bad = false;
    int64_t ts = 0, dur = 0;
    uint64_t pid = 0, tid = 0;
    std::string bad_field;
    // args
    int64_t external_id = 0, correlation = 0, sequence_nr = -1, fwd_thread = 0;
    int64_t device = -1, stream = -1;
    int64_t device_type = 0, device_id = -1, bytes = 0, total_allocated = -1, total_reserved = -1;
    int64_t sort_index = -1;
    std::string_view arg_name;  // "M" events: the process or thread name
    std::string_view kernel;    // runtime launch calls (ROCm): the kernel they launch
    DeviceLaunch launch;
    bool has_launch = false;
    bool bad_bytes = false;
    bool replayed = false;  // "Replayed from capture": an op placed at a CUDA graph's replayed kernels (ours)
    std::vector<std::vector<int64_t>> shapes;
    std::vector<std::string> dtypes;
    std::vector<std::string> concrete;  // "Concrete Inputs"
    std::vector<std::string> stack;     // "Call stack" (ours, and the legacy profiler's): frames split at ';'
    int64_t scope = -1;                 // "Record scope" (ours): at::RecordScope
    CommArgs comm;                      // a collective's record ("Collective name", "In msg nelems", ...)
    int64_t global_rank_start = -1, global_rank_stride = -1;  // older traces' group, without "Process Group Ranks"
    bool is_async = false;                                    // "Async" (ours)
};

// pid/tid are numbers or strings ("stream 7", "12345"): the digits, or a stable hash with kTextIdBit set.
uint64_t id_of_string(std::string_view s);

void read_event(const simdjson::dom::object& event, RawEvent& r);

}  // namespace awb::trace_io
