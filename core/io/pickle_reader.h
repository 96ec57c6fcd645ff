// A reader for Python pickles of plain data, protocols 2 to 5, plain or gzip, without Python: what
// torch.cuda.memory._dump_snapshot writes (dicts, lists, tuples, str, int, float, bool, None, shared
// through the memo, in frames). Objects of classes (GLOBAL, REDUCE, ...), out-of-band buffers and
// protocols 0 and 1 are refused by name. Streaming: the file is inflated and decoded as it is read,
// never held whole (io/pickle_machine.h runs it). The values live in one arena owned by the PickleDocument, so shared
// and even
// cyclic references (which a damaged file can make) cost no ownership cycles; code that walks the
// values bounds its depth (PickleValue::kMaxWalkDepth).
#pragma once

#include <cstdint>
#include <deque>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace awb::pickle {

enum class Kind : uint8_t { None, Bool, Int, Float, Str, Bytes, List, Tuple, Dict };
const char* kind_name(Kind kind);
std::string a_kind(Kind kind);  // "an int", "a list", ...: for messages

struct PickleValue {
    static constexpr int kMaxWalkDepth = 256;
    Kind kind = Kind::None;
    bool boolean = false;
    int64_t integer = 0;
    double real = 0;
    std::string text;                       // Str (valid UTF-8: what is not becomes U+FFFD), Bytes
    std::vector<const PickleValue*> items;  // List, Tuple: the elements; Dict: key, value, key, value, ...

    // A Dict's value under a str key (the last one when repeated, as Python keeps); nullptr when absent or not a Dict.
    const PickleValue* find(std::string_view key) const;
    size_t size() const { return kind == Kind::Dict ? items.size() / 2 : items.size(); }
};

struct PickleDocument {
    std::deque<PickleValue> arena;  // every value, in the order it was made
    const PickleValue* root = nullptr;
    int protocol = 0;
};

struct PickleLimits {
    int64_t max_stack = int64_t(1) << 26;  // values on the machine's stack at once
    int64_t max_marks = 100000;            // open MARKs (nesting of containers being filled)
    int64_t max_memo = int64_t(1) << 31;   // memo slots
};

// A damaged or unsupported pickle: what, at which byte offset of the (uncompressed) stream.
class PickleError : public std::runtime_error {
public:
    PickleError(const std::string& what, int64_t offset);
    int64_t offset() const { return offset_; }

private:
    int64_t offset_;
};

// Whether PATH, a regular file (plain or gzip), starts as a pickle of protocol 2 or later does (the
// PROTO opcode). A pipe is never looked into: false.
bool is_pickle_file(const std::string& path);

// Reads the pickle in PATH (gzip or plain). Throws PickleError naming the file, or std::runtime_error
// when it cannot be opened.
PickleDocument read_pickle_file(const std::string& path, const PickleLimits& limits = {});
// The same from bytes in memory (the fuzzer's and the tests' way in).
PickleDocument read_pickle_bytes(std::string_view bytes, const PickleLimits& limits = {});

}  // namespace awb::pickle
