#include "io/pickle_machine.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

#include "io/pickle_event_scan.h"
#include "io/pickle_memo.h"
#include "io/trace_input.h"

namespace awb::pickle {

double Ref::real() const {
    double d = 0;
    std::memcpy(&d, &num, sizeof d);
    return d;
}

const Ref* ValueStore::find(Ref dict, std::string_view key) const {
    if (dict.kind != Kind::Dict) return nullptr;
    const std::vector<Ref>& items = container(dict).items;
    for (size_t i = items.size() & ~size_t(1); i >= 2; i -= 2)
        if (items[i - 2].kind == Kind::Str && strings[items[i - 2].index] == key) return &items[i - 1];
    return nullptr;
}

bool is_pickle_head(const unsigned char* head, size_t n) {
    return n >= 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5;
}

ByteSource::ByteSource(std::string_view bytes)
    : begin_(bytes.data()), cur_(bytes.data()), end_(bytes.data() + bytes.size()) {
    set_origin();
}

ByteSource::ByteSource(trace_io::TraceInput& in, RunObserver* observer)
    : in_(&in), observer_(observer), begin_(in.data()), cur_(in.data() + in.pos), end_(in.data() + in.size()) {
    set_origin();
}

void ByteSource::set_origin() {
    const char* data = in_ ? in_->data() : begin_;
    origin_ = (in_ ? in_->offset(0) : 0) - int64_t(reinterpret_cast<intptr_t>(data));
}

const char* ByteSource::take_slow(size_t n) {
    if (!in_) return nullptr;
    in_->pos = size_t(cur_ - in_->data());
    bool more = true;
    while (more && in_->size() - in_->pos < n) more = in_->fill();
    progress_.report(observer_, in_->file_position(), in_->file_size());
    set_origin();
    cur_ = in_->data() + in_->pos;
    end_ = in_->data() + in_->size();
    if (!more) return nullptr;
    cur_ += n;
    return cur_ - n;
}

namespace {

// str as valid UTF-8: Python writes str with surrogatepass, so a lone surrogate (or a damaged byte)
// would make invalid UTF-8; each such byte becomes U+FFFD, as Python's errors="replace" does. ASCII,
// nearly all of a snapshot's text, is copied as it is.
void assign_utf8(std::string& out, const char* p, size_t n) {
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    size_t i = 0;
    while (i < n && u[i] < 0x80) ++i;
    out.assign(p, i);
    while (i < n) {
        const unsigned char c = u[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
        bool ok = len > 0 && i + len <= n;
        for (size_t k = 1; ok && k < len; ++k) ok = (u[i + k] & 0xc0) == 0x80;
        if (ok && len > 1) {  // no overlong forms, no surrogates, nothing above U+10FFFF
            uint32_t cp = c & (0xff >> (len + 1));
            for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (u[i + k] & 0x3f);
            ok = cp >= (len == 2   ? 0x80u
                        : len == 3 ? 0x800u
                                   : 0x10000u) &&
                 (cp < 0xd800 || cp > 0xdfff) && cp <= 0x10ffff;
        }
        if (ok) {
            out.append(p + i, len);
            i += len;
        } else {
            out += "\xEF\xBF\xBD";
            ++i;
        }
    }
}

}  // namespace

bool decode_long(const char* bytes, size_t n, int64_t& out) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes);
    uint64_t v = 0;
    const bool negative = n > 0 && (p[n - 1] & 0x80);
    for (size_t i = 0; i < n; ++i) {
        if (i >= 8) {
            if (p[i] != (negative ? 0xff : 0x00)) return false;
            continue;
        }
        v |= uint64_t(p[i]) << (8 * i);
    }
    if (n > 0 && n < 8 && negative) v |= ~uint64_t(0) << (8 * n);
    if (n > 8 && (int64_t(v) < 0) != negative) return false;
    out = int64_t(v);
    return true;
}

