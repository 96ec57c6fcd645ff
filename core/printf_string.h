// snprintf into a std::string, for the text the core writes (tables, findings, reports).
#pragma once

#include <cstdio>
#include <string>

namespace awb {

template <typename... Args>
std::string printf_string(const char* format, Args... args) {
    char buf[512];
    std::snprintf(buf, sizeof buf, format, args...);
    return buf;
}

}  // namespace awb
