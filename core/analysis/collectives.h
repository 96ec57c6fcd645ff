// Collectives as first-class events: each collective call on each rank, found on the thread that
// issued it and linked to the work that carried it out, then matched across the ranks of its process
// group, with the straggler.
//
// A call (CollectiveCall) is the outermost c10d::* op on a CPU thread (else a record_param_comms, else
// an nccl:* / gloo:* annotation with neither above it). What it says of itself comes from, in order:
// record_param_comms's args ("Collective name", In/Out msg nelems, dtype, the process group, splits),
// the nccl:* / gloo:* annotation (its name, Input Dims and Input type), the c10d op's name. Its work is
// where the transfer ran: the kernels its launches started (NCCL's, or a custom all-reduce's: every
// kernel launched under the call, however the trace links them), else gloo's worker-thread annotation
// of the same call (gloo runs collectives on its own threads), else the op itself.
//
// Per call: bytes as nccl-tests counts a message (the larger of the rank's input and output: all_gather
// the gathered output, reduce_scatter the input), the work's duration, the algorithm bandwidth (bytes /
// duration) and the bus bandwidth (nccl-tests' factors: all_reduce 2(n-1)/n; all_gather, reduce_scatter,
// all_to_all (n-1)/n; broadcast, reduce, send, recv 1), the process group, the ProfilerStep.
//
// Matched across ranks (MatchedCollective): the k-th call in a process group on one rank is the k-th on
// every rank of the group (a send is matched with its peer's recv, by pair and order); arrival skew (the
// last start minus the first), each rank's wait (from its start to the last arrival), the transfer time
// (the shortest duration across the ranks). The straggler is the rank whose late arrivals cost the
// others the most wait (the count of its last arrivals breaks ties). Pure C++: no torch, no Qt.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/kernel_class.h"
#include "analysis/trace_links.h"
#include "model/trace.h"

namespace awb {

// The collective's name as PyTorch's dist API names it: all_reduce, all_gather, reduce_scatter,
// all_to_all, broadcast, reduce, gather, scatter, send, recv, barrier; what torch writes
// ("allreduce", "_allgather_base", "nccl:_reduce_scatter_base", "c10d::alltoall_base_",
// "allgather_into_tensor_coalesced") normalised; "" for a name that is no collective.
std::string collective_name(std::string_view raw);

// nccl-tests' bus bandwidth factor of a collective over n ranks (1 for a name it does not know).
double bus_factor(const std::string& name, int n);

struct CollectiveCall {
    int32_t rank = -1;
    std::string name;                  // collective_name
    std::string group;                 // process group name ("0"), "" when the trace does not say
    std::string group_desc;            // "default_pg", ...
    std::vector<int32_t> group_ranks;  // global ranks of the group (the run's ranks when the trace does not say)
    int32_t peer = -1;                 // send / recv: the other rank, when known
    std::string dtype;
    int64_t bytes = -1;                          // one rank's message as nccl-tests sizes it; -1 when unknown
    std::vector<int64_t> in_splits, out_splits;  // all_to_all(v): rows sent to / received from each peer
    int step = -1;    // k of the ProfilerStep#k that holds the call's op, -1 outside every step
    int32_t op = -1;  // the call's op (index into the trace's events)
    int64_t op_start_ns = 0, op_end_ns = 0;
    std::vector<int32_t> work;         // the kernels (or the gloo annotation) that carried it out
    int64_t start_ns = 0, end_ns = 0;  // the work's span (the op's when no work is known)
    bool on_device = false;            // its work ran on a device stream
    std::string algorithm;             // NCCL's algorithm and protocol from its kernel's name ("RING LL"), when known
    int64_t duration_ns() const { return end_ns - start_ns; }
    double algbw_gbps() const;  // bytes / duration (GB/s); 0 when either is unknown
    double busbw_gbps() const;  // algbw * bus_factor(name, group size)
    bool operator==(const CollectiveCall&) const = default;
};

struct RankArrival {
    int32_t rank = -1;
    int32_t call = -1;  // index into CollectiveReport::calls
    int64_t start_ns = 0;
    int64_t duration_ns = 0;
    int64_t wait_ns = 0;  // from its start to the last rank's arrival
    bool operator==(const RankArrival&) const = default;
};

struct MatchedCollective {
    std::string name, group;
    int64_t index = 0;  // its place in the group's sequence (the pair's, for send/recv)
    int64_t bytes = -1;
    int group_size = 0;  // ranks of its group (the run may hold fewer: see ranks)
    int step = -1;
    std::vector<RankArrival> ranks;  // the ranks present, ascending
    int64_t first_ns = 0;            // the first arrival
    int64_t skew_ns = 0;             // last arrival - first arrival
    int64_t transfer_ns = 0;         // the shortest duration across the ranks
    int32_t last_rank = -1;          // the last to arrive (-1 with one rank, or when all arrived at once)
    double split_imbalance = 0;      // all_to_all(v): the largest (rank, peer) split over their mean; 0 when unknown
    double algbw_gbps() const;       // bytes / transfer time
    double busbw_gbps() const;
    bool operator==(const MatchedCollective&) const = default;
};

struct RankStraggle {
    int32_t rank = -1;
    int64_t caused_wait_ns = 0;  // the others' wait at the collectives it arrived last at
    int64_t last_arrivals = 0;
    int64_t own_wait_ns = 0;  // its own wait, summed
    bool operator==(const RankStraggle&) const = default;
};

struct CollectiveReport {
    std::vector<CollectiveCall> calls;       // by rank, then start
    std::vector<MatchedCollective> matched;  // by first arrival
    std::vector<RankStraggle> ranks;         // one per rank with calls, ascending
    int32_t straggler = -1;                  // -1: no collective matched over two ranks, or none waited
    int steps = 0;                           // ProfilerSteps per rank the waits are divided by (at least 1)
    std::vector<std::string> notes;          // calls that could not be matched, and why
    int64_t clock_disagreements = 0;         // matched collectives that end on a rank before their last rank arrived
    bool operator==(const CollectiveReport&) const = default;
};

// How far before its last rank's arrival a collective may seem to end on a rank before the ranks'
// clocks are said to disagree (timestamps of whole microseconds, hosts' clocks a few us apart).
inline constexpr int64_t kClockSlackNs = 50'000;

// The matched collectives of one kind (name and process group) summed: how many, their bytes, transfer
// time, skew and every rank's wait, and their mean bus bandwidth (over those with a known size).
struct CollectiveKindSum {
    int64_t count = 0, bytes = 0, transfer_ns = 0, skew_ns = 0, wait_ns = 0;
    double busbw_gbps = 0;
    bool operator==(const CollectiveKindSum&) const = default;
};
std::map<std::pair<std::string, std::string>, CollectiveKindSum> collective_sums(const CollectiveReport& report);

CollectiveReport collective_report(const Trace& trace);
// The same with the trace's kernel classes already computed (kernel_classes(trace)), and its launches.
CollectiveReport collective_report(const Trace& trace, const std::vector<KernelClass>& classes);
CollectiveReport collective_report(const Trace& trace, const std::vector<KernelClass>& classes,
                                   const LaunchCalls& launches);

// The report as text for attnwb inspect --collectives: the matched collectives, the ranks' waits and
// the straggler.
std::string format_collectives(const CollectiveReport& report, size_t rows);

}  // namespace awb