uint64_t float_bits(const char* bytes) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes);
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];
    return bits;
}

Ref ValueStore::add_text(Kind kind, const char* p, size_t n) {
    if (kind == Kind::Str) {
        const bool ascii =
            std::all_of(p, p + n, [](char c) { return static_cast<unsigned char>(c) < 0x80; });  // valid UTF-8 as it is
        const std::string_view text =
            ascii ? std::string_view(p, n) : (assign_utf8(scratch, p, n), std::string_view(scratch));
        if (const auto it = str_index.find(text); it != str_index.end()) return Ref{0, it->second, kind};
        if (ascii) scratch.assign(p, n);
    }
    if (strings.size() >= UINT32_MAX) throw MachineError{"more than 2^32 str and bytes", 0};
    const uint32_t index = uint32_t(strings.size());
    if (kind == Kind::Str)
        str_index.emplace(strings.emplace_back(scratch), index);
    else
        strings.emplace_back(p, n);
    return Ref{0, index, kind};
}

namespace {

bool same(Ref a, Ref b) { return a.kind == b.kind && a.index == b.index && a.num == b.num && a.made == b.made; }

}  // namespace

namespace {

class Machine {
public:
    Machine(ByteSource& in, ValueStore& store, const PickleLimits& limits, EventSink* sink)
        : in_(in), store_(store), limits_(limits), sink_(sink) {}

    void run() {
        read_head();
        for (;;) {
            op_at_ = in_.cursor();
            op_origin_ = in_.origin();
            const uint8_t op = uint8_t(*take(1));
            // The memo references first: most of a snapshot's opcodes are these (its frames lists).
            if (op == 'j')
                memo_get(unsigned_le<4>());  // LONG_BINGET
            else if (op == 'h')
                memo_get(unsigned_le<1>());  // BINGET
            else if (op == '.')
                break;  // STOP
            else if (op != '}' || !scanned_event())
                step(op);
        }
        if (stack_.empty() || open_mark()) fail("STOP with nothing on the stack");
        store_.root = stack_.back();
        if (sink_) check_guess();
    }

private:
    [[noreturn]] void fail(const std::string& what) {
        throw MachineError{what, ByteSource::offset_of(op_origin_, op_at_)};
    }

    void read_head() {
        op_at_ = in_.cursor();
        op_origin_ = in_.origin();
        const char* first = in_.take(1);
        if (!first) fail("the file is empty");
        const unsigned char head[2] = {uint8_t(*first), uint8_t(*first == '\x80' ? *take(1) : 0)};
        if (is_pickle_head(head, 2)) {
            store_.protocol = head[1];
            return;
        }
        if (head[0] == 0x80) fail("pickle protocol " + std::to_string(head[1]) + ": this reader takes 2 to 5");
        if (*first == '{' || *first == '[') fail("this is JSON (or text), not a pickle");
        fail(
            "not a pickle of protocol 2 to 5 (they start with the PROTO opcode, 0x80; protocols 0 and 1 are not read)");
    }

    const char* take(size_t n) {
        const char* p = in_.take(n);
        if (!p) fail("the pickle ends inside an opcode (a truncated file?)");
        return p;
    }
    // An N-byte little-endian integer (N a constant: each width its own few instructions, inlined).
    template <size_t N>
    uint64_t unsigned_le() {
        return little_endian<N>(take(N));
    }
    template <size_t N>
    size_t length() {
        const uint64_t len = unsigned_le<N>();
        if (len > (uint64_t(1) << 40)) fail("a length of " + std::to_string(len) + " bytes");
        return size_t(len);
    }

