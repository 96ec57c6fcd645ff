// Stage 4 of the trace importer, conversion: RawEvents become the Trace's events ("X" spans on CPU
// threads and device streams, [memory] instants), metadata names lanes, flows link the legacy
// profiler's device spans, and the other phases are counted. finish() shifts timestamps by Kineto's
// baseTimeNanoseconds and builds the Trace into the ImportedTrace.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/trace_fields.h"
#include "io/trace_import.h"
#include "io/trace_input.h"

namespace awb::trace_io {

EventKind kind_of(std::string_view cat);  // Kineto's, the 2021 layout's and ROCm's categories
bool on_device(std::string_view cat);     // events that run on a device stream

// Equal launch configurations share one DeviceLaunch.
struct LaunchKey {
    std::array<int64_t, 14> v;
    bool operator==(const LaunchKey&) const = default;
};
struct LaunchKeyHash {
    size_t operator()(const LaunchKey& k) const;
};

class EventConverter {
public:
    EventConverter(ImportedTrace& out, TraceMeta& meta) : out_(out), meta_(meta) {}

    void convert(RawEvent& r, int64_t offset);          // offset: where the event starts, for warnings
    void skip(const std::string& why, int64_t offset);  // counted, and among the first warnings
    // The events, memory and names into out.trace (timestamps shifted by base_ns); fails (ReadError)
    // when nothing was converted.
    void finish(int64_t base_ns);

    std::vector<TraceEvent>& events() { return events_; }  // to reserve

private:
    void link_legacy_device_spans();
    static MemoryEvent memory_event(const RawEvent& r);  // a [memory] instant, its device from c10's DeviceType
    void note_process(const RawEvent& r);                // a CPU thread's pid, a string pid's name
    std::shared_ptr<const DeviceLaunch> shared_launch(const DeviceLaunch& launch);  // one per distinct value
    // A trace has a dozen categories: a short list searched linearly beats a map keyed by new strings.
    // Each remembers what its events are, so the category's name is compared once per event.
    struct Category {
        std::string name;
        int64_t count;
        EventKind kind;
        bool on_device;
    };
    const Category& count_category(std::string_view cat);
    void convert_marker(const RawEvent& r, int64_t offset);  // "M", "C", flows, instants ([memory] kept)
    void convert_complete(RawEvent& r, const Category& category, int64_t offset);  // "X": one TraceEvent
    void place_on_host(RawEvent& r, TraceEvent& t);  // a CPU event's thread, process, lane name and ids

    ImportedTrace& out_;
    TraceMeta& meta_;
    std::vector<TraceEvent> events_;
    std::vector<MemoryEvent> memory_;
    std::unordered_map<LaunchKey, std::shared_ptr<const DeviceLaunch>, LaunchKeyHash> launches_;
    std::vector<Category> category_counts_;
    size_t last_category_ = 0;
    InputsInterner inputs_;
    struct ThreadName {
        uint64_t pid, tid;
        std::string name;
        bool from_metadata;
    };
    std::vector<ThreadName> thread_names_;  // sorted into CPU threads and device streams at the end
    struct LegacyFlow {
        int64_t id;
        bool start;
        uint64_t tid;
        int64_t ts;
    };
    std::vector<LegacyFlow> legacy_flows_;
    uint64_t last_tid_ = ~uint64_t(0);  // the CPU thread whose process was noted last
};

}  // namespace awb::trace_io
