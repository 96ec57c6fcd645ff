// The calls: found on their threads, described from their records, linked to their work.
#include "analysis/collectives.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "analysis/collectives_detail.h"
#include "analysis/kernel_class.h"
#include "analysis/trace_links.h"
#include "model/recorded_steps.h"

namespace awb {

namespace {

bool starts(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Prefixes of the ops and annotations torch writes around a collective.
constexpr std::string_view kOpPrefixes[] = {"c10d::", "_c10d_functional::", "c10d_functional::"};
constexpr std::string_view kAnnotationPrefixes[] = {"nccl:", "gloo:", "rccl:", "mpi:", "ucc:", "xccl:"};

}  // namespace

std::string collective_name(std::string_view raw) {
    std::string s(raw);
    for (std::string_view p : kOpPrefixes)
        if (starts(s, p)) s.erase(0, p.size());
    for (std::string_view p : kAnnotationPrefixes)
        if (starts(s, p)) s.erase(0, p.size());
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    while (!s.empty() && s.front() == '_') s.erase(0, 1);
    while (!s.empty() && s.back() == '_') s.pop_back();
    // In this order: allgather_into_tensor_coalesced -> allgather, reduce_scatter_tensor -> reduce_scatter.
    for (std::string_view suffix : {"_coalesced", "_base", "_into_tensor", "_tensor", "_any_source", "_single"}) {
        const size_t at = s.find(suffix);
        if (at != std::string::npos && at + suffix.size() == s.size()) s.erase(at);
    }
    static const std::pair<std::string_view, std::string_view> names[] = {
        {"allreduce", "all_reduce"},
        {"all_reduce", "all_reduce"},
        {"allgather", "all_gather"},
        {"all_gather", "all_gather"},
        {"reduce_scatter", "reduce_scatter"},
        {"reducescatter", "reduce_scatter"},
        {"alltoall", "all_to_all"},
        {"all_to_all", "all_to_all"},
        {"broadcast", "broadcast"},
        {"reduce", "reduce"},
        {"gather", "gather"},
        {"scatter", "scatter"},
        {"send", "send"},
        {"recv", "recv"},
        {"barrier", "barrier"},
        {"monitored_barrier", "barrier"},
        {"sendrecv", "send_recv"},
    };
    for (const auto& [from, to] : names)
        if (s == from) return std::string(to);
    return "";
}

double bus_factor(const std::string& name, int n) {
    if (n <= 0) return 1.0;
    if (name == "all_reduce") return 2.0 * (n - 1) / n;
    if (name == "all_gather" || name == "reduce_scatter" || name == "all_to_all") return double(n - 1) / n;
    return 1.0;
}

double CollectiveCall::algbw_gbps() const {
    return bytes > 0 && duration_ns() > 0 ? double(bytes) / double(duration_ns()) : 0.0;
}

double CollectiveCall::busbw_gbps() const { return algbw_gbps() * bus_factor(name, int(group_ranks.size())); }

double MatchedCollective::algbw_gbps() const {
    return bytes > 0 && transfer_ns > 0 ? double(bytes) / double(transfer_ns) : 0.0;
}

double MatchedCollective::busbw_gbps() const { return algbw_gbps() * bus_factor(name, group_size); }

namespace collectives_detail {

bool is_collective_op(std::string_view name) {
    for (std::string_view p : kOpPrefixes)
        if (starts(name, p)) return !collective_name(name).empty();
    return false;
}

bool is_collective_annotation(std::string_view name) {
    for (std::string_view p : kAnnotationPrefixes)
        if (starts(name, p)) return !collective_name(name).empty();
    return false;
}

bool is_gloo_annotation(std::string_view name) { return starts(name, "gloo:") && !collective_name(name).empty(); }

// NCCL's kernel names say the collective, the algorithm and the protocol:
// ncclKernel_AllReduce_RING_LL_Sum_float, ncclDevKernel_AllGather_RING_LL.
void from_kernel_name(std::string_view name, std::string& collective, std::string& algorithm) {
    for (std::string_view p : {"ncclDevKernel_", "ncclKernel_"}) {
        if (!starts(name, p)) continue;
        std::string_view rest = name.substr(p.size());
        rest = rest.substr(0, rest.find('('));
        std::vector<std::string_view> parts;
        while (!rest.empty()) {
            const size_t cut = rest.find('_');
            parts.push_back(rest.substr(0, cut));
            rest = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 1);
        }
        if (parts.empty()) return;
        collective = collective_name(parts[0]);
        static const std::set<std::string_view> algorithms = {"RING", "TREE", "COLLNET", "NVLS", "PAT"};
        static const std::set<std::string_view> protocols = {"LL", "LL128", "SIMPLE"};
        for (size_t i = 1; i < parts.size(); ++i) {
            if (algorithms.count(parts[i])) {
                algorithm = std::string(parts[i]);
                if (i + 1 < parts.size() &&
                    (parts[i + 1] == "DIRECT" || parts[i + 1] == "CHAIN" || parts[i + 1] == "TREE"))
                    algorithm += "_" + std::string(parts[++i]);
            } else if (protocols.count(parts[i]) && !algorithm.empty()) {
                algorithm += " " + std::string(parts[i]);
                break;
            }
        }
        return;
    }
}

}  // namespace collectives_detail

namespace {

using namespace collectives_detail;

int64_t elements(const std::vector<int64_t>& shape) {
    if (shape.empty()) return -1;
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

// What the call's record_param_comms (or a kernel Kineto copied it onto) says.
void take_args(CollectiveCall& c, const CommArgs& a) {
    if (!a.collective.empty() && c.name.empty()) c.name = collective_name(a.collective);
    if (!a.dtype.empty()) c.dtype = a.dtype;
    const int elem = dtype_bytes(a.dtype);
    const int64_t n = std::max(a.in_nelems, a.out_nelems);
    if (elem > 0 && n >= 0 && c.bytes < 0) c.bytes = n * elem;
    if (!a.group_name.empty()) c.group = a.group_name;
    if (!a.group_desc.empty()) c.group_desc = a.group_desc;
    if (!a.group_ranks.empty()) c.group_ranks = a.group_ranks;
    if (!a.in_splits.empty()) c.in_splits = a.in_splits;
    if (!a.out_splits.empty()) c.out_splits = a.out_splits;
    if (a.peer >= 0) c.peer = a.peer;
}

// What an nccl:* / gloo:* annotation says: its name, and its input's size and dtype ("Input Dims" of
// the tensor it moves: all_gather's is one rank's part, so the gathered output is the group's times it).
struct AnnotationSize {
    int64_t elements = -1;
    std::string dtype;
};
AnnotationSize annotation_size(const TraceEvent& e) {
    AnnotationSize s;
    if (!e.shapes().empty()) s.elements = elements(e.shapes().front());
    if (!e.dtypes().empty()) s.dtype = e.dtypes().front();
    return s;
}

// A c10d op's own arguments where they are tensors (not TensorLists, which the trace leaves empty):
// _allgather_base_(output, input), _reduce_scatter_base_(output, input), alltoall_base_(output, input,
// group, output_split_sizes, input_split_sizes); send/recv's peer and broadcast's root are scalars.
void from_op_inputs(CollectiveCall& c, const TraceEvent& op) {
    const auto& shapes = op.shapes();
    const auto& types = op.dtypes();
    if (c.bytes < 0 && shapes.size() >= 2 && types.size() >= 2) {
        const int elem = dtype_bytes(types[0]);
        const int64_t n = std::max(elements(shapes[0]), elements(shapes[1]));
        if (elem > 0 && n > 0) {
            c.bytes = n * elem;
            if (c.dtype.empty()) c.dtype = types[0];
        }
    }
    const auto& concrete = op.concrete();
    if (c.name == "all_to_all" && concrete.size() >= 5 && c.in_splits.empty()) {
        parse_int_list(concrete[4], c.in_splits);
        parse_int_list(concrete[3], c.out_splits);
    }
    if ((c.name == "send" || c.name == "recv") && c.peer < 0 && concrete.size() >= 3 && !concrete[2].empty()) {
        std::vector<int64_t> v;
        if (parse_int_list("[" + concrete[2] + "]", v) && v.size() == 1) c.peer = int32_t(v[0]);
    }
}

}  // namespace

namespace collectives_detail {

FoundCalls find_calls(const Trace& trace) {
    const auto& events = trace.events();
    FoundCalls found;
    found.call_of.assign(events.size(), -1);
    CommNames names;
    // Calls and what lies under them: one pass in trace order (a parent comes before its children).
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& e = events[i];
        if (!nests_on_cpu(e)) continue;
        const int32_t above = e.parent >= 0 ? found.call_of[size_t(e.parent)] : -1;
        const uint8_t kind = names.of(e.name);
        if (above < 0 && kind == 0) continue;  // most events: nothing of a collective's
        const std::string_view name = e.name.view();
        const bool gloo = kind & CommNames::kGloo, annotation = kind & CommNames::kAnnotation;
        if (above < 0) {
            const bool root =
                (kind & CommNames::kOp) ||
                ((kind & CommNames::kRecord) && e.comm() && !collective_name(e.comm()->collective).empty()) ||
                (annotation && !gloo);
            if (!root) {
                if (gloo) found.gloo.push_back(int32_t(i));
                continue;
            }
            CollectiveCall c;
            c.rank = e.rank;
            c.op = int32_t(i);
            c.op_start_ns = e.start_ns;
            c.op_end_ns = e.end_ns;
            c.start_ns = e.start_ns;
            c.end_ns = e.end_ns;
            c.name = name == "record_param_comms" ? "" : collective_name(name);
            found.call_of[i] = int32_t(found.calls.size());
            found.calls.push_back(std::move(c));
            found.annotation.push_back(-1);
        } else {
            found.call_of[i] = above;
        }
        CollectiveCall& c = found.calls[size_t(found.call_of[i])];
        if (const CommArgs* args = e.comm()) take_args(c, *args);
        if (annotation) {
            if (gloo) {
                found.gloo.push_back(int32_t(i));  // gloo's work: linked below like the worker threads'
                found.call_of[i] = -1;
            } else if (found.annotation[size_t(found.call_of[i])] < 0) {
                found.annotation[size_t(found.call_of[i])] = int32_t(i);
            }
        }
    }
    return found;
}

}  // namespace collectives_detail

namespace {

// The kernels each call launched: through the launch's correlation id to the runtime call, and from
// there up to the call it lies under (whatever External id the kernel carries). Communication kernels
// carry the transfer; a call with none keeps every kernel it launched. Kernels of no call that are
// communication (launched before the trace began, or by a custom all-reduce outside any c10d op)
// become calls of their own, named by their record or their name.
void link_kernels(const Trace& trace, FoundCalls& found, const std::vector<KernelClass>& classes,
                  const LaunchCalls& launches) {
    const auto& events = trace.events();
    std::vector<std::vector<int32_t>> comm(found.calls.size()), other(found.calls.size());
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent& k = events[i];
        if (!is_device_work(k)) continue;
        const bool is_comm = classes[i] == KernelClass::Communication;
        const int32_t launch = launches.of(k);
        const int32_t call = launch >= 0 ? found.call_of[size_t(launch)] : -1;
        if (call >= 0) {
            (is_comm ? comm : other)[size_t(call)].push_back(int32_t(i));
        } else if (is_comm) {
            CollectiveCall c;
            c.rank = k.rank;
            c.op = -1;
            c.op_start_ns = c.start_ns = k.start_ns;
            c.op_end_ns = c.end_ns = k.end_ns;
            if (const CommArgs* a = k.comm()) take_args(c, *a);
            std::string from_name, algorithm;
            from_kernel_name(k.name.view(), from_name, algorithm);
            if (c.name.empty()) c.name = from_name.empty() ? "communication" : from_name;
            c.work = {int32_t(i)};
            c.on_device = true;
            c.algorithm = algorithm;
            found.calls.push_back(std::move(c));
            found.annotation.push_back(-1);
        }
    }
    for (size_t c = 0; c < comm.size(); ++c) {
        std::vector<int32_t>& work = comm[c].empty() ? other[c] : comm[c];
        if (work.empty()) continue;
        CollectiveCall& call = found.calls[c];
        call.work = std::move(work);
        call.on_device = true;
        call.start_ns = INT64_MAX;
        call.end_ns = INT64_MIN;
        for (int32_t k : call.work) {
            call.start_ns = std::min(call.start_ns, events[size_t(k)].start_ns);
            call.end_ns = std::max(call.end_ns, events[size_t(k)].end_ns);
            if (const CommArgs* a = events[size_t(k)].comm()) take_args(call, *a);
            std::string from_name;
            if (call.algorithm.empty()) from_kernel_name(events[size_t(k)].name.view(), from_name, call.algorithm);
        }
    }
}

// gloo runs each call on a worker thread of its process group (sends and receives on the calling
// thread, past the op's end), in the order the calls were issued: each call without device work takes
// the first unclaimed gloo:* annotation of its rank of the same collective (gloo runs reduce_scatter
// as an all_reduce) that starts at or after the op.
void link_gloo(const Trace& trace, FoundCalls& found) {
    const auto& events = trace.events();
    std::map<int32_t, std::vector<int32_t>> by_rank;  // gloo annotations, in start order
    for (int32_t g : found.gloo) by_rank[events[size_t(g)].rank].push_back(g);
    std::vector<char> claimed(events.size(), 0);
    std::vector<size_t> order(found.calls.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return found.calls[a].op_start_ns < found.calls[b].op_start_ns; });
    for (size_t ci : order) {
        CollectiveCall& c = found.calls[ci];
        if (c.on_device || c.op < 0) continue;
        const auto it = by_rank.find(c.rank);
        if (it == by_rank.end()) continue;
        for (int32_t g : it->second) {
            const TraceEvent& a = events[size_t(g)];
            if (claimed[size_t(g)] || a.start_ns < c.op_start_ns) continue;
            const std::string n = collective_name(a.name.view());
            if (n != c.name && !(c.name == "reduce_scatter" && n == "all_reduce")) continue;
            claimed[size_t(g)] = 1;
            c.work = {g};
            c.start_ns = a.start_ns;
            c.end_ns = a.end_ns;
            found.gloo_thread_of[ci] = a.thread;
            if (found.annotation[ci] < 0) found.annotation[ci] = g;
            break;
        }
    }
    // Annotations no op claimed (a trace without c10d ops): calls of their own.
    for (const auto& [rank, list] : by_rank)
        for (int32_t g : list) {
            if (claimed[size_t(g)]) continue;
            const TraceEvent& a = events[size_t(g)];
            CollectiveCall c;
            c.rank = rank;
            c.op = g;
            c.op_start_ns = c.start_ns = a.start_ns;
            c.op_end_ns = c.end_ns = a.end_ns;
            c.name = collective_name(a.name.view());
            c.work = {g};
            found.gloo_thread_of[found.calls.size()] = a.thread;
            found.annotation.push_back(g);
            found.calls.push_back(std::move(c));
        }
}