    // --- the store ---
    Container& cont(Ref r) { return const_cast<Container&>(store_.container(r)); }
    Ref new_container(Kind kind, Role role = Role::None) {
        uint32_t i;
        if (!store_.free_slots.empty()) {
            i = store_.free_slots.back();
            store_.free_slots.pop_back();
        } else {
            if (store_.containers.size() >= UINT32_MAX) fail("more than 2^32 lists, tuples and dicts");
            i = uint32_t(store_.containers.size());
            store_.containers.emplace_back();
        }
        Container& c = store_.containers[i];
        c.kind = kind;
        c.role = role;
        c.streamed = 0;
        c.memo_slot = UINT32_MAX;
        c.in_traces = has_traces_;
        return Ref{c.generation, i, kind};
    }
    // A streamed event's dict, given back: its slot reused, its memo slot forgotten.
    void free_container(Ref r) {
        Container& c = cont(r);
        c.items.clear();
        ++c.generation;
        if (c.memo_slot != UINT32_MAX) memo_.forget(c.memo_slot);
        store_.free_slots.push_back(r.index);
    }
    Ref new_text(Kind kind, size_t n) { return text_of(kind, take(n), n); }
    Ref text_of(Kind kind, const char* p, size_t n) {  // ValueStore::add_text, its refusal at this opcode
        try {
            return store_.add_text(kind, p, n);
        } catch (const MachineError& e) {
            fail(e.what);
        }
    }

    // --- the stack ---
    void push(Ref v) {
        if (int64_t(stack_.size()) >= limits_.max_stack)
            fail("more than " + std::to_string(limits_.max_stack) + " values on the stack");
        stack_.push_back(v);
    }
    bool open_mark() const { return !marks_.empty() && marks_.back() == stack_.size(); }
    Ref pop() {
        if (stack_.empty() || open_mark()) fail("an opcode takes a value from an empty stack");
        const Ref v = stack_.back();
        stack_.pop_back();
        return v;
    }
    Ref top() {
        if (stack_.empty() || open_mark()) fail("an opcode needs a value on an empty stack");
        return stack_.back();
    }
    size_t pop_mark() {
        if (marks_.empty()) fail("an opcode needs a MARK and there is none");
        const size_t m = marks_.back();
        marks_.pop_back();
        return m;
    }
    // The container the values above a popped MARK at M go into: the value below them.
    Ref container_below(size_t m, Kind kind, const char* opcode) {
        if (m == 0 || (!marks_.empty() && marks_.back() == m)) fail("an opcode needs a value on an empty stack");
        return checked(stack_[m - 1], kind, opcode);
    }
    Ref checked(Ref c, Kind kind, const char* opcode) {
        if (c.kind != kind) fail(std::string(opcode) + " onto " + a_kind(c.kind) + ", not " + a_kind(kind));
        return c;
    }

    // --- the streaming guess (see pickle_machine.h) ---
    Role role_of_new(Kind kind) {
        if (!sink_) return Role::None;
        if (kind == Kind::Dict) {
            if (!stack_.empty() || root_made_) return Role::None;
            root_made_ = true;
            return Role::Root;
        }
        if (stack_.empty()) return Role::None;
        const size_t base = marks_.empty() ? 0 : marks_.back();
        if (has_traces_) {
            const bool into_traces =
                (base > 0 && same(stack_[base - 1], traces_)) || (base < stack_.size() && same(stack_.back(), traces_));
            return into_traces ? Role::Trace : Role::None;
        }
        const bool root_value = root_made_ && base <= 1 && same(stack_[0], root_) && (stack_.size() - 1) % 2 == 1;
        if (root_value && stack_.back().kind == Kind::Str && store_.text(stack_.back()) == "device_traces")
            return Role::Traces;
        return Role::None;
    }
    void push_new_container(Kind kind) {
        const Role role = role_of_new(kind);
        const Ref r = new_container(kind, role);
        if (role == Role::Root) root_ = r;
        if (role == Role::Traces) {
            traces_ = r;
            has_traces_ = true;
        }
        if (role == Role::Trace) cont(r).device = traces_made_++;
        push(r);
    }
    // A value pushed again (memo, DUP): a freed one, or a container the guess placed, must not be.
    Ref shared(Ref v) {
        if (!v.is_container()) return v;
        const Role role = cont(v).role;
        if (role != Role::None && role != Role::Made) throw StreamFallback{};
        return v;
    }
    // What the sink made of the containers it read (ValueStore::made) goes into their memo slots (an
    // APPENDS's batch of events is parsed before it streams, so that is where the others refer to it).
    void take_made() {
        for (const Ref& m : store_.made_now) {
            Container& c = store_.containers[m.index];
            if (c.memo_slot != UINT32_MAX) memo_.put(c.memo_slot, m);
            c.memo_slot = UINT32_MAX;
            if (c.in_traces) free_container(Ref{c.generation, m.index, c.kind});
        }
        store_.made_now.clear();
    }
    void check_guess() {
        if (!has_traces_) return;
        const Ref* traces = same(store_.root, root_) ? store_.find(root_, "device_traces") : nullptr;
        if (!traces || !same(*traces, traces_) || cont(traces_).items.size() != traces_made_) throw StreamFallback{};
    }

