// Stage 2 of the trace importer, the structural scan: where a JSON value ends (strings, escapes and
// nesting only; simdjson validates the contents later), so the reader can find the top-level keys and
// cut "traceEvents" into event objects without parsing the whole file.
#pragma once

#include <cstddef>

#include "io/trace_input.h"

namespace awb::trace_io {

inline constexpr size_t kMore = size_t(-1);  // the value runs past the bytes at hand

inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The next character after whitespace (reading more as needed), or -1 at the end of the input.
int peek(TraceInput& in);

// One past the closing quote of the string whose contents start at i, or kMore.
size_t string_end(const char* b, size_t i, size_t end);

// The extent of the value at `from`: one past its last byte, or kMore when it runs past `end`.
size_t scan_value(const char* b, size_t from, size_t end);

// The end of the value at in.pos, reading more as needed; a value cut off by the end of the file fails
// (ReadError naming `what`, "an event").
size_t value_end(TraceInput& in, const char* what);

}  // namespace awb::trace_io
