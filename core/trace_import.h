// Reading chrome-trace JSON (PyTorch/Kineto's export_chrome_trace layout, and ours) into a Trace:
// streamed through a SAX parser from .json or .json.gz (zlib inflates as it reads; the file is never
// held whole in memory). This first reader keeps complete events (ph "X"), [memory] instants and
// baseTimeNanoseconds; flows, counters and metadata are skipped. Pure C++ (nlohmann + zlib).
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

#include "run_observer.h"
#include "trace.h"

namespace awb {

// A file that is not a readable trace; what() names the file, the problem and the byte offset.
class TraceImportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ImportedTrace {
    Trace trace;
    std::string trace_name;      // "traceName", when present
    nlohmann::json extra;        // top-level "attention_workbench" object (spec, environment), when present
    int64_t bytes_read = 0;      // uncompressed JSON bytes
};

// Progress is reported in uncompressed MiB read; cancel is polled every few thousand events.
ImportedTrace import_chrome_trace(const std::string& path, RunObserver* observer = nullptr);

// True when the file starts like a chrome trace ('[' or an object with "traceEvents" near the start).
bool looks_like_chrome_trace(const std::string& path);

}  // namespace awb
