#include "io/pickle_reader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "io/trace_input.h"

namespace awb::pickle {

const char* kind_name(Kind kind) {
    switch (kind) {
        case Kind::None: return "None";
        case Kind::Bool: return "bool";
        case Kind::Int: return "int";
        case Kind::Float: return "float";
        case Kind::Str: return "str";
        case Kind::Bytes: return "bytes";
        case Kind::List: return "list";
        case Kind::Tuple: return "tuple";
        case Kind::Dict: return "dict";
    }
    return "?";
}

std::string a_kind(Kind kind) { return std::string(kind == Kind::Int ? "an " : "a ") + kind_name(kind); }

const PickleValue* PickleValue::find(std::string_view key) const {
    if (kind != Kind::Dict) return nullptr;
    for (size_t i = 0; i + 1 < items.size(); i += 2)
        if (items[i]->kind == Kind::Str && items[i]->text == key) return items[i + 1];
    return nullptr;
}

PickleError::PickleError(const std::string& what, int64_t offset)
    : std::runtime_error(what + " (byte offset " + std::to_string(offset) + ")"), offset_(offset) {}

namespace {

// The bytes of the pickle: take(n) gives the next n, or nullptr at the end of the input.
class MemorySource {
public:
    explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
    const char* take(size_t n) {
        if (bytes_.size() - pos_ < n) return nullptr;
        const char* p = bytes_.data() + pos_;
        pos_ += n;
        return p;
    }
    int64_t offset() const { return int64_t(pos_); }

private:
    std::string_view bytes_;
    size_t pos_ = 0;
};

class FileSource {
public:
    explicit FileSource(trace_io::TraceInput& in) : in_(in) {}
    const char* take(size_t n) {
        while (in_.size() - in_.pos < n)
            if (!in_.fill()) return nullptr;
        const char* p = in_.data() + in_.pos;
        in_.pos += n;
        return p;
    }
    int64_t offset() const { return in_.offset(in_.pos); }

private:
    trace_io::TraceInput& in_;
};

// str as valid UTF-8: Python writes str with surrogatepass, so a lone surrogate (or a damaged byte)
// would make invalid UTF-8; each such byte becomes U+FFFD, as Python's errors="replace" does.
void assign_utf8(std::string& out, const char* p, size_t n) {
    out.clear();
    out.reserve(n);
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    size_t i = 0;
    while (i < n) {
        const unsigned char c = u[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
        bool ok = len > 0 && i + len <= n;
        for (size_t k = 1; ok && k < len; ++k) ok = (u[i + k] & 0xc0) == 0x80;
        if (ok && len > 1) {  // no overlong forms, no surrogates, nothing above U+10FFFF
            uint32_t cp = c & (0xff >> (len + 1));
            for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (u[i + k] & 0x3f);
            ok = cp >= (len == 2 ? 0x80u : len == 3 ? 0x800u : 0x10000u) && (cp < 0xd800 || cp > 0xdfff) && cp <= 0x10ffff;
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

// Raised inside the machine with the offset of the opcode being run; the callers add the file's name.
struct MachineError {
    std::string what;
    int64_t offset;
};

template <class Source>
class Machine {
public:
    Machine(Source& in, PickleDocument& doc, const PickleLimits& limits) : in_(in), doc_(doc), limits_(limits) {}

    const PickleValue* run() {
        op_offset_ = in_.offset();
        const char* first = in_.take(1);
        if (!first) fail("the file is empty");
        if (uint8_t(*first) != 0x80) {
            if (*first == '{' || *first == '[') fail("this is JSON (or text), not a pickle");
            fail("not a pickle of protocol 2 to 5 (they start with the PROTO opcode, 0x80; protocols 0 and 1 are not read)");
        }
        doc_.protocol = uint8_t(*take(1));
        if (doc_.protocol < 2 || doc_.protocol > 5) fail("pickle protocol " + std::to_string(doc_.protocol) + ": this reader takes 2 to 5");
        for (;;) {
            op_offset_ = in_.offset();
            const uint8_t op = uint8_t(*take(1));
            if (op == '.') break;  // STOP
            step(op);
        }
        if (stack_.empty() || open_mark()) fail("STOP with nothing on the stack");
        return stack_.back();
    }

private:
    [[noreturn]] void fail(const std::string& what) { throw MachineError{what, op_offset_}; }

    const char* take(size_t n) {
        const char* p = in_.take(n);
        if (!p) fail("the pickle ends inside an opcode (a truncated file?)");
        return p;
    }
    uint64_t unsigned_le(size_t n) {
        const auto* p = reinterpret_cast<const unsigned char*>(take(n));
        uint64_t v = 0;
        for (size_t i = n; i-- > 0;) v = (v << 8) | p[i];
        return v;
    }
    size_t length(size_t n) {
        const uint64_t len = unsigned_le(n);
        if (len > (uint64_t(1) << 40)) fail("a length of " + std::to_string(len) + " bytes");
        return size_t(len);
    }

    PickleValue* make(Kind kind) {
        PickleValue& v = doc_.arena.emplace_back();
        v.kind = kind;
        return &v;
    }
    void push(PickleValue* v) {
        if (int64_t(stack_.size()) >= limits_.max_stack) fail("more than " + std::to_string(limits_.max_stack) + " values on the stack");
        stack_.push_back(v);
    }
    bool open_mark() const { return !marks_.empty() && marks_.back() == stack_.size(); }
    PickleValue* pop() {
        if (stack_.empty() || open_mark()) fail("an opcode takes a value from an empty stack");
        PickleValue* v = stack_.back();
        stack_.pop_back();
        return v;
    }
    PickleValue* top() {
        if (stack_.empty() || open_mark()) fail("an opcode needs a value on an empty stack");
        return stack_.back();
    }
    size_t pop_mark() {
        if (marks_.empty()) fail("an opcode needs a MARK and there is none");
        const size_t m = marks_.back();
        marks_.pop_back();
        return m;
    }
    PickleValue* container(Kind kind, const char* opcode) {
        PickleValue* c = top();
        if (c->kind != kind)
            fail(std::string(opcode) + " onto " + a_kind(c->kind) + ", not " + a_kind(kind));
        return c;
    }
    // The values pushed since the last MARK, taken off the stack (and the MARK with them).
    std::vector<const PickleValue*> since_mark() {
        const size_t m = pop_mark();
        std::vector<const PickleValue*> items(stack_.begin() + std::ptrdiff_t(m), stack_.end());
        stack_.resize(m);
        return items;
    }
    void add_pairs(PickleValue* dict, const std::vector<const PickleValue*>& items) {
        if (items.size() % 2) fail("SETITEMS with an odd number of values (a key without its value)");
        dict->items.insert(dict->items.end(), items.begin(), items.end());
    }
    void memo_put(uint64_t slot) {
        PickleValue* v = top();
        if (slot >= uint64_t(limits_.max_memo) || slot > memo_.size() + (size_t(1) << 20))
            fail("memo slot " + std::to_string(slot) + " far beyond the " + std::to_string(memo_.size()) + " in use");
        if (slot >= memo_.size()) memo_.resize(size_t(slot) + 1, nullptr);
        memo_[size_t(slot)] = v;
    }
    void memo_get(uint64_t slot) {
        if (slot >= memo_.size() || !memo_[size_t(slot)]) fail("memo slot " + std::to_string(slot) + " was never set");
        push(memo_[size_t(slot)]);
    }
    void push_int(int64_t v) {
        PickleValue* p = make(Kind::Int);
        p->integer = v;
        push(p);
    }
    // LONG1 / LONG4: little-endian two's complement of n bytes; wider than 64 bits is refused.
    void push_long(size_t n) {
        const auto* p = reinterpret_cast<const unsigned char*>(take(n));
        uint64_t v = 0;
        const bool negative = n > 0 && (p[n - 1] & 0x80);
        for (size_t i = 0; i < n; ++i) {
            if (i >= 8) {
                if (p[i] != (negative ? 0xff : 0x00)) fail("an integer wider than 64 bits");
                continue;
            }
            v |= uint64_t(p[i]) << (8 * i);
        }
        if (n > 0 && n < 8 && negative) v |= ~uint64_t(0) << (8 * n);
        if (n > 8 && (int64_t(v) < 0) != negative) fail("an integer wider than 64 bits");
        push_int(int64_t(v));
    }
    void push_float() {  // big-endian IEEE 754
        const auto* p = reinterpret_cast<const unsigned char*>(take(8));
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];
        PickleValue* v = make(Kind::Float);
        std::memcpy(&v->real, &bits, sizeof bits);
        push(v);
    }
    std::string global_name() {  // GLOBAL's "module\nname\n" as module.name
        std::string which;
        for (int lines = 0; lines < 2 && which.size() < 200;) {
            const char c = *take(1);
            if (c != '\n') which += c;
            else if (++lines == 1) which += '.';
        }
        return which;
    }
    void push_text(Kind kind, size_t n) {
        PickleValue* v = make(kind);
        if (kind == Kind::Str) assign_utf8(v->text, take(n), n);
        else v->text.assign(take(n), n);
        push(v);
    }
    void push_tuple(std::vector<const PickleValue*> items) {
        PickleValue* t = make(Kind::Tuple);
        t->items = std::move(items);
        push(t);
    }
    void push_tuple_of(size_t n) {
        std::vector<const PickleValue*> items(n);
        for (size_t i = n; i-- > 0;) items[i] = pop();
        push_tuple(std::move(items));
    }
    [[noreturn]] void refuse_class(const std::string& which) {
        fail("an object of a Python class (" + which + "): a memory snapshot holds only dicts, lists, tuples, str, int, float, bool and None");
    }

    void step(uint8_t op);
    bool scalar(uint8_t op);
    bool container_op(uint8_t op);
    bool stack_op(uint8_t op);
    [[noreturn]] void refuse(uint8_t op);

    Source& in_;
    PickleDocument& doc_;
    const PickleLimits& limits_;
    std::vector<PickleValue*> stack_;
    std::vector<size_t> marks_;
    std::vector<PickleValue*> memo_;
    int64_t op_offset_ = 0;
};

// The opcodes by what they do; each returns false for an opcode that is not its kind.
template <class Source>
void Machine<Source>::step(uint8_t op) {
    if (!scalar(op) && !container_op(op) && !stack_op(op)) refuse(op);
}

// None, bool, int, float, str, bytes.
template <class Source>
bool Machine<Source>::scalar(uint8_t op) {
    switch (op) {
        case 'N': push(make(Kind::None)); return true;
        case 0x88: case 0x89: {  // NEWTRUE, NEWFALSE
            PickleValue* v = make(Kind::Bool);
            v->boolean = op == 0x88;
            push(v);
            return true;
        }
        case 'J': push_int(int32_t(uint32_t(unsigned_le(4)))); return true;  // BININT
        case 'K': push_int(int64_t(unsigned_le(1))); return true;           // BININT1
        case 'M': push_int(int64_t(unsigned_le(2))); return true;           // BININT2
        case 0x8a: push_long(length(1)); return true;                       // LONG1
        case 0x8b: push_long(length(4)); return true;                       // LONG4
        case 'G': push_float(); return true;                                // BINFLOAT
        case 0x8c: push_text(Kind::Str, length(1)); return true;            // SHORT_BINUNICODE
        case 'X': push_text(Kind::Str, length(4)); return true;             // BINUNICODE
        case 0x8d: push_text(Kind::Str, length(8)); return true;            // BINUNICODE8
        case 'C': push_text(Kind::Bytes, length(1)); return true;           // SHORT_BINBYTES
        case 'B': push_text(Kind::Bytes, length(4)); return true;           // BINBYTES
        case 0x8e: case 0x96: push_text(Kind::Bytes, length(8)); return true;  // BINBYTES8, BYTEARRAY8
        default: return false;
    }
}

// Lists, tuples, dicts (and sets, read as lists): made empty or from a MARK, and filled.
template <class Source>
bool Machine<Source>::container_op(uint8_t op) {
    switch (op) {
        case ']': case 0x8f: push(make(Kind::List)); return true;  // EMPTY_LIST, EMPTY_SET
        case '}': push(make(Kind::Dict)); return true;             // EMPTY_DICT
        case ')': push_tuple({}); return true;                     // EMPTY_TUPLE
        case 'l': case 0x91: {                                     // LIST, FROZENSET
            PickleValue* v = make(Kind::List);
            v->items = since_mark();
            push(v);
            return true;
        }
        case 't': push_tuple(since_mark()); return true;  // TUPLE
        case 0x85: push_tuple_of(1); return true;         // TUPLE1
        case 0x86: push_tuple_of(2); return true;         // TUPLE2
        case 0x87: push_tuple_of(3); return true;         // TUPLE3
        case 'd': {                                       // DICT
            auto items = since_mark();
            PickleValue* v = make(Kind::Dict);
            add_pairs(v, items);
            push(v);
            return true;
        }
        case 'a': {  // APPEND
            PickleValue* item = pop();
            container(Kind::List, "APPEND")->items.push_back(item);
            return true;
        }
        case 'e': case 0x90: {  // APPENDS, ADDITEMS
            auto items = since_mark();
            PickleValue* list = container(Kind::List, op == 'e' ? "APPENDS" : "ADDITEMS");
            list->items.insert(list->items.end(), items.begin(), items.end());
            return true;
        }
        case 's': {  // SETITEM
            PickleValue* value = pop();
            PickleValue* key = pop();
            add_pairs(container(Kind::Dict, "SETITEM"), {key, value});
            return true;
        }
        case 'u': {  // SETITEMS
            auto items = since_mark();
            add_pairs(container(Kind::Dict, "SETITEMS"), items);
            return true;
        }
        default: return false;
    }
}

// The stack, the marks, the memo and the frames.
template <class Source>
bool Machine<Source>::stack_op(uint8_t op) {
    switch (op) {
        case 0x95: length(8); return true;  // FRAME: the opcodes that follow, grouped; nothing to do
        case '(':                           // MARK
            if (int64_t(marks_.size()) >= limits_.max_marks) fail("more than " + std::to_string(limits_.max_marks) + " open MARKs");
            marks_.push_back(stack_.size());
            return true;
        case 'q': memo_put(unsigned_le(1)); return true;  // BINPUT
        case 'r': memo_put(unsigned_le(4)); return true;  // LONG_BINPUT
        case 0x94: memo_put(memo_.size()); return true;   // MEMOIZE
        case 'h': memo_get(unsigned_le(1)); return true;  // BINGET
        case 'j': memo_get(unsigned_le(4)); return true;  // LONG_BINGET
        case '0':                                         // POP (a MARK on top goes instead)
            if (open_mark()) marks_.pop_back();
            else pop();
            return true;
        case '1': stack_.resize(pop_mark()); return true;  // POP_MARK
        case '2': push(top()); return true;                // DUP
        default: return false;
    }
}

// What is not plain data, or not of protocols 2 to 5, named.
template <class Source>
void Machine<Source>::refuse(uint8_t op) {
    switch (op) {
        case 'c': refuse_class(global_name());  // GLOBAL module\nname\n
        case 0x93: {                            // STACK_GLOBAL
            const PickleValue* name = pop();
            const PickleValue* module = pop();
            refuse_class(module->kind == Kind::Str && name->kind == Kind::Str ? module->text + "." + name->text : "STACK_GLOBAL");
        }
        case 'R': refuse_class("REDUCE");
        case 0x81: refuse_class("NEWOBJ");
        case 0x92: refuse_class("NEWOBJ_EX");
        case 'b': refuse_class("BUILD");
        case 'i': case 'o': refuse_class("INST/OBJ");
        case 0x82: case 0x83: case 0x84: refuse_class("EXT");
        case 'P': case 'Q': fail("a persistent id (PERSID): not plain data");
        case 0x97: case 0x98: fail("an out-of-band buffer (protocol 5's NEXT_BUFFER/READONLY_BUFFER): not in a file");
        case 'I': case 'L': case 'S': case 'V': case 'F': case 'p': case 'g': case 'T': case 'U':
            fail(std::string("opcode '") + char(op) + "' of pickle protocol 0 or 1: this reader takes 2 to 5");
        default: {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", op);
            fail(std::string("unknown opcode ") + hex + " (not a pickle, or a damaged one)");
        }
    }
}

template <class Source>
PickleDocument run_machine(Source& source, const PickleLimits& limits) {
    PickleDocument doc;
    Machine<Source> machine(source, doc, limits);
    doc.root = machine.run();
    return doc;
}

}  // namespace

PickleDocument read_pickle_bytes(std::string_view bytes, const PickleLimits& limits) {
    MemorySource source(bytes);
    try {
        return run_machine(source, limits);
    } catch (const MachineError& e) {
        throw PickleError(e.what, e.offset);
    }
}

bool is_pickle_file(const std::string& path) {
    // A regular file only: opening a pipe to look would take bytes its reader needs (and a pipe
    // opened and closed lets its writer go on with nobody reading).
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return false;
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) return false;
    unsigned char head[2] = {0, 0};
    const int n = gzread(f, head, 2);
    gzclose(f);
    return n == 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5;
}

PickleDocument read_pickle_file(const std::string& path, const PickleLimits& limits) {
    trace_io::TraceInput in(path);
    if (!in.ok()) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno ? errno : ENOENT));
    FileSource source(in);
    try {
        return run_machine(source, limits);
    } catch (const MachineError& e) {
        throw PickleError(path + ": " + e.what, e.offset);
    } catch (const trace_io::ReadError& e) {  // the gzip stream: its message has its offset already
        throw PickleError(path + ": " + e.what.substr(0, e.what.rfind(" (byte offset ")), in.offset(in.pos));
    }
}

}  // namespace awb::pickle