    // --- filling containers ---
    // The list at stack_[at] takes [first, last).
    void append(size_t at, const Ref* first, const Ref* last) {
        const Ref list = stack_[at];
        const Role role = cont(list).role;
        if (role == Role::Trace) return stream(list, first, last);
        if (role == Role::Made) throw StreamFallback{};
        if (role == Role::None && made_at_once(at, first, last)) return;
        std::vector<Ref>& items = cont(list).items;
        for (const Ref* p = first; role == Role::Traces && p != last; ++p)
            if (!p->is_container() || cont(*p).role != Role::Trace ||
                cont(*p).device != items.size() + size_t(p - first))
                throw StreamFallback{};
        items.insert(items.end(), first, last);
    }
    // A list filled at once (one APPENDS of fewer than the 1,000 items Python's pickler writes in one)
    // with dicts the sink has read (frame dicts): a frames list, which the sink may read now, before
    // its items are copied, while they are at hand (EventSink::made_list). The list's place on the
    // stack then holds what the sink made of it, as its memo slot does. Should more come into it, or
    // the list be read as anything else, the reading falls back (StreamFallback).
    bool made_at_once(size_t at, const Ref* first, const Ref* last) {
        if (!sink_ || last - first >= 1000 || !cont(stack_[at]).items.empty()) return false;
        for (const Ref* p = first; p != last; ++p)
            if (!p->made || p->kind != Kind::Dict) return false;
        if (!sink_->made_list(stack_[at], first, last, store_)) return false;
        stack_[at] = store_.made_now.back();
        take_made();
        return true;
    }
    void stream(Ref list, const Ref* first, const Ref* last) {
        const uint32_t device = cont(list).device;
        for (const Ref* p = first; p != last; ++p) {
            if (p->is_container() && cont(*p).role != Role::None) throw StreamFallback{};
            sink_->trace_item(device, cont(list).streamed++, *p, store_);
            if (p->kind == Kind::Dict) free_container(*p);
        }
        take_made();  // after the batch: its later events may refer to what its first ones made
    }
    void add_pairs(Ref dict, const Ref* first, const Ref* last) {
        if ((last - first) % 2) fail("SETITEMS with an odd number of values (a key without its value)");
        Container& c = cont(dict);
        if (c.role == Role::Made) throw StreamFallback{};
        c.items.insert(c.items.end(), first, last);
    }
    // EMPTY_DICT as an item of a batch of trace events: the event dict made from a scan of its bytes
    // (io/pickle_event_scan.h) and pushed, as running its opcodes would make and push it; false: run them.
    bool scanned_event() {
        if (!sink_ || !has_traces_ || marks_.empty() || marks_.back() == 0) return false;
        const Ref list = stack_[marks_.back() - 1];
        if (!list.is_container() || store_.containers[list.index].generation != list.num ||
            cont(list).role != Role::Trace)
            return false;
        ScannedEvent& e = scanned_;
        if (!scan_event(in_.buffered(), memo_, store_, limits_, runs_, e)) return false;
        in_.skip(e.bytes);
        for (size_t i = 0; i < e.list_count; ++i) e.kv[e.lists[i].value] = made_frames(e.lists[i]);
        for (size_t i = 0; i < e.text_count; ++i) {
            const ScannedText& t = e.texts[i];
            e.kv[t.value] = text_of(Kind::Str, t.bytes.data(), t.bytes.size());
            if (t.slot != kNoSlot) memo_.put(t.slot, e.kv[t.value]);
        }
        const Ref dict = new_container(Kind::Dict);
        cont(dict).items.assign(e.kv, e.kv + 2 * e.pairs);
        for (const uint64_t slot : e.dict_slots)
            if (slot != kNoSlot) put_in_memo(slot, dict);
        push(dict);
        ++store_.events_scanned;
        return true;
    }
    // A scanned frames list, made: what the sink made of the same run before, else what it makes now
    // (or, should it decline, the list itself, as APPENDS would leave it); put in its memo slots.
    Ref made_frames(ScannedList& l) {
        Ref v{l.made ? *l.made : 0, 0, Kind::List, true};
        if (!l.made) {
            const Ref list = new_container(Kind::List);
            if (l.all_made && sink_->made_list(list, l.items.data(), l.items.data() + l.items.size(), store_)) {
                v = store_.made_now.back();
                take_made();
                runs_.add(l.run, v.num, memo_.epoch());
            } else {
                cont(list).items = l.items;
                v = list;
            }
        }
        for (const uint64_t slot : l.slots)
            if (slot != kNoSlot) put_in_memo(slot, v);
        return v;
    }

