#include "analysis/snapshot_timeline.h"

#include "analysis/mixed_hash.h"
#include "analysis/snapshot_frames.h"
#include "model/chunked_column.h"
#include "model/huge_pages.h"

#include <cstdint>
#include <algorithm>
#include <array>
#include <map>
#include <exception>
#include <thread>

namespace awb {

int64_t bytes_of(const std::vector<LiveBlock>& blocks) {
    int64_t sum = 0;
    for (const LiveBlock& b : blocks) sum += b.size;
    return sum;
}

int64_t BlockBand::bottom_at(int64_t x) const {
    const auto it =
        std::upper_bound(bottom.begin(), bottom.end(), x, [](int64_t v, const StepPoint& p) { return v < p.first; });
    return it == bottom.begin() ? bottom.front().second : std::prev(it)->second;
}

// Named, not anonymous: StreamedReplay::Device holds a Replay.
namespace snapshot_replay {

bool grows_reserved(SnapshotAction a) { return a == SnapshotAction::SegmentAlloc || a == SnapshotAction::SegmentMap; }
bool shrinks_reserved(SnapshotAction a) {
    return a == SnapshotAction::SegmentFree || a == SnapshotAction::SegmentUnmap;
}

bool larger(const LiveBlock& a, const LiveBlock& b) { return a.size != b.size ? a.size > b.size : a.addr < b.addr; }

// Blocks alive, by address: open addressing (a replay looks one up for every alloc and free), the
// addresses' bits mixed (a caching allocator's are multiples of 512).
template <class V>
using ByAddress = MixedMap<V>;

// The blocks alive when recording began: the final state walked back through the trace; largest first.
// With ONLY_FREED (the addresses a forward replay saw freed while not alive), the walk looks at those
// and the final state's blocks alone: a block of the start is one or the other (its address's first
// event is a free, or it has none).
std::vector<LiveBlock> alive_at_start(const std::vector<SnapshotSegment>& segments, int device,
                                      const std::vector<SnapshotEvent>& events,
                                      const ByAddress<int64_t>* only_freed = nullptr) {
    ByAddress<LiveBlock> live;
    for (const SnapshotSegment& seg : segments)
        if (seg.device == device)
            for (const SnapshotBlock& b : seg.blocks)
                if (b.active()) live[b.address] = {b.address, b.size, b.stack, -1};
    ByAddress<bool> looked_at;
    if (only_freed) {
        for (const auto& [addr, x] : *only_freed) looked_at[addr] = true;
        for (const auto& [addr, b] : live) looked_at[addr] = true;
    }
    for (auto e = events.rbegin(); e != events.rend(); ++e) {
        if (e->action != SnapshotAction::Alloc && e->action != SnapshotAction::FreeCompleted) continue;
        if (only_freed && !looked_at.contains(e->addr)) continue;
        if (e->action == SnapshotAction::Alloc)
            live.erase(e->addr);
        else
            live[e->addr] = {e->addr, e->size, e->stack, -1};
    }
    std::vector<LiveBlock> blocks;
    blocks.reserve(live.size());
    for (const auto& [addr, b] : live) blocks.push_back(b);
    std::sort(blocks.begin(), blocks.end(), larger);
    return blocks;
}

// BESIDE run on a second thread while HERE runs on this one; the first failure is rethrown once both end.
template <class Beside, class Here>
void beside(Beside&& beside, Here&& here) {
    std::exception_ptr failed;
    {
        std::jthread second([&] {
            try {
                beside();
            } catch (...) {
                failed = std::current_exception();
            }
        });
        here();
    }
    if (failed) std::rethrow_exception(failed);
}

// One block's life on the event axis: an alloc of the trace, or a block alive before recording (begin 0).
struct Element {
    int64_t addr = 0;
    int64_t size = 0;
    int64_t begin = 0;
    int64_t end = 0;
    StackId stack = kNoStack;
    LiveBlock block() const { return {addr, size, stack, begin - 1}; }  // its alloc is the event before begin
};
using Elements = ChunkedColumn<Element>;

// The device's trace replayed once: the curves, and every counted block's life (the peak's blocks and
// the bands are read off those, without replaying again).
//
// Forward (step), the events in order, a batch at a time, before the trace's length or the blocks
// alive when recording began are known: a free of an address not alive is kept aside, the reserved
// bytes are counted from 0 (a step at each segment event), a block still alive has no end yet. The
// curves grow in chunks (model/chunked_column.h): one replayed beside a reading adds no copies to it.
// finish() then takes the blocks of the start (alive_at_start, a walk back from the final state): each ends at the
// first free kept for its
// address (the others are frees the trace cannot match), and its bytes are added to the curves over
// [0, that free); the reserved curve is moved up to the bytes reserved at the start. Their elements
// come after the trace's (stacking order: by begin, then index).
class Replay {
public:
    explicit Replay(const SnapshotOptions& options, DeviceMemoryTimeline& t) : options_(options), t_(t) { push(); }

