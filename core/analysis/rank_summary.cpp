// Which events a rank's summary keeps (see the header), and what it says it left out.
#include "analysis/rank_summary.h"

#include <map>

#include "analysis/collectives_detail.h"
#include "analysis/comm_overlap.h"
#include "analysis/trace_links.h"
#include "model/units.h"

namespace awb {

namespace {

enum class Keep : uint8_t { No, Yes };

// The events kept, with every kept CPU op's enclosing ops (a kernel's class may come from an op above its own).
std::vector<Keep> kept_events(const Trace& trace) {
    const auto& events = trace.events();
    const collectives_detail::FoundCalls found = collectives_detail::find_calls(trace);
    // The ops and runtime calls that launched a kernel, copy or set: kept with their kernels, so each
    // kernel keeps its step (its launch's time) and its class (its op).
    std::vector<uint8_t> launcher(events.size(), 0);
    {
        const LaunchingOps ops(trace);
        const LaunchCalls calls(trace);
        for (const TraceEvent& e : events)
            if (is_device_work(e))
                for (const int32_t l : {ops.of(e), calls.of(e)})
                    if (l >= 0) launcher[size_t(l)] = 1;
    }
    std::vector<Keep> keep(events.size(), Keep::No);
    std::vector<uint8_t> op_above(events.size(), 0);  // an op encloses the event (events come in start order)
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& e = events[i];
        const int32_t p = e.parent;
        if (p >= 0) op_above[i] = uint8_t(op_above[size_t(p)] || events[size_t(p)].kind == EventKind::CpuOp);
        const bool in_call = found.call_of[i] >= 0;
        bool wanted = false;
        if (e.device != DeviceKind::CPU || e.kind == EventKind::UserAnnotation)
            wanted = true;
        else if (e.kind == EventKind::Runtime)
            wanted = in_call || launcher[i];
        else if (e.kind == EventKind::CpuOp)
            wanted = in_call || !op_above[i] || launcher[i];
        if (!wanted) continue;
        keep[i] = Keep::Yes;
        for (int32_t a = p; a >= 0 && keep[size_t(a)] == Keep::No; a = events[size_t(a)].parent)
            if (events[size_t(a)].kind == EventKind::CpuOp || events[size_t(a)].kind == EventKind::UserAnnotation)
                keep[size_t(a)] = Keep::Yes;
    }
    return keep;
}

// The event as the summary holds it: its inputs without the Python stack (the frames are left out too).
TraceEvent without_stack(const TraceEvent& e, InputsInterner& interner) {
    TraceEvent out = e;
    if (e.inputs && !e.inputs->stack.empty()) {
        EventInputs inputs = *e.inputs;
        inputs.stack.clear();
        out.inputs = interner.intern(std::move(inputs));
    }
    return out;
}

// HTA's overlap figure rounds a rank's times to whole microseconds when any of its events starts at a
// fraction of one (starts_off_whole_us): where only events left out do, the first of them is kept.
void keep_a_fraction(const Trace& trace, std::vector<Keep>& keep) {
    std::map<int32_t, std::pair<bool, int64_t>>
        ranks;  // rank -> (a kept event has a fraction, the first left out that has)
    const int64_t origin = trace.meta().origin_ns;
    for (size_t i = 0; i < trace.events().size(); ++i) {
        const TraceEvent& e = trace.events()[i];
        if (!starts_off_whole_us(e, origin)) continue;
        auto [it, added] = ranks.try_emplace(e.rank, false, -1);
        if (keep[i] == Keep::Yes)
            it->second.first = true;
        else if (it->second.second < 0)
            it->second.second = int64_t(i);
    }
    for (const auto& [rank, seen] : ranks)
        if (!seen.first && seen.second >= 0) keep[size_t(seen.second)] = Keep::Yes;
}

}  // namespace

RankSummary summarize_rank(const Trace& trace) {
    const auto& events = trace.events();
    std::vector<Keep> keep = kept_events(trace);
    keep_a_fraction(trace, keep);
    RankSummary s;
    s.events = int64_t(events.size());
    s.memory_events = int64_t(trace.memory().size());
    std::vector<TraceEvent> out;
    InputsInterner interner;
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& e = events[i];
        if (keep[i] == Keep::Yes) {
            out.push_back(without_stack(e, interner));
            out.back().parent = -1;  // nested anew by build
            out.back().depth = 0;
        } else if (e.kind == EventKind::CpuOp) {
            ++s.nested_ops;
        } else if (e.kind == EventKind::Runtime) {
            ++s.runtime_calls;
        } else {
            ++s.other_cpu;
        }
    }
    s.trace = Trace::build(std::move(out), {}, trace.meta());
    return s;
}

std::string rank_summary_text(const RankSummary& s) {
    return format_count(int64_t(s.trace.events().size())) + " of " + format_count(s.events) +
           " events kept; left out: " + format_count(s.nested_ops) + " CPU ops nested in another op, " +
           format_count(s.runtime_calls) + " runtime calls that launched nothing, " + format_count(s.other_cpu) +
           " Python frames and other CPU events, " + format_count(s.memory_events) + " memory events";
}

}  // namespace awb
