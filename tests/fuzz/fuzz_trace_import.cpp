// libFuzzer target for the chrome-trace importer. Each input is a file (fuzz_input.h):
// plain JSON and gzip both go through zlib's gzopen. A bad trace must end in awb::TraceImportError;
// any other exception, a crash, a sanitizer report, a hang or a broken Trace invariant is a finding.
// Built by tests/fuzz/CMakeLists.txt (clang, -fsanitize=fuzzer,address,undefined), run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_input.h"
#include "io/trace_import.h"
#include "model/trace.h"

namespace {

[[noreturn]] void broken(const char* what, size_t index) {
    std::fprintf(stderr, "fuzz_trace_import: Trace invariant broken at event %zu: %s\n", index, what);
    std::abort();
}

// Reads everything a consumer of the Trace reads (the timeline, the operator table), and checks
// what Trace::build promises: sorted by (start, -end), parents precede children and enclose them.
void touch(const awb::ImportedTrace& imported) {
    const awb::Trace& trace = imported.trace;
    const auto& events = trace.events();
    uint64_t checksum = 0;
    for (size_t i = 0; i < events.size(); ++i) {
        const awb::TraceEvent& e = events[i];
        checksum += uint64_t(e.duration_ns()) + e.name.size() + e.thread + uint64_t(e.depth);
        checksum += awb::format_shapes(e.shapes()).size() + awb::to_string(e.kind).size();
        for (const auto& d : e.dtypes()) checksum += d.size();
        if (e.end_ns < e.start_ns) broken("end before start", i);
        if (i > 0) {
            const awb::TraceEvent& prev = events[i - 1];
            if (prev.start_ns > e.start_ns || (prev.start_ns == e.start_ns && prev.end_ns < e.end_ns))
                broken("events not sorted by (start, -end)", i);
        }
        if (e.parent < -1 || e.parent >= int32_t(i)) broken("parent index out of range", i);
        if (e.parent >= 0) {
            const awb::TraceEvent& p = events[size_t(e.parent)];
            if (e.depth != p.depth + 1) broken("depth != parent depth + 1", i);
            if (p.thread != e.thread || !awb::nests_on_cpu(p) || !awb::nests_on_cpu(e))
                broken("parent on another thread or not a synchronous CPU event", i);
            if (e.start_ns < p.start_ns || e.end_ns > p.end_ns) broken("child outside its parent", i);
        } else if (e.depth != 0) {
            broken("top-level event with depth != 0", i);
        }
    }
    int64_t prev_ts = INT64_MIN;
    for (size_t i = 0; i < trace.memory().size(); ++i) {
        const awb::MemoryEvent& m = trace.memory()[i];
        if (m.ts_ns < prev_ts) broken("memory events not sorted by time", i);
        prev_ts = m.ts_ns;
        checksum += uint64_t(m.bytes) + m.thread;
    }
    for (uint64_t t : trace.threads()) checksum += t;
    if (!events.empty() || !trace.memory().empty()) {
        if (trace.begin_ns() > trace.end_ns()) broken("begin_ns > end_ns", 0);
    }
    checksum += imported.trace_name.size() + imported.extra.size() + uint64_t(imported.bytes_read);
    // Keep the reads from being optimised away.
    volatile uint64_t sink = checksum;
    (void)sink;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const awb::fuzz::MemFile input("awb_fuzz_trace");
    input.write(data, size);
    const std::string& path = input.path();
    (void)awb::looks_like_chrome_trace(path);
    try {
        const awb::ImportedTrace imported = awb::import_chrome_trace(path);
        touch(imported);
    } catch (const awb::TraceImportError&) {
        // The documented way to refuse a file.
    }
    return 0;
}
