// The steps of collective_report (collectives.h) that its files share: the calls as found on their
// threads, the process groups of gloo's calls, and the matching across ranks. Pure C++.
#pragma once

#include <map>
#include <unordered_map>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/collectives.h"
#include "model/event_name.h"

namespace awb::collectives_detail {

bool is_collective_op(std::string_view name);  // c10d::allreduce_, _c10d_functional::all_gather_into_tensor, ...
bool is_collective_annotation(std::string_view name);  // nccl:all_reduce, gloo:broadcast, ...
bool is_gloo_annotation(std::string_view name);
// What a name is to the collectives, asked once per distinct (interned) name: a trace repeats a few
// thousand names over millions of events.
class CommNames {
public:
    enum : uint8_t { kOp = 1, kAnnotation = 2, kGloo = 4, kRecord = 8 };
    uint8_t of(const EventName& name) {
        const auto [it, added] = kinds_.try_emplace(name.data(), 0);
        if (added) {
            const std::string_view n = name.view();
            it->second = uint8_t((is_collective_op(n) ? kOp : 0) | (is_collective_annotation(n) ? kAnnotation : 0) |
                                 (is_gloo_annotation(n) ? kGloo : 0) | (n == "record_param_comms" ? kRecord : 0));
        }
        return it->second;
    }

private:
    std::unordered_map<const char*, uint8_t> kinds_;
};

// An NCCL kernel's collective (collective_name) and algorithm with its protocol ("RING LL"), when its name says them.
void from_kernel_name(std::string_view name, std::string& collective, std::string& algorithm);

struct FoundCalls {
    std::vector<CollectiveCall> calls;
    std::vector<int32_t> call_of;               // per event: the call it lies under (CPU events), -1 when none
    std::vector<int32_t> annotation;            // per call: its nccl:* / gloo:* annotation, -1 when none
    std::vector<int32_t> gloo;                  // gloo:* annotations, to be linked to their calls
    std::map<size_t, uint64_t> gloo_thread_of;  // call -> the thread its gloo annotation ran on
    std::vector<std::string> notes;
};

// The calls on the CPU threads with what lies under them (one pass in trace order).
FoundCalls find_calls(const Trace& trace);

// The ranks of a process group: the group's where the trace lists it (pg_config), else the default
// group's, else the world's (0 .. world_size - 1), else the ranks in the trace.
std::vector<int32_t> default_group_ranks(const TraceMeta& meta, const std::string& group);

// gloo's calls say no process group: each group runs its calls on worker threads of its own, created
// with the group in the order distributedInfo lists the groups. A rank's worker threads, by id, are
// given to its gloo groups in that order when they divide evenly (else the group stays unknown, noted).
void assign_gloo_groups(const Trace& trace, FoundCalls& found);

// all_to_all(v)'s size imbalance: the largest number of rows one rank sends one peer over the mean of
// all (rank, peer) pairs, from the calls' In split sizes; 0 when none is known.
double split_imbalance(const CollectiveReport& report, const std::vector<int32_t>& calls);

// report.calls (by rank, then start) matched across ranks into report.matched, with the straggler.
void match_collectives(CollectiveReport& report, const TraceMeta& meta);

}  // namespace awb::collectives_detail
