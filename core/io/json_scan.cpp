#include "io/json_scan.h"

#include <cstdint>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

namespace {

// One 64-byte block's characters of interest, bit i for b[i]: quotes, backslashes, '{' or '[' and
// '}' or ']' ((c | 0x20) folds '[' onto '{' and ']' onto '}').
struct BlockMasks {
    uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

BlockMasks masks_of(const char* p) {
    BlockMasks m;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), fold = _mm_set1_epi8(0x20),
                  open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
    for (int k = 0; k < 4; ++k) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
        const __m128i folded = _mm_or_si128(v, fold);
        auto bits = [k](__m128i eq) { return uint64_t(uint16_t(_mm_movemask_epi8(eq))) << (16 * k); };
        m.quote |= bits(_mm_cmpeq_epi8(v, quote));
        m.backslash |= bits(_mm_cmpeq_epi8(v, backslash));
        m.open |= bits(_mm_cmpeq_epi8(folded, open));
        m.close |= bits(_mm_cmpeq_epi8(folded, close));
    }
#else
    for (int i = 0; i < 64; ++i) {
        const uint64_t bit = uint64_t(1) << i;
        const char c = p[i];
        if (c == '"') m.quote |= bit;
        if (c == '\\') m.backslash |= bit;
        if ((c | 0x20) == '{') m.open |= bit;
        if ((c | 0x20) == '}') m.close |= bit;
    }
#endif
    return m;
}

// Bit i set when an odd number of bits 0..i are: inside a string, counting its opening quote.
uint64_t prefix_xor(uint64_t x) {
    for (int shift = 1; shift < 64; shift *= 2) x ^= x << shift;
    return x;
}

// The characters a backslash escapes, for the few blocks that hold one (or follow one ending a block).
uint64_t escaped_of(const char* p, bool& escape) {
    uint64_t escaped = 0;
    for (int i = 0; i < 64; ++i) {
        if (escape) {
            escaped |= uint64_t(1) << i;
            escape = false;
        } else if (p[i] == '\\') {
            escape = true;
        }
    }
    return escaped;
}

// The end of the object or list at `from`, 64 bytes at a time: strings found from their unescaped
// quotes (a prefix XOR), then only the brackets outside them are walked for the depth.
size_t nested_end(const char* b, size_t from, size_t end) {
    int64_t depth = 0;
    uint64_t in_string = 0;  // all ones while a string runs on from the previous block
    bool escape = false;     // the previous block ended in a backslash
    char tail[64];
    for (size_t at = from; at < end; at += 64) {
        const char* p = b + at;
        if (end - at < 64) {  // the last bytes at hand: padded with spaces, nothing read past `end`
            std::memcpy(tail, p, end - at);
            std::memset(tail + (end - at), ' ', 64 - (end - at));
            p = tail;
        }
        BlockMasks m = masks_of(p);
        if (m.backslash || escape) m.quote &= ~escaped_of(p, escape);
        const uint64_t strings = prefix_xor(m.quote) ^ in_string;
        in_string = uint64_t(-(int64_t(strings >> 63)));
        for (uint64_t brackets = (m.open | m.close) & ~strings; brackets; brackets &= brackets - 1) {
            const int i = __builtin_ctzll(brackets);
            if (m.open >> i & 1) {
                ++depth;
            } else if (--depth == 0) {
                return at + size_t(i) + 1;
            }
        }
    }
    return kMore;
}

}  // namespace

// Structure only: the extent of the value at `from` (strings and nesting; simdjson validates the
// contents later). kMore when the value runs past `end`.
size_t scan_value(const char* b, size_t from, size_t end) {
    const char c = b[from];
    if (c == '"') return string_end(b, from + 1, end);
    if (c == '{' || c == '[') return nested_end(b, from, end);
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
            fail(std::string("the file ends inside ") + what + " that starts at byte offset " +
                     std::to_string(in.offset(in.pos)) + " (truncated?)",
                 in.offset(in.pos + pending));
        }
    }
}

}  // namespace awb::trace_io
