#include "io/memory_snapshot_read.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <iterator>
#include <map>
#include <string_view>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <unordered_map>

#include "io/pickle_machine.h"
#include "io/snapshot_events.h"

namespace awb {

namespace {

using pickle::Container;
using pickle::Kind;
using pickle::Ref;
using pickle::ValueStore;

// The path of the field being read, for the messages ("device_traces[0][17].frames[2]"): a chain of
// names and indices on the stack, made into text only when a message needs it.
struct Where {
    const Where* parent = nullptr;
    const char* name = "";  // ".blocks", "segments", ...
    int64_t index = -1;     // [index] after the name; -1: none
    std::string str() const {
        std::string s = parent ? parent->str() : std::string();
        s += name;
        if (index >= 0) s += "[" + std::to_string(index) + "]";
        return s;
    }
    Where at(const char* child, int64_t i = -1) const { return {this, child, i}; }
};

// A trace event's fields, found in one pass over its dict (the last of a repeated key, as Python keeps).
enum EventField : int8_t { kAction, kAddr, kSize, kStream, kTimeUs, kDeviceFree, kFrames, kCategory, kEventFields };
constexpr std::string_view kEventFieldNames[kEventFields] = {"action",  "addr",        "size",   "stream",
                                                             "time_us", "device_free", "frames", "category"};

// What was made of a container, by its index: a vector, not a hash map (a trace looks a frames list up
// for every event); the generation tells a reused slot.
class ByObject {
public:
    const int32_t* find(Ref r) const {
        return r.index < slots_.size() && slots_[r.index].first == r.num + 1 ? &slots_[r.index].second : nullptr;
    }
    void emplace(Ref r, int32_t v) {
        if (r.index >= slots_.size()) slots_.resize(size_t(r.index) + 1 + slots_.size() / 2);
        slots_[r.index] = {r.num + 1, v};
    }

private:
    std::vector<std::pair<int64_t, int32_t>> slots_;  // generation + 1 (0: none), value
};

// A stack's frame indices hashed (allocations share a few hundred stacks; every allocation's is hashed):
// two indices a step, in two lanes that do not wait on each other, mixed at the end.
struct FramesHash {
    size_t operator()(const std::vector<int32_t>& ids) const {
        constexpr uint64_t k = 0x9e3779b97f4a7c15ull;
        uint64_t a = ids.size(), b = ~a;
        size_t i = 0;
        for (; i + 4 <= ids.size(); i += 4) {
            a = (a ^ (uint64_t(uint32_t(ids[i])) << 32 | uint32_t(ids[i + 1]))) * k;
            b = (b ^ (uint64_t(uint32_t(ids[i + 2])) << 32 | uint32_t(ids[i + 3]))) * k;
        }
        for (; i < ids.size(); ++i) a = (a ^ uint32_t(ids[i])) * k;
        const uint64_t h = (a ^ (b >> 29) ^ (b << 35)) * k;
        return size_t(h ^ (h >> 32));
    }
};

// Builds the MemorySnapshot from the machine's store: the trace events as they stream (trace_item), the
// rest from the values left when the pickle is read (read_root).
class SnapshotBuilder final : public pickle::EventSink {
public:
    SnapshotBuilder(bool streaming, SnapshotEventSink* sink) : streaming_(streaming), sink_(sink) {}
    MemorySnapshot snapshot;

    void trace_item(uint32_t device, int64_t index, Ref item, ValueStore& store) override {
        store_ = &store;
        columns(device + 1);
        if (stashed_) return;
        try {
            read_event(item, Where{nullptr, "device_traces", device}.at("", index), traces_[device]);
        } catch (const SnapshotFormatError&) {  // reported after the segments, as a full reading orders them
            stashed_ = std::current_exception();
        }
    }

    bool made_list(Ref list, const Ref* first, const Ref* last, ValueStore& store) override {
        store_ = &store;
        if (stashed_) return false;
        stack_ids_.clear();
        for (const Ref* p = first; p != last; ++p) stack_ids_.push_back(int32_t(p->num));
        store.made(list, stack_id());
        return true;
    }

