#include "io/json_scan.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace awb::trace_io {

// The next character after whitespace (reading more as needed), or -1 at the end of the input.
int peek(TraceInput& in) {
    for (;;) {
        const char* d = in.data();
        while (in.pos < in.size()) {
            if (!is_space(d[in.pos])) return static_cast<unsigned char>(d[in.pos]);
            ++in.pos;
        }
        if (!in.fill()) return -1;
    }
}

// One past the closing quote of the string whose contents start at i, or kMore.
size_t string_end(const char* b, size_t i, size_t end) {
    const size_t first = i;
    while (i < end) {
        const void* q = std::memchr(b + i, '"', end - i);
        if (!q) return kMore;
        const size_t k = size_t(static_cast<const char*>(q) - b);
        size_t backslashes = 0;
        while (k - backslashes > first && b[k - 1 - backslashes] == '\\') ++backslashes;
        if (backslashes % 2 == 0) return k + 1;
        i = k + 1;
    }
    return kMore;
}

// Structure only: the extent of the value at `from` (strings and nesting; simdjson validates the
// contents later). kMore when the value runs past `end`.
size_t scan_value(const char* b, size_t from, size_t end) {
    const char c = b[from];
    if (c == '"') return string_end(b, from + 1, end);
    if (c == '{' || c == '[') {
        int64_t depth = 0;
        for (size_t i = from; i < end;) {
            const char ch = b[i];
            if (ch == '"') {
                i = string_end(b, i + 1, end);
                if (i == kMore) return kMore;
                continue;
            }
            if (ch == '{' || ch == '[') {
                ++depth;
            } else if (ch == '}' || ch == ']') {
                if (--depth == 0) return i + 1;
            }
            ++i;
        }
        return kMore;
    }
    size_t i = from;
    while (i < end && !is_space(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']') ++i;
    return i == end ? kMore : i;
}

// The end of the value at in.pos, reading more as needed; a value cut off by the end of the file fails.
size_t value_end(TraceInput& in, const char* what) {
    for (;;) {
        const size_t end = scan_value(in.data(), in.pos, in.size());
        if (end != kMore) return end;
        const size_t pending = in.size() - in.pos;
        if (!in.fill()) {
            const char c = in.data()[in.pos];
            if (c != '"' && c != '{' && c != '[') return in.size();  // a number or literal ends the file
            fail(std::string("the file ends inside ") + what + " that starts at byte offset " + std::to_string(in.offset(in.pos)) +
                     " (truncated?)",
                 in.offset(in.pos + pending));
        }
    }
}

}  // namespace awb::trace_io
