// The pickle machine behind io/pickle_reader.h and io/memory_snapshot_read.h (internal to core/io): it
// runs the opcodes into a compact store (ints, floats, bools and None inline in a 16-byte Ref; str and
// containers by index), and, given an EventSink, streams a memory snapshot's trace events out as their
// lists are filled, so that a trace of millions of events is never held as values.
//
// Streaming rests on a guess about the layout, made from the stack when a container is pushed: the
// first dict is the snapshot (Role::Root), the list pushed as its "device_traces" value holds the
// traces (Role::Traces), and the lists pushed into that one are the traces (Role::Trace), in device
// order. Each dict added to a Trace list goes to the sink and is freed at once. Whatever Python's
// pickler writes fits the guess; a file that does not (a trace list shared or placed elsewhere, a freed
// event referred to again) makes the machine throw StreamFallback, and the caller reads the file again
// without streaming, so the result never depends on the guess.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/pickle_reader.h"
#include "io/trace_input.h"

namespace awb::pickle {

struct Ref {
    int64_t num = 0;     // Int: the value; Bool: 0 or 1; Float: its bits; List, Tuple, Dict: the container's generation
    uint32_t index = 0;  // Str, Bytes: into ValueStore::strings; List, Tuple, Dict: into ValueStore::containers
    Kind kind = Kind::None;
    // A container the sink has read (ValueStore::made), as the memo gives it from then on: num is what
    // the sink made of it (a StackId, a frame's index), kind the container's. Not a container any more:
    // reading its items throws StreamFallback.
    bool made = false;
    bool is_container() const { return !made && (kind == Kind::List || kind == Kind::Tuple || kind == Kind::Dict); }
    double real() const;
};

// Root, Traces, Trace: see above; Made: a container the sink has read and emptied (a frames list as a
// stack, a frame dict as a frame), which may be referred to again but not read or filled.
enum class Role : uint8_t { None, Root, Traces, Trace, Made };

struct Container {
    std::vector<Ref> items;  // List, Tuple: the elements; Dict: key, value, key, value, ...
    int64_t generation = 0;  // bumped when the slot is freed: a Ref with another generation is stale
    int64_t streamed = 0;    // Trace: how many items went to the sink
    uint32_t memo_slot = UINT32_MAX;
    uint32_t device = 0;  // Trace: its index in the Traces list
    Kind kind = Kind::List;
    Role role = Role::None;
    bool in_traces = false;  // made while the traces streamed: referred to from there, or through the memo
};

// The streaming guess did not hold: read again without an EventSink.
struct StreamFallback {};

// Raised inside the machine with the offset of the opcode being run; the callers add the file's name.
struct MachineError {
    std::string what;
    int64_t offset;
};

struct ValueStore {
    std::deque<std::string> strings;  // Str (valid UTF-8), Bytes: a deque, so that str_index's views stay
    std::vector<Container> containers;
    std::vector<uint32_t> free_slots;  // containers freed after streaming, for reuse
    Ref root;
    int protocol = 0;
    int64_t events_scanned = 0;  // trace event dicts made from a scan of their bytes (io/pickle_event_scan.h)

