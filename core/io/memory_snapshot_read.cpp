#include "io/memory_snapshot_read.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <string_view>
#include <unordered_map>

namespace awb {

namespace {

using pickle::Kind;
using pickle::PickleValue;

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

// Builds the MemorySnapshot.
class SnapshotBuilder {
public:
    MemorySnapshot snapshot;

    void read_root(const PickleValue& root) {
        const Where top{nullptr, "the snapshot"};
        if (root.kind != Kind::Dict)
            fail(top, "a dict (segments, device_traces), not " + pickle::a_kind(root.kind));
        if (const PickleValue* segments = root.find("segments")) {
            const Where list{nullptr, "segments"};
            expect(*segments, Kind::List, list);
            for (size_t i = 0; i < segments->items.size(); ++i) read_segment(*segments->items[i], Where{nullptr, "segments", int64_t(i)});
        }
        if (const PickleValue* traces = root.find("device_traces")) {
            const Where list{nullptr, "device_traces"};
            expect(*traces, Kind::List, list);
            if (traces->items.size() > 4097) fail(list, std::to_string(traces->items.size()) + " devices");
            for (size_t d = 0; d < traces->items.size(); ++d) {
                const Where where{nullptr, "device_traces", int64_t(d)};
                const PickleValue& trace = *traces->items[d];
                expect(trace, Kind::List, where);
                auto& events = snapshot.device_traces.emplace_back();
                events.reserve(trace.items.size());
                for (size_t i = 0; i < trace.items.size(); ++i) read_event(*trace.items[i], where.at("", int64_t(i)), events);
            }
        }
        if (!root.find("segments") && !root.find("device_traces")) fail(top, "a dict with neither segments nor device_traces");
        if (const PickleValue* settings = root.find("allocator_settings"); settings && settings->kind == Kind::Dict)
            for (size_t i = 0; i + 1 < settings->items.size(); i += 2)
                snapshot.allocator_settings.emplace_back(text_of(*settings->items[i], 0), text_of(*settings->items[i + 1], 0));
        for (const auto& [name, count] : unknown_) snapshot.unknown_actions.emplace_back(name, count);
    }

private:
    [[noreturn]] static void fail(const Where& where, const std::string& what) { throw SnapshotFormatError(where.str() + ": " + what); }
    static void expect(const PickleValue& v, Kind kind, const Where& where) {
        if (v.kind != kind) fail(where, pickle::a_kind(v.kind) + ", not " + pickle::a_kind(kind));
    }
    static int64_t integer(const PickleValue& dict, const char* key, const Where& where, int64_t missing) {
        const PickleValue* v = dict.find(key);
        if (!v || v->kind == Kind::None) return missing;
        if (v->kind != Kind::Int) fail(where.at((std::string(".") + key).c_str()), pickle::a_kind(v->kind) + ", not an int");
        return v->integer;
    }
    static const std::string& string(const PickleValue& dict, const char* key, const Where& where) {
        static const std::string kEmpty;
        const PickleValue* v = dict.find(key);
        if (!v || v->kind == Kind::None) return kEmpty;
        if (v->kind != Kind::Str) fail(where.at((std::string(".") + key).c_str()), pickle::a_kind(v->kind) + ", not a str");
        return v->text;
    }
    // A setting's value as text (they are numbers, bools, strings, None or small dicts), at most about
    // 200 characters.
    static std::string text_of(const PickleValue& v, int depth) {
        std::string s;
        append_text(v, depth, s);
        return s;
    }
    static void append_text(const PickleValue& v, int depth, std::string& s) {
        if (s.size() > 200) return;
        switch (v.kind) {
            case Kind::None: s += "None"; return;
            case Kind::Bool: s += v.boolean ? "True" : "False"; return;
            case Kind::Int: s += std::to_string(v.integer); return;
            case Kind::Float: {
                std::string f = std::to_string(v.real);
                if (f.find('.') != std::string::npos) {
                    f.erase(f.find_last_not_of('0') + 1);
                    if (f.back() == '.') f += '0';
                }
                s += f;
                return;
            }
            case Kind::Str: case Kind::Bytes: s += v.text.substr(0, 200); return;
            case Kind::List: case Kind::Tuple: case Kind::Dict: {
                if (depth > 4) {
                    s += "...";
                    return;
                }
                const bool dict = v.kind == Kind::Dict;
                s += dict ? "{" : "[";
                for (size_t i = 0; i < v.items.size() && s.size() <= 200; i += dict ? 2 : 1) {
                    if (i) s += ", ";
                    append_text(*v.items[i], depth + 1, s);
                    if (dict && i + 1 < v.items.size()) {
                        s += ": ";
                        append_text(*v.items[i + 1], depth + 1, s);
                    }
                }
                s += s.size() > 200 ? "..." : dict ? "}" : "]";
                return;
            }
        }
    }