    void read_root(ValueStore& store) {
        store_ = &store;
        const Ref root = store.root;
        const Where top{nullptr, "the snapshot"};
        if (root.kind != Kind::Dict) fail(top, "a dict (segments, device_traces), not " + pickle::a_kind(root.kind));
        if (const Ref* segments = find(root, "segments")) {
            expect(*segments, Kind::List, Where{nullptr, "segments"});
            const std::vector<Ref> list = items(*segments);  // a copy: reading may empty frames lists
            for (size_t i = 0; i < list.size(); ++i) read_segment(list[i], Where{nullptr, "segments", int64_t(i)});
        }
        if (const Ref* traces = find(root, "device_traces")) read_traces(*traces);
        if (!find(root, "segments") && !find(root, "device_traces"))
            fail(top, "a dict with neither segments nor device_traces");
        if (const Ref* settings = find(root, "allocator_settings"); settings && settings->kind == Kind::Dict) {
            const std::vector<Ref>& kv = items(*settings);
            for (size_t i = 0; i + 1 < kv.size(); i += 2)
                snapshot.allocator_settings.emplace_back(text_of(kv[i], 0), text_of(kv[i + 1], 0));
        }
        for (const auto& [name, count] : unknown_) snapshot.unknown_actions.emplace_back(name, count);
        // _profile_to_snapshot's signature: "category" on its allocs, one untyped segment per device.
        snapshot.from_profile = categorised_ && snapshot.segments.size() == snapshot.device_traces.size() &&
                                std::all_of(snapshot.segments.begin(), snapshot.segments.end(),
                                            [](const SnapshotSegment& s) { return s.segment_type.empty(); });
        snapshot.pickle_protocol = store.protocol;
        snapshot.events_scanned = store.events_scanned;
    }

private:
    [[noreturn]] static void fail(const Where& where, const std::string& what) {
        throw SnapshotFormatError(where.str() + ": " + what);
    }
    static void expect(Ref v, Kind kind, const Where& where) {
        if (v.kind != kind) fail(where, pickle::a_kind(v.kind) + ", not " + pickle::a_kind(kind));
    }
    // A container's values; a frames list emptied by streaming is read only as a stack.
    const std::vector<Ref>& items(Ref v) const {
        const Container& c = store_->container(v);
        if (c.role == pickle::Role::Made || c.role == pickle::Role::Trace)
            throw pickle::StreamFallback{};  // items not held
        return c.items;
    }
    const Ref* find(Ref dict, std::string_view key) const {
        items(dict);
        return store_->find(dict, key);
    }
    static int64_t integer(const Ref* v, const char* key, const Where& where, int64_t missing) {
        if (!v || v->kind == Kind::None) return missing;
        if (v->kind != Kind::Int)
            fail(where.at((std::string(".") + key).c_str()), pickle::a_kind(v->kind) + ", not an int");
        return v->num;
    }
    int64_t integer(Ref dict, const char* key, const Where& where, int64_t missing) const {
        return integer(find(dict, key), key, where, missing);
    }
    const std::string& string(const Ref* v, const char* key, const Where& where) const {
        static const std::string kEmpty;
        if (!v || v->kind == Kind::None) return kEmpty;
        if (v->kind != Kind::Str)
            fail(where.at((std::string(".") + key).c_str()), pickle::a_kind(v->kind) + ", not a str");
        return store_->text(*v);
    }
    const std::string& string(Ref dict, const char* key, const Where& where) const {
        return string(find(dict, key), key, where);
    }

    std::string text_of(Ref v, int depth) const;
    void append_text(Ref v, int depth, std::string& s) const;
    StackId stack(const Ref* frames, const Where& where);
    StackId stack_id();
    int32_t frame(Ref v, const Where& where);
    void read_segment(Ref v, const Where& where);
    void read_blocks(Ref blocks, const Where& where, SnapshotSegment& seg);
    void read_traces(Ref traces);
    void read_event(Ref v, const Where& where, EventColumn& events);
    void read_event(const Ref* kv, size_t n, const Where& where, EventColumn& events);
    void event_fields(const Ref* kv, size_t n, const Ref* (&fields)[kEventFields]);
    int8_t action_index(const Ref* v, const std::string& action);
    uint16_t stream_id(int64_t stream, const Where& where);
    void columns(size_t devices) {
        while (traces_.size() < devices) traces_.emplace_back(sink_, int(traces_.size()));
    }