    // The whole trace (or its first UNTIL events): the walk back on a second thread while this one
    // replays forward.
    void run(const MemorySnapshot& snapshot, int device, const std::vector<SnapshotEvent>& events,
             size_t until = SIZE_MAX) {
        std::vector<LiveBlock> start;
        beside([&] { start = alive_at_start(snapshot.segments, device, events); },
               [&] { step(events.data(), std::min(until, events.size())); });
        finish(start);
    }
    // The next N events of the trace.
    void step(const SnapshotEvent* events, size_t n) {
        for (const SnapshotEvent* e = events; e != events + n; ++e) {
            const int64_t x = ++x_;
            if (e->action == SnapshotAction::Alloc) {
                if (const auto it = live_.find(e->addr); it != live_.end()) end(it, x);  // the trace lost its free
                begin({e->addr, e->size, e->stack, x - 1}, x);
            } else if (e->action == SnapshotAction::FreeCompleted) {
                if (const auto it = live_.find(e->addr); it != live_.end()) {
                    end(it, x);
                } else {  // a block of the start, or a free not matched
                    unknown_frees_.try_emplace(e->addr, x);
                    ++unmatched_;
                }
            }
            if (grows_reserved(e->action) || shrinks_reserved(e->action)) {
                reserved_ += grows_reserved(e->action) ? e->size : -e->size;
                reserved_steps_.push_back({x, reserved_});
            }
            if (e->action == SnapshotAction::Oom) ++t_.ooms;
            push();
        }
    }
    // Once the trace is replayed (t.events its length, t.final_reserved set): the blocks still alive end
    // with it, the blocks of the start (largest first) join.
    void finish(const std::vector<LiveBlock>& start) {
        close();
        add_start(start);
    }
    // The trace's part of finish(): its blocks still alive end with it; the curves are t's.
    void close() {
        const int64_t x_end = t_.events + 1;
        for (const auto& [addr, live] : live_)
            if (live.element >= 0) elements[size_t(live.element)].end = x_end;
        t_.allocated = allocated_curve_.take();
        if (options_.keep) t_.allocated_all = all_curve_.take();
        // Reserved at the start: the final segments' bytes less what the trace's segment events added.
        t_.reserved.reserve(t_.allocated.size());
        prefer_huge_pages(t_.reserved);
        const int64_t at_start = t_.final_reserved - reserved_;
        for (size_t step = 0; step < reserved_steps_.size(); ++step) {
            const size_t until =
                step + 1 < reserved_steps_.size() ? size_t(reserved_steps_[step + 1].first) : t_.allocated.size();
            t_.reserved.resize(until, at_start + reserved_steps_[step].second);
        }
        t_.reserved_recorded = t_.reserved_recorded || reserved_steps_.size() > 1;
    }
    // The blocks of the start (largest first), each to its first free kept aside or to the trace's end: their
    // bytes added to the curves, the counted ones to the elements.
    void add_start(const std::vector<LiveBlock>& start) {
        const int64_t x_end = t_.events + 1;
        const size_t curve = t_.allocated.size();  // x_end, or fewer when replayed up to a point
        std::vector<Element> lives;
        lives.reserve(start.size());
        for (const LiveBlock& b : start) {
            const auto it = unknown_frees_.find(b.addr);
            lives.push_back({b.addr, b.size, 0, it == unknown_frees_.end() ? x_end : it->second, b.stack});
            unmatched_ -= it != unknown_frees_.end();
        }
        t_.unmatched_frees += unmatched_;
        for (const Element& e : lives)
            if (counts(e.stack)) elements.push_back(e);
        // Their bytes over [0, end): walked back from the last x, adding each block where its life ends.
        std::vector<const Element*> by_end;
        for (const Element& e : lives) by_end.push_back(&e);
        std::sort(by_end.begin(), by_end.end(), [](const Element* a, const Element* b) { return a->end > b->end; });
        const bool filtered = options_.keep.has_value();
        int64_t counted = 0, all = 0;
        size_t next = 0;
        for (size_t x = by_end.empty() ? 0 : std::min(curve, size_t(by_end.front()->end));
             x-- > 0;) {  // none alive past the first end
            for (; next < by_end.size() && by_end[next]->end > int64_t(x); ++next) {
                all += by_end[next]->size;
                counted += counts(by_end[next]->stack) ? by_end[next]->size : 0;
            }
            t_.allocated[x] += counted;
            if (filtered) t_.allocated_all[x] += all;
        }
    }
    Elements elements;  // the trace's allocs counted, then the blocks alive at the start (largest first)
    const ByAddress<int64_t>& unknown_frees() const { return unknown_frees_; }

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
    void begin(const LiveBlock& b, int64_t x) {
        int64_t element = -1;
        if (counts(b.stack)) {
            element = int64_t(elements.size());
            elements.push_back({b.addr, b.size, x, kOpen, b.stack});
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
    void push() {
        allocated_curve_.push_back(allocated_);
        if (options_.keep) all_curve_.push_back(all_);
    }

    static constexpr int64_t kOpen = INT64_MAX;  // an element's end while its block is alive
    const SnapshotOptions& options_;
    DeviceMemoryTimeline& t_;
    int64_t x_ = 0;  // the events replayed
    LiveMap live_;
    ByAddress<int64_t> unknown_frees_;  // address: the first free of an address not alive
    int64_t unmatched_ = 0;             // frees of an address not alive (a block of the start's first, or not matched)
    int64_t allocated_ = 0;
    int64_t all_ = 0;
    int64_t reserved_ = 0;                                // what the segment events added so far
    std::vector<StepPoint> reserved_steps_{{0, 0}};       // reserved_ from each x on
    ChunkedColumn<int64_t> allocated_curve_, all_curve_;  // until finish(): then t's allocated and allocated_all
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
    std::stable_sort(out.begin(), out.end(),
                     [](const FrameBytes& a, const FrameBytes& b) { return a.bytes > b.bytes; });
    return out;
}

// The blocks alive at each of XS (one walk over the elements), largest first.
template <size_t N>
std::array<std::vector<LiveBlock>, N> alive_at(const Elements& elements, const std::array<int64_t, N>& xs) {
    std::array<std::vector<LiveBlock>, N> out;
    for (size_t i = 0; i < elements.size(); ++i) {
        const Element& e = elements[i];
        for (size_t k = 0; k < N; ++k)
            if (e.begin <= xs[k] && xs[k] < e.end) out[k].push_back(e.block());
    }
    for (auto& blocks : out) std::sort(blocks.begin(), blocks.end(), larger);
    return out;
}

// The indices of the N largest elements (ties: the one stacked first), in no order: kept in a heap
// whose top is the least of them, so most blocks are turned away by one comparison with it.
std::vector<size_t> largest(const Elements& elements, size_t n) {
    struct Candidate {
        int64_t size, begin;
        size_t index;
        bool operator<(const Candidate& o) const {  // "larger" in the band order: the heap's top is the least
            return size != o.size ? size > o.size : begin != o.begin ? begin < o.begin : index < o.index;
        }
    };
    std::vector<Candidate> heap;
    heap.reserve(std::min(n, elements.size()));
    for (size_t i = 0; i < elements.size() && n > 0; ++i) {
        const Candidate c{elements[i].size, elements[i].begin, i};
        if (heap.size() < n) {
            heap.push_back(c);
            std::push_heap(heap.begin(), heap.end());
        } else if (c < heap.front()) {
            std::pop_heap(heap.begin(), heap.end());
            heap.back() = c;
            std::push_heap(heap.begin(), heap.end());
        }
    }
    std::vector<size_t> out;
    out.reserve(heap.size());
    for (const Candidate& c : heap) out.push_back(c.index);
    return out;
}

// The largest blocks stacked in the order they were allocated; a free moves those above it down.
void stack_bands(const Elements& elements, size_t max_bands, DeviceMemoryTimeline& t) {
    // Stacking order: the blocks of the start first (begin 0, largest first, as they follow the trace's
    // in elements), then the allocs of the trace as they came.
    const auto stacked_before = [&](size_t a, size_t b) {
        return elements[a].begin != elements[b].begin ? elements[a].begin < elements[b].begin : a < b;
    };
    std::vector<size_t> order = largest(elements, max_bands);
    const size_t n = order.size();
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
        t.bands.push_back({e.block(), e.begin, e.end, {}});
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
        if (t.banded.back().first == c.x)
            t.banded.back().second = total;
        else
            t.banded.push_back({c.x, total});
    }
}

const std::vector<SnapshotEvent>& events_of(const MemorySnapshot& snapshot, int device) {
    static const std::vector<SnapshotEvent> kNone;
    return size_t(device) < snapshot.device_traces.size() ? snapshot.device_traces[size_t(device)] : kNone;
}

// What the device's final segments say: the bytes reserved and allocated at the snapshot, and whether
// they are an allocator's (typed); the trace's segment events tell the rest (Replay::finish).
void final_state(const MemorySnapshot& snapshot, int device, DeviceMemoryTimeline& t) {
    t.device = device;
    t.events = int64_t(events_of(snapshot, device).size());
    t.reserved_recorded = false;
    for (const SnapshotSegment& seg : snapshot.segments)
        if (seg.device == device) {
            t.final_reserved += seg.total_size;
            t.reserved_recorded = t.reserved_recorded || !seg.segment_type.empty();
            for (const SnapshotBlock& b : seg.blocks)
                if (b.active()) t.final_allocated += b.size;
        }
}

// read_off's part besides the bands.
void read_curves(const MemorySnapshot& snapshot, const Replay& replay, DeviceMemoryTimeline& t) {
    const auto peak = std::max_element(t.allocated.begin(), t.allocated.end());
    t.peak_allocated = *peak;
    t.peak_index = peak - t.allocated.begin();
    t.peak_reserved = *std::max_element(t.reserved.begin(), t.reserved.end());
    t.allocated_max = RangeMax(t.allocated);
    t.reserved_max = RangeMax(t.reserved);
    t.allocated_all_max = RangeMax(t.allocated_all);
    auto [at_peak, at_start] =
        alive_at(replay.elements, std::array<int64_t, 2>{t.peak_index, 0});  // allocs of the trace begin at 1
    t.at_peak = std::move(at_peak);
    t.before_recording = std::move(at_start);
    t.frames_at_peak = frames_of(snapshot, t.at_peak);
}

// Read off a finished replay: the peaks, the curves' maxima by range, the blocks at the peak and at the
// start, the bytes by frame at the peak, the bands.
void read_off(const MemorySnapshot& snapshot, const SnapshotOptions& options, const Replay& replay,
              DeviceMemoryTimeline& t) {
    t.blocks = int64_t(replay.elements.size());
    beside(
        [&] {
            if (options.max_bands > 0) stack_bands(replay.elements, options.max_bands, t);
        },
        [&] { read_curves(snapshot, replay, t); });
}

DeviceMemoryTimeline replay_device(const MemorySnapshot& snapshot, int device, const SnapshotOptions& options) {
    DeviceMemoryTimeline t;
    final_state(snapshot, device, t);
    Replay replay(options, t);
    replay.run(snapshot, device, events_of(snapshot, device));
    read_off(snapshot, options, replay, t);
    return t;
}

// The devices a snapshot's timeline has: those with a trace or segments, in order.
std::vector<int> devices_of(const MemorySnapshot& snapshot) {
    int devices = int(snapshot.device_traces.size());
    for (const SnapshotSegment& seg : snapshot.segments) devices = std::max(devices, seg.device + 1);
    std::vector<int> out;
    for (int d = 0; d < devices; ++d) {
        const bool has_trace = !events_of(snapshot, d).empty();
        const bool has_segments = std::any_of(snapshot.segments.begin(), snapshot.segments.end(),
                                              [d](const SnapshotSegment& s) { return s.device == d; });
        if (has_trace || has_segments) out.push_back(d);
    }
    return out;
}

}  // namespace snapshot_replay

std::vector<LiveBlock> blocks_alive_at(const MemorySnapshot& snapshot, int device, int64_t x,
                                       const SnapshotOptions& options) {
    const auto& events = snapshot_replay::events_of(snapshot, device);
    DeviceMemoryTimeline scratch;
    scratch.events = int64_t(events.size());
    snapshot_replay::Replay replay(options, scratch);
    replay.run(snapshot, device, events, size_t(std::max<int64_t>(x, 0)));
    return std::move(snapshot_replay::alive_at(replay.elements, std::array<int64_t, 1>{x})[0]);
}

SnapshotTimeline analyze_snapshot(const MemorySnapshot& snapshot, const SnapshotOptions& options) {
    SnapshotTimeline timeline;
    for (const int d : snapshot_replay::devices_of(snapshot))
        timeline.devices.push_back(snapshot_replay::replay_device(snapshot, d, options));
    return timeline;
}

// A device's trace replayed as it streams (its own options: every block counted).
struct StreamedReplay::Device {
    SnapshotOptions options;
    DeviceMemoryTimeline t;
    snapshot_replay::Replay replay{options, t};
    size_t events = 0;
};

StreamedReplay::StreamedReplay() = default;

StreamedReplay::~StreamedReplay() { wait(); }

void StreamedReplay::take(int device, const SnapshotEvent* first, size_t n) {
    if (!thread_.joinable()) {
        handoff_ = std::make_unique<Handoff<Batch>>(SIZE_MAX);  // a batch is three words: the reader never waits
        thread_ = std::thread([this] { consume(); });
    }
    handoff_->push({device, first, n});  // false once the replay failed: finish() says why
}

void StreamedReplay::consume() {
    try {
        while (const std::optional<Batch> b = handoff_->pop()) {
            if (size_t(b->device) >= devices_.size()) devices_.resize(size_t(b->device) + 1);
            auto& d = devices_[size_t(b->device)];
            if (!d) d = std::make_unique<Device>();
            d->replay.step(b->first, b->n);
            d->events += b->n;
        }
    } catch (...) {  // out of memory
        failed_ = std::current_exception();
        handoff_->stop();
    }
}

void StreamedReplay::wait() noexcept {
    if (!thread_.joinable()) return;
    handoff_->close();
    thread_.join();
    handoff_.reset();
}

void StreamedReplay::restart() {
    wait();
    devices_.clear();
    failed_ = nullptr;
}

SnapshotTimeline StreamedReplay::finish(const MemorySnapshot& snapshot, const SnapshotOptions& options) {
    wait();
    if (failed_) std::rethrow_exception(failed_);
    if (options.keep) return analyze_snapshot(snapshot, options);  // a filter counts other blocks: replayed again
    SnapshotTimeline timeline;
    replayed_beside_ = 0;
    for (const int d : snapshot_replay::devices_of(snapshot)) {
        Device* streamed = size_t(d) < devices_.size() ? devices_[size_t(d)].get() : nullptr;
        if (!streamed ||
            streamed->events != snapshot_replay::events_of(snapshot, d).size()) {  // none streamed (segments only)
            timeline.devices.push_back(snapshot_replay::replay_device(snapshot, d, options));
            continue;
        }
        DeviceMemoryTimeline& t = streamed->t;
        snapshot_replay::Replay& replay = streamed->replay;
        snapshot_replay::final_state(snapshot, d, t);
        const auto& events = snapshot_replay::events_of(snapshot, d);
        std::vector<LiveBlock> start;
        snapshot_replay::beside(
            [&] { start = snapshot_replay::alive_at_start(snapshot.segments, d, events, &replay.unknown_frees()); },
            [&] { replay.close(); });
        replay.add_start(start);
        snapshot_replay::read_off(snapshot, options, replay, t);
        replayed_beside_ += int64_t(events.size());
        timeline.devices.push_back(std::move(t));
    }
    devices_.clear();
    return timeline;
}

}  // namespace awb