    // A frames list, kept once: the same list object (shared through the pickle's memo) or the same
    // frames give the same StackId.
    StackId stack(const PickleValue& dict, const Where& where) {
        const PickleValue* frames = dict.find("frames");
        if (!frames || frames->kind == Kind::None) return kNoStack;
        if (auto it = by_object_.find(frames); it != by_object_.end()) return it->second;
        expect(*frames, Kind::List, where.at(".frames"));
        std::vector<int32_t> ids;
        ids.reserve(frames->items.size());
        for (size_t i = 0; i < frames->items.size(); ++i) ids.push_back(frame(*frames->items[i], where.at(".frames", int64_t(i))));
        auto [it, added] = by_frames_.try_emplace(ids, StackId(snapshot.stacks.size()));
        if (added) snapshot.stacks.push_back(std::move(ids));
        by_object_.emplace(frames, it->second);
        return it->second;
    }
    int32_t frame(const PickleValue& v, const Where& where) {
        if (auto it = frame_by_object_.find(&v); it != frame_by_object_.end()) return it->second;
        expect(v, Kind::Dict, where);
        SnapshotFrame f{string(v, "filename", where), integer(v, "line", where, 0), string(v, "name", where)};
        const std::string key = f.filename + '\n' + std::to_string(f.line) + '\n' + f.name;
        auto [it, added] = frame_by_text_.try_emplace(key, int32_t(snapshot.frames.size()));
        if (added) snapshot.frames.push_back(std::move(f));
        frame_by_object_.emplace(&v, it->second);
        return it->second;
    }

    void read_segment(const PickleValue& v, const Where& where) {
        expect(v, Kind::Dict, where);
        SnapshotSegment& seg = snapshot.segments.emplace_back();
        const int64_t device = integer(v, "device", where, 0);
        if (device < 0 || device > 4096) fail(where.at(".device"), std::to_string(device) + " (not a device index)");
        seg.device = int(device);
        seg.address = integer(v, "address", where, 0);
        seg.total_size = integer(v, "total_size", where, 0);
        seg.stream = integer(v, "stream", where, 0);
        seg.segment_type = string(v, "segment_type", where);
        const PickleValue* blocks = v.find("blocks");
        if (!blocks) return;
        expect(*blocks, Kind::List, where.at(".blocks"));
        int64_t next = seg.address;  // blocks without an address follow each other from the segment's
        for (size_t i = 0; i < blocks->items.size(); ++i) {
            const Where at = where.at(".blocks", int64_t(i));
            const PickleValue& b = *blocks->items[i];
            expect(b, Kind::Dict, at);
            SnapshotBlock& block = seg.blocks.emplace_back();
            block.address = integer(b, "address", at, next);
            block.size = integer(b, "size", at, 0);
            block.requested_size = integer(b, "requested_size", at, block.size);
            const std::string& state = string(b, "state", at);
            if (state == "active_allocated") block.state = BlockState::ActiveAllocated;
            else if (state == "active_awaiting_free") block.state = BlockState::ActiveAwaitingFree;
            else if (state == "inactive" || state.empty()) block.state = BlockState::Inactive;
            else fail(at.at(".state"), "'" + state + "' (known: active_allocated, active_awaiting_free, inactive)");
            block.stack = stack(b, at);
            next = block.address + block.size;
        }
    }

    void read_event(const PickleValue& v, const Where& where, std::vector<SnapshotEvent>& events) {
        static constexpr std::pair<std::string_view, SnapshotAction> kActions[] = {
            {"alloc", SnapshotAction::Alloc}, {"free_requested", SnapshotAction::FreeRequested},
            {"free_completed", SnapshotAction::FreeCompleted}, {"segment_alloc", SnapshotAction::SegmentAlloc},
            {"segment_free", SnapshotAction::SegmentFree}, {"segment_map", SnapshotAction::SegmentMap},
            {"segment_unmap", SnapshotAction::SegmentUnmap}, {"oom", SnapshotAction::Oom}, {"snapshot", SnapshotAction::Snapshot}};
        expect(v, Kind::Dict, where);
        const std::string& action = string(v, "action", where);
        const auto* it = std::find_if(std::begin(kActions), std::end(kActions), [&](const auto& a) { return a.first == action; });
        if (it == std::end(kActions)) {
            ++unknown_[action.empty() ? "(none)" : action];
            return;
        }
        SnapshotEvent& e = events.emplace_back();
        e.action = it->second;
        e.addr = integer(v, "addr", where, 0);
        e.size = integer(v, "size", where, 0);
        e.stream = integer(v, "stream", where, 0);
        e.time_us = integer(v, "time_us", where, -1);
        e.device_free = integer(v, "device_free", where, -1);
        e.stack = stack(v, where);
    }

    std::unordered_map<const PickleValue*, StackId> by_object_;
    std::map<std::vector<int32_t>, StackId> by_frames_;
    std::unordered_map<const PickleValue*, int32_t> frame_by_object_;
    std::unordered_map<std::string, int32_t> frame_by_text_;
    std::map<std::string, int64_t> unknown_;
};

}  // namespace

MemorySnapshot memory_snapshot_from(const pickle::PickleDocument& doc) {
    SnapshotBuilder builder;
    builder.read_root(*doc.root);
    builder.snapshot.pickle_protocol = doc.protocol;
    return std::move(builder.snapshot);
}

MemorySnapshot read_memory_snapshot(const std::string& path) {
    const pickle::PickleDocument doc = pickle::read_pickle_file(path);
    try {
        return memory_snapshot_from(doc);
    } catch (const SnapshotFormatError& e) {
        throw SnapshotFormatError(path + ": " + e.what());
    }
}

}  // namespace awb