    bool streaming_;
    SnapshotEventSink* sink_;  // handed the events as they are read (may be null)
    ValueStore* store_ = nullptr;
    std::vector<EventColumn> traces_;  // streamed, by device
    std::exception_ptr stashed_;       // the first streamed event that was wrong
    ByObject by_object_;               // the StackId of a frames list
    std::unordered_map<std::vector<int32_t>, StackId, FramesHash> by_frames_;
    std::vector<int32_t> stack_ids_;  // the stack being read
    ByObject frame_by_object_;        // the frame index of a frame dict
    std::unordered_map<std::string, int32_t> frame_by_text_;
    std::unordered_map<int64_t, uint16_t> stream_ids_;
    std::vector<int8_t> field_of_string_;   // by string index: its EventField, -1 none, -2 not looked at yet
    std::vector<int8_t> action_of_string_;  // by string index: its place in kActions, -1 none, -2 not looked at yet
    std::map<std::string, int64_t> unknown_;
    bool categorised_ = false;  // an event with a "category" (io: MemorySnapshot::from_profile)
};

// A setting's value as text (they are numbers, bools, strings, None or small dicts), at most about
// 200 characters.
std::string SnapshotBuilder::text_of(Ref v, int depth) const {
    std::string s;
    append_text(v, depth, s);
    return s;
}

void SnapshotBuilder::append_text(Ref v, int depth, std::string& s) const {
    if (s.size() > 200) return;
    switch (v.kind) {
        case Kind::None: s += "None"; return;
        case Kind::Bool: s += v.num ? "True" : "False"; return;
        case Kind::Int: s += std::to_string(v.num); return;
        case Kind::Float: {
            std::string f = std::to_string(v.real());
            if (f.find('.') != std::string::npos) {
                f.erase(f.find_last_not_of('0') + 1);
                if (f.back() == '.') f += '0';
            }
            s += f;
            return;
        }
        case Kind::Str:
        case Kind::Bytes: s += store_->text(v).substr(0, 200); return;
        case Kind::List:
        case Kind::Tuple:
        case Kind::Dict: {
            if (depth > 4) {
                s += "...";
                return;
            }
            const bool dict = v.kind == Kind::Dict;
            const std::vector<Ref> values = items(v);  // a copy: a cycle may grow nothing, but stay safe
            s += dict ? "{" : "[";
            for (size_t i = 0; i < values.size() && s.size() <= 200; i += dict ? 2 : 1) {
                if (i) s += ", ";
                append_text(values[i], depth + 1, s);
                if (dict && i + 1 < values.size()) {
                    s += ": ";
                    append_text(values[i + 1], depth + 1, s);
                }
            }
            s += s.size() > 200 ? "..." : dict ? "}" : "]";
            return;
        }
    }
}

// A frames list, kept once: the same list object (shared through the pickle's memo) or the same
// frames give the same StackId. Streaming empties the list once read (a trace's lists would otherwise
// stay, 16 bytes a frame); its StackId stays under the object.
StackId SnapshotBuilder::stack(const Ref* frames, const Where& where) {
    if (!frames || frames->kind == Kind::None) return kNoStack;
    if (frames->made && frames->kind == Kind::List) return StackId(frames->num);
    if (frames->is_container()) {
        store_->container(*frames);  // a freed one: StreamFallback
        if (const int32_t* id = by_object_.find(*frames)) return *id;
    }
    expect(*frames, Kind::List, where.at(".frames"));
    const std::vector<Ref>& list = items(*frames);
    stack_ids_.clear();
    for (size_t i = 0; i < list.size(); ++i) stack_ids_.push_back(frame(list[i], where.at(".frames", int64_t(i))));
    const StackId id = stack_id();
    if (frames->is_container()) by_object_.emplace(*frames, id);
    if (streaming_ && store_->container(*frames).role == pickle::Role::None) store_->made(*frames, id);
    return id;
}

// The StackId of the frames in stack_ids_ (reused: most stacks were seen before).
StackId SnapshotBuilder::stack_id() {
    auto it = by_frames_.find(stack_ids_);
    if (it == by_frames_.end()) {
        it = by_frames_.emplace(stack_ids_, StackId(snapshot.stacks.size())).first;
        snapshot.stacks.push_back(stack_ids_);
    }
    return it->second;
}

int32_t SnapshotBuilder::frame(Ref v, const Where& where) {
    if (v.made && v.kind == Kind::Dict) return int32_t(v.num);
    if (v.is_container()) {
        store_->container(v);
        if (const int32_t* id = frame_by_object_.find(v)) return *id;
    }
    expect(v, Kind::Dict, where);
    SnapshotFrame f{string(v, "filename", where), integer(v, "line", where, 0), string(v, "name", where)};
    const std::string key = f.filename + '\n' + std::to_string(f.line) + '\n' + f.name;
    auto [it, added] = frame_by_text_.try_emplace(key, int32_t(snapshot.frames.size()));
    if (added) snapshot.frames.push_back(std::move(f));
    if (v.is_container()) frame_by_object_.emplace(v, it->second);
    if (streaming_ && v.is_container() && store_->container(v).role == pickle::Role::None) store_->made(v, it->second);
    return it->second;
}

void SnapshotBuilder::read_segment(Ref v, const Where& where) {
    expect(v, Kind::Dict, where);
    SnapshotSegment& seg = snapshot.segments.emplace_back();
    const int64_t device = integer(v, "device", where, 0);
    if (device < 0 || device > 4096) fail(where.at(".device"), std::to_string(device) + " (not a device index)");
    seg.device = int(device);
    seg.address = integer(v, "address", where, 0);
    seg.total_size = integer(v, "total_size", where, 0);
    seg.stream = integer(v, "stream", where, 0);
    seg.segment_type = string(v, "segment_type", where);
    if (const Ref* blocks = find(v, "blocks")) read_blocks(*blocks, where, seg);
}

void SnapshotBuilder::read_blocks(Ref blocks, const Where& where, SnapshotSegment& seg) {
    expect(blocks, Kind::List, where.at(".blocks"));
    const std::vector<Ref> list = items(blocks);  // a copy: reading may empty frames lists
    int64_t next = seg.address;                   // blocks without an address follow each other from the segment's
    for (size_t i = 0; i < list.size(); ++i) {
        const Where at = where.at(".blocks", int64_t(i));
        const Ref b = list[i];
        expect(b, Kind::Dict, at);
        SnapshotBlock& block = seg.blocks.emplace_back();
        block.address = integer(b, "address", at, next);
        block.size = integer(b, "size", at, 0);
        block.requested_size = integer(b, "requested_size", at, block.size);
        const std::string& state = string(b, "state", at);
        if (state == "active_allocated")
            block.state = BlockState::ActiveAllocated;
        else if (state == "active_awaiting_free")
            block.state = BlockState::ActiveAwaitingFree;
        else if (state == "inactive" || state.empty())
            block.state = BlockState::Inactive;
        else
            fail(at.at(".state"), "'" + state + "' (known: active_allocated, active_awaiting_free, inactive)");
        block.stack = stack(find(b, "frames"), at);
        next = block.address + block.size;
    }
}

// device_traces: streamed (its lists hold nothing; the events are in traces_) or read here.
void SnapshotBuilder::read_traces(Ref traces) {
    const Where list{nullptr, "device_traces"};
    expect(traces, Kind::List, list);
    const std::vector<Ref> devices = items(traces);
    if (devices.size() > 4097) fail(list, std::to_string(devices.size()) + " devices");
    if (stashed_) std::rethrow_exception(stashed_);
    columns(devices.size());
    for (size_t d = 0; d < devices.size(); ++d) {
        const Where where{nullptr, "device_traces", int64_t(d)};
        expect(devices[d], Kind::List, where);
        const Container& trace = store_->container(devices[d]);
        if (trace.role != pickle::Role::Trace)
            for (size_t i = 0; i < trace.items.size(); ++i)
                read_event(store_->container(devices[d]).items[i], where.at("", int64_t(i)), traces_[d]);
        snapshot.device_traces.push_back(traces_[d].take());
    }
}

// Which EventField each key of the dict is, by the key's string (looked up once per string).
void SnapshotBuilder::event_fields(const Ref* kv, size_t n, const Ref* (&fields)[kEventFields]) {
    for (size_t i = 0; i + 1 < n; i += 2) {
        if (kv[i].kind != Kind::Str) continue;
        if (kv[i].index >= field_of_string_.size()) field_of_string_.resize(store_->strings.size(), -2);
        int8_t& field = field_of_string_[kv[i].index];
        if (field == -2) {
            const auto* it = std::find(std::begin(kEventFieldNames), std::end(kEventFieldNames), store_->text(kv[i]));
            field = it == std::end(kEventFieldNames) ? -1 : int8_t(it - std::begin(kEventFieldNames));
        }
        if (field >= 0) fields[field] = &kv[i + 1];
    }
}

constexpr std::pair<std::string_view, SnapshotAction> kActions[] = {{"alloc", SnapshotAction::Alloc},
                                                                    {"free_requested", SnapshotAction::FreeRequested},
                                                                    {"free_completed", SnapshotAction::FreeCompleted},
                                                                    {"segment_alloc", SnapshotAction::SegmentAlloc},
                                                                    {"segment_free", SnapshotAction::SegmentFree},
                                                                    {"segment_map", SnapshotAction::SegmentMap},
                                                                    {"segment_unmap", SnapshotAction::SegmentUnmap},
                                                                    {"oom", SnapshotAction::Oom},
                                                                    {"snapshot", SnapshotAction::Snapshot}};

// ACTION's place in kActions, -1 when unknown: looked up once per str (a few serve millions of events).
int8_t SnapshotBuilder::action_index(const Ref* v, const std::string& action) {
    const bool str = v && v->kind == Kind::Str;
    if (str && v->index < action_of_string_.size() && action_of_string_[v->index] != -2)
        return action_of_string_[v->index];
    const auto* it =
        std::find_if(std::begin(kActions), std::end(kActions), [&](const auto& a) { return a.first == action; });
    const int8_t known = it == std::end(kActions) ? -1 : int8_t(it - std::begin(kActions));
    if (str) {
        if (v->index >= action_of_string_.size()) action_of_string_.resize(store_->strings.size(), -2);
        action_of_string_[v->index] = known;
    }
    return known;
}

void SnapshotBuilder::read_event(Ref v, const Where& where, EventColumn& events) {
    expect(v, Kind::Dict, where);
    const std::vector<Ref>& kv = items(v);
    read_event(kv.data(), kv.size(), where, events);
}

// An event dict's pairs (key, value, ...).
void SnapshotBuilder::read_event(const Ref* kv, size_t n, const Where& where, EventColumn& events) {
    const Ref* f[kEventFields] = {};
    event_fields(kv, n, f);
    const std::string& action = string(f[kAction], "action", where);
    const int8_t known = action_index(f[kAction], action);
    if (known < 0) {
        ++unknown_[action.empty() ? "(none)" : action];
        return;
    }
    SnapshotEvent e;
    e.action = kActions[known].second;
    e.addr = integer(f[kAddr], "addr", where, 0);
    e.size = integer(f[kSize], "size", where, 0);
    e.stream_id = stream_id(integer(f[kStream], "stream", where, 0), where);
    e.time_us = integer(f[kTimeUs], "time_us", where, -1);
    const int64_t device_free = integer(f[kDeviceFree], "device_free", where, -1);
    if (e.action == SnapshotAction::Oom) e.addr = device_free;
    e.stack = stack(f[kFrames], where);
    categorised_ = categorised_ || f[kCategory];
    events.push(e);
}

uint16_t SnapshotBuilder::stream_id(int64_t stream, const Where& where) {
    if (stream == 0) return 0;
    auto [it, added] = stream_ids_.try_emplace(stream, uint16_t(snapshot.streams.size()));
    if (added) {
        if (snapshot.streams.size() > UINT16_MAX) fail(where.at(".stream"), "more than 65535 distinct streams");
        snapshot.streams.push_back(stream);
    }
    return it->second;
}

MemorySnapshot read_snapshot_once(const std::string& path, bool streaming, RunObserver* observer,
                                  SnapshotEventSink* sink) {
    MemorySnapshot snapshot;
    {
        ValueStore store;
        SnapshotBuilder builder(streaming, sink);
        pickle::read_pickle_store(path, store, pickle::PickleLimits{}, streaming ? &builder : nullptr, observer);
        builder.read_root(store);
        snapshot = std::move(builder.snapshot);
    }
#if defined(__GLIBC__)
    // The reading's own memory (the events' chunks, the machine's containers: some 180 MB for a 1 GB
    // file), freed now, given back to the system: glibc keeps freed heap memory below a block still in
    // use, and the replay would then add its curves on top of it.
    malloc_trim(0);
#endif
    return snapshot;
}

}  // namespace

MemorySnapshot read_memory_snapshot(const std::string& path, SnapshotReading how, RunObserver* observer,
                                    SnapshotEventSink* sink) {
    // Streamed when the file can be read again (a regular file): should the layout not be what the
    // streaming guesses (pickle_machine.h), the second reading holds every value.
    std::error_code ec;
    const bool streamed = how == SnapshotReading::Streamed && std::filesystem::is_regular_file(path, ec);
    for (bool streaming : {streamed, false}) {
        try {
            MemorySnapshot snapshot = read_snapshot_once(path, streaming, observer, sink);
            snapshot.streamed = streaming;
            return snapshot;
        } catch (const pickle::StreamFallback&) {
            if (!streaming) break;
            if (sink) sink->restart();
        } catch (const SnapshotFormatError& e) {
            throw SnapshotFormatError(path + ": " + e.what());
        }
    }
    throw SnapshotFormatError(path + ": the snapshot's values could not be read (a freed value referred to again)");
}

}  // namespace awb
