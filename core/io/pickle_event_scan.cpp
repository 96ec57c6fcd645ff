#include "io/pickle_event_scan.h"

#include <algorithm>

#include "io/pickle_memo.h"

namespace awb::pickle {

void RunCache::add(std::string_view run, int64_t value, uint64_t epoch) {
    if (epoch != epoch_) {  // a made value in the memo was replaced: what was made of runs may differ now
        made_.clear();
        bytes_ = 0;
        epoch_ = epoch;
    }
    if (bytes_ + run.size() > kMaxBytes) return;
    if (made_.try_emplace(std::string(run), value).second) bytes_ += run.size();
}

namespace {

constexpr uint8_t kFrame = 0x95, kMemoize = 0x94, kLong1 = 0x8a, kTrue = 0x88, kFalse = 0x89, kShortStr = 0x8c;

class Scanner {
public:
    Scanner(std::string_view bytes, const Memo& memo, const ValueStore& store, const PickleLimits& limits,
            const RunCache& cache, ScannedEvent& out)
        : begin_(bytes.data()),
          p_(bytes.data()),
          end_(bytes.data() + bytes.size()),
          memo_(memo),
          store_(store),
          limits_(limits),
          cache_(cache),
          out_(out),
          next_slot_(memo.size()) {}

    bool event() {
        out_.pairs = 0;
        out_.list_count = 0;
        out_.text_count = 0;
        if (!put(out_.dict_slots[0]) || op() != '(') return false;
        for (int o = op(); o != 'u'; o = op()) {
            if (out_.pairs == ScannedEvent::kMaxPairs) return false;
            Ref* kv = out_.kv + 2 * out_.pairs;
            if (!ref(o, kv[0]) || !value(op(), kv[1], size_t(kv + 1 - out_.kv))) return false;
            ++out_.pairs;
        }
        if (!put(out_.dict_slots[1])) return false;
        out_.bytes = size_t(p_ - begin_);
        return true;
    }

private:
    // The next opcode, past any FRAME (it only groups what follows); -1 where the bytes end.
    int op() {
        for (;;) {
            if (p_ == end_) return -1;
            op_at_ = p_;
            const uint8_t o = uint8_t(*p_++);
            if (o != kFrame) return o;
            if (end_ - p_ < 8) return -1;
            p_ += 8;
        }
    }
    const char* take(size_t n) {
        if (size_t(end_ - p_) < n) return nullptr;
        p_ += n;
        return p_ - n;
    }
    // The memo slot of a BINGET ('h') or LONG_BINGET ('j'); false for any other opcode.
    bool slot_of(int o, uint64_t& slot) {
        if (o != 'h' && o != 'j') return false;
        const char* b = take(o == 'h' ? 1 : 4);
        if (!b) return false;
        slot = o == 'h' ? uint8_t(*b) : little_endian<4>(b);
        return true;
    }
    bool assigned(uint64_t slot) const {
        return slot >= lowest_assigned_ &&
               std::find(assigned_, assigned_ + assigned_count_, slot) != assigned_ + assigned_count_;
    }