    // A container made from the values above a MARK (LIST, TUPLE, DICT, FROZENSET).
    void push_from_mark(Kind kind) {
        const size_t m = pop_mark();
        if (kind == Kind::Dict && (stack_.size() - m) % 2)
            fail("SETITEMS with an odd number of values (a key without its value)");
        const Ref r = new_container(kind);
        cont(r).items.assign(stack_.begin() + std::ptrdiff_t(m), stack_.end());
        stack_.resize(m);
        push(r);
    }
    void push_tuple_of(size_t n) {
        std::vector<Ref> items(n);
        for (size_t i = n; i-- > 0;) items[i] = pop();
        const Ref r = new_container(Kind::Tuple);
        cont(r).items = std::move(items);
        push(r);
    }

    // --- the memo ---
    void memo_put(uint64_t slot) {
        const Ref v = top();
        if (slot >= uint64_t(limits_.max_memo) || slot > memo_.size() + (uint64_t(1) << 20))
            fail("memo slot " + std::to_string(slot) + " far beyond the " + std::to_string(memo_.size()) + " in use");
        put_in_memo(slot, v);
    }
    void put_in_memo(uint64_t slot, Ref v) {
        memo_.put(slot, v);
        if (v.is_container() && slot < UINT32_MAX) cont(v).memo_slot = uint32_t(slot);
    }
    void memo_get(uint64_t slot) {
        const Ref* v = memo_.get(slot);
        if (!v && sink_ && slot < memo_.size()) throw StreamFallback{};  // maybe a freed event: ask the full reading
        if (!v) fail("memo slot " + std::to_string(slot) + " was never set");
        push(shared(*v));  // a freed one: StreamFallback
    }

