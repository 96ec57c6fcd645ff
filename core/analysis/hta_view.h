// What HolisticTraceAnalysis 0.5.0 reads of a rank, so that figures computed its way can be checked
// against it (the communication overlap, the idle time): with two ProfilerSteps or more it keeps only the
// device events launched in the trace before the rank's last ProfilerStep began (it leaves the last step
// out by default, include_last_profiler_step=False), and when one of the rank's events starts at a
// fraction of a microsecond from the trace's origin it rounds times to whole microseconds (a start up, an
// end down). Pure C++.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "analysis/trace_links.h"
#include "model/trace.h"

namespace awb {

// HTA's figure rounds a rank's times to whole microseconds when one of its events starts at a fraction of
// one from the trace's origin (a rank's summary keeps such an event: rank_summary.h).
inline bool starts_off_whole_us(const TraceEvent& e, int64_t origin) { return (e.start_ns - origin) % 1000 != 0; }

struct HtaView {
    int64_t origin = 0;
    int64_t last_step_start = INT64_MIN;
    int last_step = -1;    // k of the last ProfilerStep#k
    bool filters = false;  // two step names or more: the last step left out
    bool fractional = false;
    // Whether HTA keeps this device event of the rank (its launch in the trace, before the last step began).
    bool keeps(const TraceEvent& device_event, const std::vector<TraceEvent>& events,
               const LaunchCalls& launches) const;
    // An event's start and end on the file's clock as HTA reads them: its microseconds as doubles,
    // math.ceil(ts) and math.floor(ts + dur).
    int64_t start(int64_t start_ns) const;
    int64_t end(int64_t start_ns, int64_t end_ns) const;
    // Which steps its figures cover: "all", "launched before ProfilerStep#6 (the last) began".
    std::string steps() const;
};

// One view per rank that has events (-1: a single-process trace).
std::map<int32_t, HtaView> hta_views(const Trace& trace);

}  // namespace awb
