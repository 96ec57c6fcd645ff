// A streamed trace's event dict read straight from the bytes (internal to io/pickle_machine.cpp).
//
// Nine in ten of a memory snapshot's opcodes are its trace events': the dict, memo references to its
// keys, small ints, and a frames list that is a run of memo references to frame dicts. Run one at a
// time through the machine's stack, containers and memo, they cost some 10 ns each. Here an event is
// read in one pass over the buffer, and a frames list already seen (the same run of bytes) costs one
// lookup. The scan changes nothing: it reads the bytes and the memo and says what running them would
// do (ScannedEvent); the machine then does that, or, where the scan gave up (an opcode it does not
// take, a value not yet in the memo, an event not whole in the buffer), runs the opcodes as ever. So
// the result never depends on the scan; only the time does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/pickle_machine.h"

namespace awb::pickle {

class Memo;

// What the sink made of frames lists (EventSink::made_list), by their runs of memo references as
// bytes: the same bytes name the same frame dicts, so long as no made value in the memo was replaced
// (Memo::epoch), and the sink makes the same value of the same frames. Bounded: past kMaxBytes of
// runs, nothing more is added.
class RunCache {
public:
    static constexpr size_t kMaxBytes = size_t(16) << 20;
    const int64_t* find(std::string_view run, uint64_t epoch) const {
        if (epoch != epoch_) return nullptr;
        const auto it = made_.find(run);
        return it == made_.end() ? nullptr : &it->second;
    }
    void add(std::string_view run, int64_t value, uint64_t epoch);

private:
    struct Hash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    std::unordered_map<std::string, int64_t, Hash, std::equal_to<>> made_;
    uint64_t epoch_ = 0;
    size_t bytes_ = 0;
};

inline constexpr uint64_t kNoSlot = UINT64_MAX;

// A frames list in a scanned event.
struct ScannedList {
    size_t value = 0;                        // its place in ScannedEvent::kv
    uint64_t slots[2] = {kNoSlot, kNoSlot};  // the memo slots it was put in (after EMPTY_LIST, after APPENDS)
    std::string_view run;                    // its memo references, as bytes (RunCache's key)
    const int64_t* made = nullptr;           // what the sink made of the same run before (RunCache), or
    std::vector<Ref> items;                  // else its items,
    bool all_made = false;                   // all of them frame dicts the sink has made (EventSink::made_list)
};

// A str written in a scanned event (SHORT_BINUNICODE, BINUNICODE), as bytes of the buffer.
struct ScannedText {
    size_t value = 0;  // its place in ScannedEvent::kv
    uint64_t slot = kNoSlot;
    std::string_view bytes;
};

struct ScannedEvent {
    static constexpr size_t kMaxPairs = 32;
    static constexpr size_t kMaxLists = 2;
    static constexpr size_t kMaxTexts = 4;
    uint64_t dict_slots[2] = {kNoSlot,
                              kNoSlot};  // the memo slots the dict was put in (after EMPTY_DICT, after SETITEMS)
    Ref kv[2 * kMaxPairs];               // key, value, ...: a frames list's value is set when it is made
    size_t pairs = 0;
    ScannedList lists[kMaxLists];
    size_t list_count = 0;
    ScannedText texts[kMaxTexts];
    size_t text_count = 0;
    size_t bytes = 0;  // read, from just after the EMPTY_DICT
};

// Scans BYTES, which follow an EMPTY_DICT, as an event dict: MARK, pairs of a memo-referred key and a
// scalar, a str, a memo-referred value or a frames list, SETITEMS, with memo puts where Python's pickler and
// LibTorch's put them and FRAMEs anywhere. True: OUT says what running them does; false: run them.
bool scan_event(std::string_view bytes, const Memo& memo, const ValueStore& store, const PickleLimits& limits,
                const RunCache& cache, ScannedEvent& out);

}  // namespace awb::pickle