    // An optional memo put (MEMOIZE, BINPUT, LONG_BINPUT) into SLOT; false where the machine would
    // refuse it (Machine::memo_put) or a slot is put twice (the order of the puts would matter).
    bool put(uint64_t& slot) {
        slot = kNoSlot;
        const char* at = p_;
        const int o = op();
        const char* b = nullptr;
        if (o == kMemoize)
            slot = next_slot_;
        else if (o == 'q' && (b = take(1)))
            slot = uint8_t(*b);
        else if (o == 'r' && (b = take(4)))
            slot = little_endian<4>(b);
        else if (o == 'q' || o == 'r')
            return false;
        else {
            p_ = at;  // not a put
            return true;
        }
        if (slot >= uint64_t(limits_.max_memo) || slot > next_slot_ + (uint64_t(1) << 20) || assigned(slot) ||
            assigned_count_ == kMaxAssigned)
            return false;
        assigned_[assigned_count_++] = slot;
        lowest_assigned_ = std::min(lowest_assigned_, slot);
        next_slot_ = std::max(next_slot_, slot + 1);
        return true;
    }
    // The value in memo SLOT, set before this event, as Machine::memo_get would push it (a container the
    // streaming placed, or freed, would end the streaming there: left to the machine).
    const Ref* memo(uint64_t slot) const {
        const Ref* r = assigned(slot) ? nullptr : memo_.get(slot);
        if (!r || !r->is_container()) return r;
        const Container& c = store_.containers[r->index];
        return c.generation == r->num && (c.role == Role::None || c.role == Role::Made) ? r : nullptr;
    }
    bool ref(int o, Ref& v) {
        uint64_t slot;
        const Ref* r = slot_of(o, slot) ? memo(slot) : nullptr;
        if (!r) return false;
        v = *r;
        return true;
    }
    bool value(int o, Ref& v, size_t at) {
        const char* b;
        switch (o) {
            case 'K':
                if (!(b = take(1))) return false;
                v = Ref{int64_t(uint8_t(*b)), 0, Kind::Int};
                return true;  // BININT1
            case 'M':
                if (!(b = take(2))) return false;
                v = Ref{int64_t(little_endian<2>(b)), 0, Kind::Int};
                return true;  // BININT2
            case 'J':
                if (!(b = take(4))) return false;
                v = Ref{int32_t(uint32_t(little_endian<4>(b))), 0, Kind::Int};
                return true;  // BININT
            case kLong1: return long1(v);
            case 'N': v = Ref{}; return true;
            case kTrue:
            case kFalse: v = Ref{o == kTrue, 0, Kind::Bool}; return true;
            case 'G':
                if (!(b = take(8))) return false;
                v = Ref{int64_t(float_bits(b)), 0, Kind::Float};
                return true;  // BINFLOAT
            case 'h':
            case 'j': return ref(o, v);
            case kShortStr: return text((b = take(1)) ? uint8_t(*b) : SIZE_MAX, at);
            case 'X': return text((b = take(4)) ? little_endian<4>(b) : SIZE_MAX, at);  // BINUNICODE
            case ']': v = Ref{0, 0, Kind::List}; return list(at);
            default: return false;
        }
    }
    // A str of N bytes, and its memo put if any.
    bool text(size_t n, size_t at) {
        const char* b = n == SIZE_MAX || out_.text_count == ScannedEvent::kMaxTexts ? nullptr : take(n);
        if (!b) return false;
        ScannedText& t = out_.texts[out_.text_count++];
        t.value = at;
        t.bytes = std::string_view(b, n);
        return put(t.slot);
    }
    bool long1(Ref& v) {
        const char* n = take(1);
        const char* b = n ? take(uint8_t(*n)) : nullptr;
        v = Ref{0, 0, Kind::Int};
        return b && decode_long(b, uint8_t(*n), v.num);
    }
    // A frames list: EMPTY_LIST, then MARK, memo references, APPENDS, or one memo reference and APPEND.
    bool list(size_t at) {
        if (out_.list_count == ScannedEvent::kMaxLists) return false;
        ScannedList& l = out_.lists[out_.list_count++];
        l.value = at;
        if (!put(l.slots[0])) return false;
        int o = op();
        const char* run = p_;
        uint64_t slot;
        if (o == '(') {
            size_t items = memo_refs();
            for (o = op(); o != 'e'; o = op())
                if (!slot_of(o, slot) || ++items >= 1000)
                    return false;  // Python's pickler appends at most 1,000 at once
            if (items == 0) return false;
        } else {
            run = op_at_;
            if (!slot_of(o, slot) || op() != 'a') return false;
        }
        l.run = std::string_view(run, size_t(op_at_ - run));
        if (!put(l.slots[1])) return false;
        l.made = cache_.find(l.run, memo_.epoch());
        return l.made || frames(l);
    }
    // Past a run of BINGET and LONG_BINGET, the bulk of a frames list, with no other test (no FRAME, far
    // from the end of the bytes): how many. The loop above takes what follows, one opcode at a time.
    size_t memo_refs() {
        const char* q = p_;
        size_t n = 0;
        for (; end_ - q >= 5 && n < 1000; ++n) {
            const char c = *q;
            if (c != 'h' && c != 'j') break;
            q += c == 'h' ? 2 : 5;
        }
        p_ = q;
        return n;
    }
    // The run's items, when the cache has not seen it.
    bool frames(ScannedList& l) {
        l.items.clear();
        l.all_made = true;
        for (const char* q = l.run.data(); q != l.run.data() + l.run.size();) {
            const uint8_t o = uint8_t(*q++);
            if (o == kFrame) {
                q += 8;
                continue;
            }
            const uint64_t slot = o == 'h' ? uint8_t(*q) : little_endian<4>(q);
            q += o == 'h' ? 1 : 4;
            const Ref* r = memo(slot);
            if (!r) return false;
            l.all_made = l.all_made && r->made && r->kind == Kind::Dict;
            l.items.push_back(*r);
        }
        return true;
    }

    static constexpr size_t kMaxAssigned = 10;
    const char* begin_;
    const char* p_;
    const char* end_;
    const char* op_at_ = nullptr;  // the last opcode read
    const Memo& memo_;
    const ValueStore& store_;
    const PickleLimits& limits_;
    const RunCache& cache_;
    ScannedEvent& out_;
    uint64_t next_slot_;  // MEMOIZE's slot: Memo::size() as the puts so far would leave it
    uint64_t assigned_[kMaxAssigned];
    size_t assigned_count_ = 0;
    uint64_t lowest_assigned_ = UINT64_MAX;  // most references are to slots below it: no search
};

}  // namespace

bool scan_event(std::string_view bytes, const Memo& memo, const ValueStore& store, const PickleLimits& limits,
                const RunCache& cache, ScannedEvent& out) {
    return Scanner(bytes, memo, store, limits, cache, out).event();
}

}  // namespace awb::pickle
