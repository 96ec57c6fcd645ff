// How far a trace can be trusted, as Perfetto's import stats say it: what the import left out (model/
// import_notes.h), and what the events themselves show that cannot happen on a healthy recording:
// device work that starts before the previous one on its stream ended (one stream runs one thing at
// a time), CPU ops that end after the op they started in (nesting broken: the op is drawn beside its
// parent, and its parent's self time is overstated), and device work that starts before the runtime
// call that launched it (the CPU's and the GPU's clocks disagree). Part of RunAnalysis. Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/import_notes.h"
#include "model/trace.h"

namespace awb {

class LaunchCalls;  // analysis/trace_links.h

struct TraceQuality {
    ImportNotes import;
    int64_t device_work = 0;  // kernels, copies and sets
    int64_t overlapping_device =
        0;                        // ... starting more than kOverlapSlackNs before the previous one on its stream ended
    int64_t cpu_ops = 0;          // synchronous CPU events (ops, runtime calls, annotations: those that nest)
    int64_t spilling_cpu = 0;     // ... ending more than kOverlapSlackNs after the event they started in
    int64_t launched = 0;         // device work whose launching runtime call is in the trace
    int64_t launched_before = 0;  // ... starting before that call started
    bool clean() const;
    bool operator==(const TraceQuality&) const = default;
};

// Overlaps up to 1 us are the rounding of timestamps written in microseconds, not a broken trace.
inline constexpr int64_t kOverlapSlackNs = 1000;

TraceQuality trace_quality(const Trace& trace, const ImportNotes& import = {});
// The same, with the trace's launches already indexed (RunAnalysis builds them once).
TraceQuality trace_quality(const Trace& trace, const LaunchCalls& launches, const ImportNotes& import = {});

// One line per finding ("12 of 40,000 kernels, copies and sets (0.03%) start before the previous one on
// their stream ended: ..."), the skipped events' reasons after their count; empty when clean.
std::vector<std::string> quality_lines(const TraceQuality& q);

}  // namespace awb
