#include "analysis/snapshot_timeline.h"

#include "analysis/snapshot_frames.h"
#include "model/huge_pages.h"

#include <cstdint>
#include <algorithm>
#include <map>
#include <exception>
#include <numeric>
#include <thread>

#include <tsl/robin_map.h>

namespace awb {

int64_t bytes_of(const std::vector<LiveBlock>& blocks) {
    int64_t sum = 0;
    for (const LiveBlock& b : blocks) sum += b.size;
    return sum;
}

int64_t BlockBand::bottom_at(int64_t x) const {
    const auto it = std::upper_bound(bottom.begin(), bottom.end(), x, [](int64_t v, const StepPoint& p) { return v < p.first; });
    return it == bottom.begin() ? bottom.front().second : std::prev(it)->second;
}

namespace {

bool grows_reserved(SnapshotAction a) { return a == SnapshotAction::SegmentAlloc || a == SnapshotAction::SegmentMap; }
bool shrinks_reserved(SnapshotAction a) { return a == SnapshotAction::SegmentFree || a == SnapshotAction::SegmentUnmap; }

bool larger(const LiveBlock& a, const LiveBlock& b) { return a.size != b.size ? a.size > b.size : a.addr < b.addr; }

// Addresses hashed with their bits mixed: a caching allocator's are multiples of 512, which the
// power-of-two table of an open-addressing map would crowd into a few buckets.
struct AddressHash {
    size_t operator()(int64_t a) const {
        uint64_t h = uint64_t(a);
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdull;
        return size_t(h ^ (h >> 33));
    }
};
// Blocks alive, by address: open addressing (a replay looks one up for every alloc and free).
template <class V>
using ByAddress = tsl::robin_map<int64_t, V, AddressHash>;

// The blocks alive when recording began: the final state walked back through the trace; largest first.
std::vector<LiveBlock> alive_at_start(const std::vector<SnapshotSegment>& segments, int device, const std::vector<SnapshotEvent>& events) {
    ByAddress<LiveBlock> live;
    for (const SnapshotSegment& seg : segments)
        if (seg.device == device)
            for (const SnapshotBlock& b : seg.blocks)
                if (b.active()) live[b.address] = {b.address, b.size, b.stack, -1};
    for (auto e = events.rbegin(); e != events.rend(); ++e) {
        if (e->action == SnapshotAction::Alloc) live.erase(e->addr);
        else if (e->action == SnapshotAction::FreeCompleted) live[e->addr] = {e->addr, e->size, e->stack, -1};
    }
    std::vector<LiveBlock> blocks;
    blocks.reserve(live.size());
    for (const auto& [addr, b] : live) blocks.push_back(b);
    std::sort(blocks.begin(), blocks.end(), larger);
    return blocks;
}

// One block's life on the event axis: an alloc of the trace, or a block alive before recording.
struct Element {
    LiveBlock block;
    int64_t begin = 0;
    int64_t end = 0;
};

// The device's trace replayed once: the curves, and every counted block's life (the peak's blocks and
// the bands are read off those, without replaying again).
//
// The blocks alive when recording began (alive_at_start, a walk back from the final state) are found
// on a second thread while this one replays forward without them: a free of an address not alive
// is kept aside, and once both are done, each block of the start ends at the first free kept for its
// address (the others are frees the trace cannot match), and its bytes are added to the curves over
// [0, that free). Its elements come after the trace's (stacking order: by begin, then index).
class Replay {
public:
    Replay(const SnapshotOptions& options, DeviceMemoryTimeline& t) : options_(options), t_(t), x_end_(t.events + 1) {}

    void run(const MemorySnapshot& snapshot, int device, const std::vector<SnapshotEvent>& events, int64_t reserved, size_t until = SIZE_MAX) {
        std::vector<LiveBlock> start;
        std::exception_ptr failed;
        {
            std::jthread walk_back([&] {
                try {
                    start = alive_at_start(snapshot.segments, device, events);
                } catch (...) {
                    failed = std::current_exception();
                }
            });
            forward(events, reserved, until);
        }
        if (failed) std::rethrow_exception(failed);
        add_start(start);
    }
    std::vector<Element> elements;  // the trace's allocs counted, then the blocks alive at the start (largest first)

private:
    struct Live {
        int64_t size;
        int64_t element;  // -1: a block the filter does not count
    };
    using LiveMap = ByAddress<Live>;