    // The container a Ref names; StreamFallback when it was freed since (only streaming frees) or made.
    const Container& container(Ref r) const {
        const Container& c = containers[r.index];
        if (r.made || c.generation != r.num) throw StreamFallback{};
        return c;
    }
    const std::string& text(Ref r) const { return strings[r.index]; }
    // A str or bytes value made of the bytes [p, p + n) (a str as valid UTF-8). A str equal to one held
    // already is that one: str are values, and a snapshot repeats a few (torch 2.11 writes each trace
    // event's compile_context, "N/A", as a str of its own) millions of times. Throws MachineError
    // (offset 0: the caller's) past 2^32.
    Ref add_text(Kind kind, const char* p, size_t n);
    // The sink has read container R as VALUE: its items are freed (Role::Made), and the machine, once the
    // events of the batch have gone to the sink, puts Ref{VALUE, made} in its memo slot, so that a memo
    // reference to it (an event's frames list, a frame dict, referred to again) costs no lookup; made
    // while the traces streamed, it is freed too (the memo was its only way back).
    void made(Ref r, int64_t value) {
        Container& c = containers[r.index];
        std::vector<Ref>().swap(c.items);
        c.role = Role::Made;
        made_now.push_back({value, r.index, r.kind, true});
    }
    std::unordered_map<std::string_view, uint32_t> str_index;  // the Str held, by their text
    std::string scratch;                                       // a str being made
    std::vector<Ref> made_now;  // in this batch of events: the made Refs (the containers' slots in index)
    // A Dict's value under a str key (the last one, as Python keeps); nullptr when absent or not a Dict.
    const Ref* find(Ref dict, std::string_view key) const;
};

// Takes a streamed snapshot's trace items: item `index` of device_traces[device], valid during the call.
class EventSink {
public:
    virtual ~EventSink() = default;
    virtual void trace_item(uint32_t device, int64_t index, Ref item, ValueStore& store) = 0;
    // A list filled at once with [first, last), all of them dicts the sink made (frame dicts): the sink
    // may read it now (ValueStore::made) and say so, or leave it to be filled (false). What it makes
    // must depend only on the items' made values: the machine reuses it for the same items (RunCache).
    virtual bool made_list(Ref list, const Ref* first, const Ref* last, ValueStore& store) = 0;
};

// The input: bytes in memory or a TraceInput (a file, plain or gzip, inflated as it is read).
class ByteSource {
public:
    explicit ByteSource(std::string_view bytes);
    // OBSERVER (may be null): told how much of the file is read, once per percent of a file of 16 MiB
    // or more, as the buffer is filled; asked there whether to stop (Cancelled).
    explicit ByteSource(trace_io::TraceInput& in, RunObserver* observer = nullptr);
    // The next n bytes, or nullptr at the end of the input.
    const char* take(size_t n) {
        if (size_t(end_ - cur_) < n) return take_slow(n);
        const char* p = cur_;
        cur_ += n;
        return p;
    }
    // Where the next byte is, as a pointer and an origin: the stream offset of a byte handed out is
    // origin + its address, taken as integers, even once the buffer has moved (a pair kept per opcode,
    // for the messages, costs two stores; the offset is worked out only when one is needed).
    const char* cursor() const { return cur_; }
    // The bytes read into the buffer and not yet taken (maybe none: take reads more), and taking N of them.
    std::string_view buffered() const { return {cur_, size_t(end_ - cur_)}; }
    void skip(size_t n) { cur_ += n; }
    int64_t origin() const { return origin_; }
    int64_t offset() const { return offset_of(origin_, cur_); }
    static int64_t offset_of(int64_t origin, const char* p) { return origin + int64_t(reinterpret_cast<intptr_t>(p)); }

private:
    const char* take_slow(size_t n);
    void set_origin();
    trace_io::TraceInput* in_ = nullptr;
    RunObserver* observer_ = nullptr;
    trace_io::FileProgress progress_;
    const char* begin_;
    const char* cur_;
    const char* end_;
    int64_t origin_ = 0;
};

// N bytes, little-endian, as an unsigned integer (N a constant: one load on a little-endian machine).
template <size_t N>
uint64_t little_endian(const char* bytes) {
    uint64_t v = 0;
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(&v, bytes, N);
    } else {
        const auto* p = reinterpret_cast<const unsigned char*>(bytes);
        for (size_t i = N; i-- > 0;) v = (v << 8) | p[i];
    }
    return v;
}
// LONG1 / LONG4's N bytes of little-endian two's complement into OUT; false when wider than 64 bits.
bool decode_long(const char* bytes, size_t n, int64_t& out);
// BINFLOAT's 8 bytes, big-endian IEEE 754, as the double's bits.
uint64_t float_bits(const char* bytes);

// Runs the pickle into STORE (store.root, store.protocol). With a sink, streams as described above.
// Throws MachineError, StreamFallback (sink only) or what the sink or the source throw.
void run_pickle(ByteSource& in, ValueStore& store, const PickleLimits& limits, EventSink* sink);

// The pickle in PATH (gzip or plain) into STORE: PickleError naming the file, std::runtime_error when it
// cannot be opened, StreamFallback (sink only), Cancelled (the observer asked).
void read_pickle_store(const std::string& path, ValueStore& store, const PickleLimits& limits, EventSink* sink,
                       RunObserver* observer = nullptr);

// "0x80 then protocol 2..5": the first two bytes of a pickle this reader takes.
bool is_pickle_head(const unsigned char* head, size_t n);

}  // namespace awb::pickle