    // --- scalars ---
    void push_int(int64_t v) { push(Ref{v, 0, Kind::Int}); }
    void push_long(size_t n) {  // LONG1 / LONG4: wider than 64 bits is refused
        int64_t v = 0;
        if (!decode_long(take(n), n, v)) fail("an integer wider than 64 bits");
        push_int(v);
    }
    void push_float() { push(Ref{int64_t(float_bits(take(8))), 0, Kind::Float}); }
    std::string global_name() {  // GLOBAL's "module\nname\n" as module.name
        std::string which;
        for (int lines = 0; lines < 2 && which.size() < 200;) {
            const char c = *take(1);
            if (c != '\n')
                which += c;
            else if (++lines == 1)
                which += '.';
        }
        return which;
    }
    [[noreturn]] void refuse_class(const std::string& which) {
        fail("an object of a Python class (" + which +
             "): a memory snapshot holds only dicts, lists, tuples, str, int, float, bool and None");
    }

    void step(uint8_t op) {
        if (!scalar(op) && !container_op(op) && !stack_op(op)) refuse(op);
    }
    bool scalar(uint8_t op);
    bool container_op(uint8_t op);
    bool stack_op(uint8_t op);
    [[noreturn]] void refuse(uint8_t op);

    ByteSource& in_;
    ValueStore& store_;
    const PickleLimits& limits_;
    EventSink* sink_;
    std::vector<Ref> stack_;
    std::vector<size_t> marks_;
    Memo memo_;
    RunCache runs_;                // frames lists made, by their bytes (scanned_event)
    ScannedEvent scanned_;         // the event being scanned
    const char* op_at_ = nullptr;  // the opcode being run: its offset is op_origin_ + op_at_ (ByteSource::origin)
    int64_t op_origin_ = 0;
    Ref root_, traces_;
    bool root_made_ = false, has_traces_ = false;
    uint32_t traces_made_ = 0;
};

// None, bool, int, float, str, bytes.
bool Machine::scalar(uint8_t op) {
    switch (op) {
        case 'N': push(Ref{}); return true;
        case 0x88:
        case 0x89: push(Ref{op == 0x88, 0, Kind::Bool}); return true;          // NEWTRUE, NEWFALSE
        case 'J': push_int(int32_t(uint32_t(unsigned_le<4>()))); return true;  // BININT
        case 'K': push_int(int64_t(unsigned_le<1>())); return true;            // BININT1
        case 'M': push_int(int64_t(unsigned_le<2>())); return true;            // BININT2
        case 0x8a: push_long(length<1>()); return true;                        // LONG1
        case 0x8b: push_long(length<4>()); return true;                        // LONG4
        case 'G': push_float(); return true;                                   // BINFLOAT
        case 0x8c: push(new_text(Kind::Str, length<1>())); return true;        // SHORT_BINUNICODE
        case 'X': push(new_text(Kind::Str, length<4>())); return true;         // BINUNICODE
        case 0x8d: push(new_text(Kind::Str, length<8>())); return true;        // BINUNICODE8
        case 'C': push(new_text(Kind::Bytes, length<1>())); return true;       // SHORT_BINBYTES
        case 'B': push(new_text(Kind::Bytes, length<4>())); return true;       // BINBYTES
        case 0x8e:
        case 0x96: push(new_text(Kind::Bytes, length<8>())); return true;  // BINBYTES8, BYTEARRAY8
        default: return false;
    }
}

// Lists, tuples, dicts (and sets, read as lists): made empty or from a MARK, and filled.
bool Machine::container_op(uint8_t op) {
    switch (op) {
        case ']': push_new_container(Kind::List); return true;    // EMPTY_LIST
        case 0x8f: push(new_container(Kind::List)); return true;  // EMPTY_SET
        case '}': push_new_container(Kind::Dict); return true;    // EMPTY_DICT
        case ')': push(new_container(Kind::Tuple)); return true;  // EMPTY_TUPLE
        case 'l':
        case 0x91: push_from_mark(Kind::List); return true;  // LIST, FROZENSET
        case 't': push_from_mark(Kind::Tuple); return true;  // TUPLE
        case 0x85:
        case 0x86:
        case 0x87: push_tuple_of(op - 0x84u); return true;  // TUPLE1, TUPLE2, TUPLE3
        case 'd': push_from_mark(Kind::Dict); return true;  // DICT
        case 'a': {                                         // APPEND
            const Ref item = pop();
            checked(top(), Kind::List, "APPEND");
            append(stack_.size() - 1, &item, &item + 1);
            return true;
        }
        case 'e':
        case 0x90: {  // APPENDS, ADDITEMS
            const size_t m = pop_mark();
            container_below(m, Kind::List, op == 'e' ? "APPENDS" : "ADDITEMS");
            append(m - 1, stack_.data() + m, stack_.data() + stack_.size());
            stack_.resize(m);
            return true;
        }
        case 's': {  // SETITEM
            const Ref value = pop();
            const Ref key = pop();
            const Ref kv[2] = {key, value};
            add_pairs(checked(top(), Kind::Dict, "SETITEM"), kv, kv + 2);
            return true;
        }
        case 'u': {  // SETITEMS
            const size_t m = pop_mark();
            const Ref dict = container_below(m, Kind::Dict, "SETITEMS");
            add_pairs(dict, stack_.data() + m, stack_.data() + stack_.size());
            stack_.resize(m);
            return true;
        }
        default: return false;
    }
}

// The stack, the marks, the memo and the frames.
bool Machine::stack_op(uint8_t op) {
    switch (op) {
        case 0x95: length<8>(); return true;  // FRAME: the opcodes that follow, grouped; nothing to do
        case '(':                             // MARK
            if (int64_t(marks_.size()) >= limits_.max_marks)
                fail("more than " + std::to_string(limits_.max_marks) + " open MARKs");
            marks_.push_back(stack_.size());
            return true;
        case 'q': memo_put(unsigned_le<1>()); return true;  // BINPUT
        case 'r': memo_put(unsigned_le<4>()); return true;  // LONG_BINPUT
        case 0x94: memo_put(memo_.size()); return true;     // MEMOIZE
        case '0':                                           // POP (a MARK on top goes instead)
            if (open_mark())
                marks_.pop_back();
            else
                pop();
            return true;
        case '1': stack_.resize(pop_mark()); return true;  // POP_MARK
        case '2': push(shared(top())); return true;        // DUP
        default: return false;
    }
}

// What is not plain data, or not of protocols 2 to 5, named.
void Machine::refuse(uint8_t op) {
    switch (op) {
        case 'c': refuse_class(global_name());  // GLOBAL module\nname\n
        case 0x93: {                            // STACK_GLOBAL
            const Ref name = pop();
            const Ref module = pop();
            refuse_class(module.kind == Kind::Str && name.kind == Kind::Str
                             ? store_.text(module) + "." + store_.text(name)
                             : "STACK_GLOBAL");
        }
        case 'R': refuse_class("REDUCE");
        case 0x81: refuse_class("NEWOBJ");
        case 0x92: refuse_class("NEWOBJ_EX");
        case 'b': refuse_class("BUILD");
        case 'i':
        case 'o': refuse_class("INST/OBJ");
        case 0x82:
        case 0x83:
        case 0x84: refuse_class("EXT");
        case 'P':
        case 'Q': fail("a persistent id (PERSID): not plain data");
        case 0x97:
        case 0x98: fail("an out-of-band buffer (protocol 5's NEXT_BUFFER/READONLY_BUFFER): not in a file");
        case 'I':
        case 'L':
        case 'S':
        case 'V':
        case 'F':
        case 'p':
        case 'g':
        case 'T':
        case 'U': fail(std::string("opcode '") + char(op) + "' of pickle protocol 0 or 1: this reader takes 2 to 5");
        default: {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", op);
            fail(std::string("unknown opcode ") + hex + " (not a pickle, or a damaged one)");
        }
    }
}

}  // namespace

void run_pickle(ByteSource& in, ValueStore& store, const PickleLimits& limits, EventSink* sink) {
    Machine machine(in, store, limits, sink);
    machine.run();
}

}  // namespace awb::pickle