// The sizes the annotation and the op say, where no record said them.
void fill_sizes(const Trace& trace, FoundCalls& found, const TraceMeta& meta) {
    const auto& events = trace.events();
    for (size_t ci = 0; ci < found.calls.size(); ++ci) {
        CollectiveCall& c = found.calls[ci];
        if (c.group_ranks.empty()) c.group_ranks = default_group_ranks(meta, c.group);
        if (c.bytes < 0 && found.annotation[ci] >= 0) {
            const AnnotationSize s = annotation_size(events[size_t(found.annotation[ci])]);
            const int elem = dtype_bytes(s.dtype);
            if (s.elements >= 0 && elem > 0) {
                const int64_t n = c.name == "all_gather"
                                      ? s.elements * int64_t(std::max<size_t>(c.group_ranks.size(), 1))
                                      : s.elements;
                c.bytes = n * elem;
                if (c.dtype.empty()) c.dtype = s.dtype;
            }
        }
        if (c.op >= 0 && is_collective_op(events[size_t(c.op)].name.view())) from_op_inputs(c, events[size_t(c.op)]);
    }
}

// Each call's step: the ProfilerStep#k of its rank that holds the call's op (any thread); and the most
// steps a rank recorded, what "per step" figures divide by.
void assign_steps(const Trace& trace, std::vector<CollectiveCall>& calls, int& steps) {
    const StepSpans spans(trace);
    steps = 1;
    for (const auto& [rank, s] : spans.by_rank()) {
        std::set<int> distinct;
        for (const StepSpans::Span& x : s) distinct.insert(x.step);
        steps = std::max(steps, int(distinct.size()));
    }
    for (CollectiveCall& c : calls) c.step = spans.at(c.rank, c.op_start_ns);
}

}  // namespace

CollectiveReport collective_report(const Trace& trace) { return collective_report(trace, kernel_classes(trace)); }

CollectiveReport collective_report(const Trace& trace, const std::vector<KernelClass>& classes) {
    return collective_report(trace, classes, LaunchCalls(trace));
}

CollectiveReport collective_report(const Trace& trace, const std::vector<KernelClass>& classes,
                                   const LaunchCalls& launches) {
    FoundCalls found = find_calls(trace);
    link_kernels(trace, found, classes, launches);
    link_gloo(trace, found);
    assign_gloo_groups(trace, found);
    fill_sizes(trace, found, trace.meta());
    CollectiveReport report;
    report.notes = std::move(found.notes);
    assign_steps(trace, found.calls, report.steps);
    // By rank, then start.
    std::vector<size_t> order(found.calls.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const CollectiveCall &x = found.calls[a], &y = found.calls[b];
        return std::tie(x.rank, x.start_ns, x.op_start_ns) < std::tie(y.rank, y.start_ns, y.op_start_ns);
    });
    for (size_t i : order) report.calls.push_back(std::move(found.calls[i]));
    match_collectives(report, trace.meta());
    return report;
}

}  // namespace awb