    bool counts(StackId stack) const {
        const auto& keep = options_.keep;
        return !keep || (stack != kNoStack && size_t(stack) < keep->size() && (*keep)[size_t(stack)]);
    }
    void forward(const std::vector<SnapshotEvent>& events, int64_t reserved, size_t until) {
        const bool filtered = options_.keep.has_value();
        t_.allocated.reserve(size_t(x_end_));
        t_.reserved.reserve(size_t(x_end_));
        if (filtered) t_.allocated_all.reserve(size_t(x_end_));
        elements.reserve(size_t(std::count_if(events.begin(), events.end(), [](const SnapshotEvent& e) { return e.action == SnapshotAction::Alloc; })));
        for (const auto* v : {&t_.allocated, &t_.reserved, &t_.allocated_all}) prefer_huge_pages(*v);
        prefer_huge_pages(elements);
        push(reserved, filtered);
        for (size_t i = 0; i < events.size() && i < until; ++i) {
            const SnapshotEvent& e = events[i];
            const int64_t x = int64_t(i) + 1;
            if (e.action == SnapshotAction::Alloc) {
                if (const auto it = live_.find(e.addr); it != live_.end()) end(it, x);  // the trace lost its free
                begin({e.addr, e.size, e.stack, int64_t(i)}, x);
            } else if (e.action == SnapshotAction::FreeCompleted) {
                if (const auto it = live_.find(e.addr); it != live_.end()) {
                    end(it, x);
                } else {  // a block of the start, or a free not matched
                    unknown_frees_.try_emplace(e.addr, x);
                    ++unmatched_;
                }
            }
            reserved += grows_reserved(e.action) ? e.size : shrinks_reserved(e.action) ? -e.size : 0;
            if (e.action == SnapshotAction::Oom) ++t_.ooms;
            push(reserved, filtered);
        }
    }
    void begin(const LiveBlock& b, int64_t x) {
        int64_t element = -1;
        if (counts(b.stack)) {
            element = int64_t(elements.size());
            elements.push_back({b, x, x_end_});
            allocated_ += b.size;
        }
        live_[b.addr] = {b.size, element};
        all_ += b.size;
    }
    void end(LiveMap::iterator it, int64_t x) {
        if (it->second.element >= 0) {
            elements[size_t(it->second.element)].end = x;
            allocated_ -= it->second.size;
        }
        all_ -= it->second.size;
        live_.erase(it);
    }
    void push(int64_t reserved, bool filtered) {
        t_.allocated.push_back(allocated_);
        t_.reserved.push_back(reserved);
        if (filtered) t_.allocated_all.push_back(all_);
    }
    // The blocks of the start (largest first), each to its first free kept aside or to the end: their
    // bytes added to the curves, the counted ones to the elements.
    void add_start(const std::vector<LiveBlock>& start) {
        const size_t curve = t_.allocated.size();  // x_end_, or fewer with `until`
        std::vector<Element> lives;
        lives.reserve(start.size());
        for (const LiveBlock& b : start) {
            const auto it = unknown_frees_.find(b.addr);
            lives.push_back({b, 0, it == unknown_frees_.end() ? x_end_ : it->second});
            unmatched_ -= it != unknown_frees_.end();
        }
        t_.unmatched_frees += unmatched_;
        for (const Element& e : lives)
            if (counts(e.block.stack)) elements.push_back(e);
        // Their bytes over [0, end): walked back from the last x, adding each block where its life ends.
        std::vector<const Element*> by_end;
        for (const Element& e : lives) by_end.push_back(&e);
        std::sort(by_end.begin(), by_end.end(), [](const Element* a, const Element* b) { return a->end > b->end; });
        const bool filtered = options_.keep.has_value();
        int64_t counted = 0, all = 0;
        size_t next = 0;
        for (size_t x = curve; x-- > 0;) {
            for (; next < by_end.size() && by_end[next]->end > int64_t(x); ++next) {
                all += by_end[next]->block.size;
                counted += counts(by_end[next]->block.stack) ? by_end[next]->block.size : 0;
            }
            t_.allocated[x] += counted;
            if (filtered) t_.allocated_all[x] += all;
        }
    }

