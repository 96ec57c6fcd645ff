// snprintf into a std::string, and joining parts, for the text the core writes (tables, findings, reports).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace awb {

template <typename... Args>
std::string printf_string(const char* format, Args... args) {
    // A format with nothing to format is its own text (and -Wformat-security warns of it).
    static_assert(sizeof...(Args) > 0, "printf_string without arguments: use the text itself");
    char buf[512];
    const int n = std::snprintf(buf, sizeof buf, format, args...);
    if (n < int(sizeof buf)) return n < 0 ? std::string() : std::string(buf, size_t(n));
    std::string out(size_t(n), '\0');  // a long one: the exact size, written again
    std::snprintf(out.data(), out.size() + 1, format, args...);
    return out;
}

inline std::string join(const std::vector<std::string>& parts, const std::string& sep = "; ") {
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
    return out;
}

// Long names (C++ kernel signatures run to 1,000+ characters) cut in the middle, where they differ
// least: the head names the kernel, the tail its template arguments' end. "..." marks the cut.
inline std::string elide_middle(const std::string& s, size_t max_chars) {
    if (s.size() <= max_chars || max_chars < 8) return s;
    const size_t tail = (max_chars - 3) / 3, head = max_chars - 3 - tail;
    return s.substr(0, head) + "..." + s.substr(s.size() - tail);
}

}  // namespace awb