    const SnapshotOptions& options_;
    DeviceMemoryTimeline& t_;
    const int64_t x_end_;
    LiveMap live_;
    ByAddress<int64_t> unknown_frees_;  // address: the first free of an address not alive
    int64_t unmatched_ = 0;             // frees of an address not alive (a block of the start's first, or not matched)
    int64_t allocated_ = 0;
    int64_t all_ = 0;
};

// Bytes under each frame: per distinct stack first (blocks share stacks), then its frames, each once;
// not the recording's machinery (is_machinery_frame), under which every block is.
std::vector<FrameBytes> frames_of(const MemorySnapshot& snapshot, const std::vector<LiveBlock>& blocks) {
    std::map<StackId, std::pair<int64_t, int64_t>> by_stack;  // bytes, blocks
    for (const LiveBlock& b : blocks)
        if (b.stack != kNoStack) {
            auto& [bytes, count] = by_stack[b.stack];
            bytes += b.size;
            ++count;
        }
    std::map<int32_t, FrameBytes> by_frame;
    std::vector<int32_t> seen;
    for (const auto& [stack, totals] : by_stack) {
        seen.assign(snapshot.stacks[size_t(stack)].begin(), snapshot.stacks[size_t(stack)].end());
        std::sort(seen.begin(), seen.end());
        seen.erase(std::unique(seen.begin(), seen.end()), seen.end());  // a recursive frame counts once
        for (int32_t f : seen) {
            if (is_machinery_frame(snapshot.frames[size_t(f)])) continue;
            FrameBytes& fb = by_frame[f];
            fb.frame = f;
            fb.bytes += totals.first;
            fb.blocks += totals.second;
        }
    }
    std::vector<FrameBytes> out;
    out.reserve(by_frame.size());
    for (const auto& [f, fb] : by_frame) out.push_back(fb);
    std::stable_sort(out.begin(), out.end(), [](const FrameBytes& a, const FrameBytes& b) { return a.bytes > b.bytes; });
    return out;
}

std::vector<LiveBlock> alive_at(const std::vector<Element>& elements, int64_t x) {
    std::vector<LiveBlock> out;
    for (const Element& e : elements)
        if (e.begin <= x && x < e.end) out.push_back(e.block);
    std::sort(out.begin(), out.end(), larger);
    return out;
}

// The largest blocks stacked in the order they were allocated; a free moves those above it down.
void stack_bands(const std::vector<Element>& elements, size_t max_bands, DeviceMemoryTimeline& t) {
    // Stacking order: the blocks of the start first (begin 0, largest first, as they follow the trace's
    // in elements), then the allocs of the trace as they came.
    const auto stacked_before = [&](size_t a, size_t b) { return elements[a].begin != elements[b].begin ? elements[a].begin < elements[b].begin : a < b; };
    std::vector<size_t> order(elements.size());
    std::iota(order.begin(), order.end(), size_t(0));
    const size_t n = std::min(max_bands, order.size());
    std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(n), order.end(), [&](size_t a, size_t b) {
        return elements[a].block.size != elements[b].block.size ? elements[a].block.size > elements[b].block.size : stacked_before(a, b);
    });
    order.resize(n);
    std::sort(order.begin(), order.end(), stacked_before);
    struct Change {
        int64_t x;
        bool alloc;
        size_t band;
    };
    std::vector<Change> changes;
    const int64_t x_end = int64_t(t.allocated.size());
    for (size_t b = 0; b < n; ++b) {
        const Element& e = elements[order[b]];
        t.bands.push_back({e.block, e.begin, e.end, {}});
        changes.push_back({e.begin, true, b});
        if (e.end < x_end) changes.push_back({e.end, false, b});
    }
    std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
        return a.x != b.x ? a.x < b.x : a.alloc != b.alloc ? !a.alloc : a.band < b.band;
    });
    std::vector<size_t> current;  // the bands alive, bottom first
    int64_t total = 0;
    t.banded.push_back({0, 0});
    for (const Change& c : changes) {
        BlockBand& band = t.bands[c.band];
        if (c.alloc) {
            band.bottom.push_back({c.x, total});
            current.push_back(c.band);
            total += band.block.size;
        } else {
            const auto at = std::find(current.rbegin(), current.rend(), c.band).base() - 1;
            for (auto above = at + 1; above != current.end(); ++above) {
                BlockBand& up = t.bands[*above];
                up.bottom.push_back({c.x, up.bottom.back().second - band.block.size});
            }
            current.erase(at);
            total -= band.block.size;
        }
        if (t.banded.back().first == c.x) t.banded.back().second = total;
        else t.banded.push_back({c.x, total});
    }
}

const std::vector<SnapshotEvent>& events_of(const MemorySnapshot& snapshot, int device) {
    static const std::vector<SnapshotEvent> kNone;
    return size_t(device) < snapshot.device_traces.size() ? snapshot.device_traces[size_t(device)] : kNone;
}

DeviceMemoryTimeline replay_device(const MemorySnapshot& snapshot, int device, const SnapshotOptions& options) {
    const auto& events = events_of(snapshot, device);
    DeviceMemoryTimeline t;
    t.device = device;
    t.events = int64_t(events.size());
    bool typed_segments = false, segment_events = false;
    for (const SnapshotSegment& seg : snapshot.segments)
        if (seg.device == device) {
            t.final_reserved += seg.total_size;
            typed_segments = typed_segments || !seg.segment_type.empty();
            for (const SnapshotBlock& b : seg.blocks)
                if (b.active()) t.final_allocated += b.size;
        }
    // Reserved at the start: the final segments' bytes walked back through the segment events.
    int64_t reserved = t.final_reserved;
    for (const SnapshotEvent& e : events) {
        const bool shrinks = shrinks_reserved(e.action), grows = grows_reserved(e.action);
        reserved += shrinks ? e.size : grows ? -e.size : 0;
        segment_events = segment_events || shrinks || grows;
    }
    t.reserved_recorded = typed_segments || segment_events;

    Replay replay(options, t);
    replay.run(snapshot, device, events, reserved);
    t.blocks = int64_t(replay.elements.size());
    const auto peak = std::max_element(t.allocated.begin(), t.allocated.end());
    t.peak_allocated = *peak;
    t.peak_index = peak - t.allocated.begin();
    t.peak_reserved = *std::max_element(t.reserved.begin(), t.reserved.end());
    t.allocated_max = RangeMax(t.allocated);
    t.reserved_max = RangeMax(t.reserved);
    t.allocated_all_max = RangeMax(t.allocated_all);
    t.at_peak = alive_at(replay.elements, t.peak_index);
    t.before_recording = alive_at(replay.elements, 0);  // allocs of the trace begin at 1
    t.frames_at_peak = frames_of(snapshot, t.at_peak);
    if (options.max_bands > 0) stack_bands(replay.elements, options.max_bands, t);
    return t;
}

}  // namespace

std::vector<LiveBlock> blocks_alive_at(const MemorySnapshot& snapshot, int device, int64_t x, const SnapshotOptions& options) {
    const auto& events = events_of(snapshot, device);
    DeviceMemoryTimeline scratch;
    scratch.events = int64_t(events.size());
    Replay replay(options, scratch);
    replay.run(snapshot, device, events, 0, size_t(std::max<int64_t>(x, 0)));
    return alive_at(replay.elements, x);
}

SnapshotTimeline analyze_snapshot(const MemorySnapshot& snapshot, const SnapshotOptions& options) {
    int devices = int(snapshot.device_traces.size());
    for (const SnapshotSegment& seg : snapshot.segments) devices = std::max(devices, seg.device + 1);
    SnapshotTimeline timeline;
    for (int d = 0; d < devices; ++d) {
        const bool has_trace = size_t(d) < snapshot.device_traces.size() && !snapshot.device_traces[size_t(d)].empty();
        const bool has_segments = std::any_of(snapshot.segments.begin(), snapshot.segments.end(), [d](const SnapshotSegment& s) { return s.device == d; });
        if (has_trace || has_segments) timeline.devices.push_back(replay_device(snapshot, d, options));
    }
    return timeline;
}

}  // namespace awb
