#include "analysis/op_table.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "model/stable_group.h"

namespace awb {

namespace {

// One entry of PyTorch's FunctionEvent list: a trace event, or a [memory] record no op covered. Kept
// small (88 bytes): a large trace has millions.
struct FnEvent {
    const TraceEvent* src = nullptr;  // null for a top-level [memory] record
    EventName name;                   // the event's, "ProfilerStep*" or "[memory]"
    int64_t start = 0;
    int64_t end = 0;
    uint64_t thread = 0;
    int64_t cpu_mem = 0;
    int64_t device_mem = 0;
    int64_t kernel_ns = 0;  // summed durations of linked device events
    int32_t rank = -1;      // ranks of a distributed trace nest and link separately
    // The tree as index links (no per-event vectors). A child always has a larger index than its
    // parent; children are listed newest first (only sums are taken over them).
    int32_t parent = -1;
    int32_t first_child = -1, next_sibling = -1;
    int32_t child_count = 0;
    DeviceKind device = DeviceKind::CPU;
    bool is_async = false;
    bool deleted = false;
    bool replayed = false;  // recorded at graph capture, placed at its replayed kernels: no CPU time here
    int64_t cpu_ns() const { return device == DeviceKind::CPU && !replayed ? end - start : 0; }
};

template <typename F>
void for_each_child(const std::vector<FnEvent>& fes, const FnEvent& e, F&& f) {
    for (int32_t c = e.first_child; c >= 0; c = fes[size_t(c)].next_sibling) f(c);
}

// The [memory] records within fe's interval, any thread (MemRecordsAcc.in_interval: bisect_left(start) ..
// bisect_right(end)), added to it and marked taken. Events come in start order, so the left end lo only
// moves forward; the right end is galloped to from it (an op holds a few records; a step, many).
void take_memory_in(const std::vector<MemoryEvent>& mem, std::vector<MemoryEvent>::const_iterator& lo, FnEvent& fe,
                    std::vector<char>& attributed) {
    while (lo != mem.end() && lo->ts_ns < fe.start) ++lo;
    size_t step = 1;
    auto bound = lo;
    while (size_t(mem.end() - bound) > step && bound[std::ptrdiff_t(step)].ts_ns <= fe.end) {
        bound += std::ptrdiff_t(step);
        step *= 2;
    }
    const auto limit = size_t(mem.end() - bound) > step ? bound + std::ptrdiff_t(step) + 1 : mem.end();
    const auto hi = std::upper_bound(bound, limit, fe.end, [](int64_t t, const MemoryEvent& m) { return t < m.ts_ns; });
    for (auto it = lo; it < hi; ++it) {
        if (it->device == DeviceKind::CPU) fe.cpu_mem += it->bytes;
        if (it->device == DeviceKind::CUDA) fe.device_mem += it->bytes;
        attributed[size_t(it - mem.begin())] = 1;
    }
}

std::vector<FnEvent> function_events(const Trace& trace) {
    static const EventName step_name("ProfilerStep*"), memory_name("[memory]");
    const auto& mem = trace.memory();  // sorted by time, stable
    std::vector<char> attributed(mem.size(), 0);
    std::vector<FnEvent> fes;
    fes.reserve(trace.events().size() + mem.size());  // the [memory] records come after the events
    std::vector<std::pair<int64_t, int32_t>> linked;  // (linked correlation id, event), sorted below
    auto lo = mem.begin();
    for (const auto& e : trace.events()) {
        // Profiler spans, overhead, cuda_sync, python functions: on the timeline, not in the table.
        if (e.kind == EventKind::Other || is_filtered_op_name(e.name)) continue;
        FnEvent fe;
        fe.src = &e;
        fe.name = table_name_view(e.name).data() == e.name.data() ? e.name : step_name;  // "ProfilerStep*"
        fe.device = e.device;
        fe.start = e.start_ns;
        fe.end = e.end_ns;
        fe.thread = e.thread;
        fe.rank = e.rank;
        fe.is_async = e.is_async;
        fe.replayed = e.replayed;
        if (e.device == DeviceKind::CPU && !e.replayed)  // a replayed op's span is its kernels', not a CPU interval
            take_memory_in(mem, lo, fe, attributed);
        if (e.linked_correlation_id > 0)
            linked.emplace_back(link_key(e.rank, e.linked_correlation_id), int32_t(fes.size()));
        fes.push_back(std::move(fe));
    }
    // Associate device events (and runtime calls) with the CPU op whose id they link to.
    std::sort(linked.begin(), linked.end());
    for (auto& fe : fes) {
        // Only front-end events (not themselves linked to another, as runtime calls are) take device
        // events: Kineto's correlation ids and External ids are separate counters that overlap.
        if (fe.device != DeviceKind::CPU || fe.is_async || fe.src->linked_correlation_id > 0) continue;
        const int64_t key = link_key(fe.src->rank, fe.src->correlation_id);
        auto it = std::lower_bound(linked.begin(), linked.end(), std::pair{key, INT32_MIN});
        for (; it != linked.end() && it->first == key; ++it) {
            FnEvent& other = fes[size_t(it->second)];
            // A device-side user annotation (gpu_user_annotation) is a span over other work, not work:
            // PyTorch adds it to its CPU op's device time (a vLLM capture's "capture_8192_PIECEWISE" gets
            // 55 ms of self CUDA time over 0.8 ms of kernels); here it adds nothing.
            if (other.device == DeviceKind::CUDA && other.src->kind != EventKind::UserAnnotation)
                fe.kernel_ns += other.end - other.start;
            else if (other.device == DeviceKind::CPU)
                other.thread = fe.thread;
        }
    }
    const size_t from_events = fes.size();
    for (size_t i = 0; i < mem.size(); ++i) {
        if (attributed[i]) continue;
        FnEvent fe;
        fe.name = memory_name;
        fe.start = fe.end = mem[i].ts_ns;
        fe.thread = mem[i].thread;
        fe.cpu_mem = mem[i].device == DeviceKind::CPU ? mem[i].bytes : 0;
        fe.device_mem = mem[i].device == DeviceKind::CUDA ? mem[i].bytes : 0;
        fes.push_back(std::move(fe));
    }
    // The trace's events come sorted by (start, -end) and the [memory] records by time: merging the two
    // runs is the stable sort PyTorch does, without sorting what is already in order.
    std::inplace_merge(
        fes.begin(), fes.begin() + std::ptrdiff_t(from_events), fes.end(),
        [](const FnEvent& a, const FnEvent& b) { return a.start != b.start ? a.start < b.start : a.end > b.end; });
    return fes;
}

void populate_children(std::vector<FnEvent>& fes) {
    // Python sorts by thread (stable), then each thread's events by (start, -end) (stable). The list is
    // in (start, -end) order already, so grouping it by (rank, thread) in that order gives the same.
    const std::vector<int32_t> order = stable_group<std::pair<int32_t, uint64_t>>(fes.size(), [&fes](size_t i) {
        const FnEvent& e = fes[i];
        return !e.is_async && e.device == DeviceKind::CPU ? std::optional(std::pair{e.rank, e.thread}) : std::nullopt;
    });
    std::vector<int32_t> open;
    for (size_t k = 0; k < order.size(); ++k) {
        if (k == 0 || fes[order[k]].thread != fes[order[k - 1]].thread || fes[order[k]].rank != fes[order[k - 1]].rank)
            open.clear();
        FnEvent& e = fes[order[k]];
        while (!open.empty()) {
            FnEvent& p = fes[open.back()];
            if (e.start >= p.end || e.end > p.end) {
                open.pop_back();
            } else {
                e.next_sibling = p.first_child;
                p.first_child = order[k];
                ++p.child_count;
                e.parent = open.back();
                break;
            }
        }
        open.push_back(order[k]);
    }
}

// _remove_dup_nodes: an op whose only child has its own name absorbs that child, until none is left.
void remove_duplicate_nodes(std::vector<FnEvent>& fes) {
    for (;;) {
        bool any = false;
        for (size_t i = 0; i < fes.size(); ++i) {
            FnEvent& e = fes[i];
            if (e.deleted || e.parent < 0) continue;
            FnEvent& p = fes[size_t(e.parent)];
            if (p.name == e.name && p.child_count == 1) {
                p.first_child = e.first_child;
                p.child_count = e.child_count;
                p.kernel_ns = e.kernel_ns;
                for (int32_t c = e.first_child; c >= 0; c = fes[size_t(c)].next_sibling)
                    fes[size_t(c)].parent = e.parent;
                e.deleted = true;
                any = true;
            }
        }
        if (!any) break;
    }
}

struct Totals {
    int64_t cpu_total = 0, self_cpu = 0, device_total = 0, self_device = 0;
    int64_t self_cpu_mem = 0, self_device_mem = 0;
};

// Device totals of every event without recursion: children have larger indices than their parents,
// so one pass from the end has each child's total ready before its parent's.
std::vector<int64_t> device_totals(const std::vector<FnEvent>& fes, bool legacy_spans) {
    std::vector<int64_t> total(fes.size(), 0);
    for (size_t i = fes.size(); i-- > 0;) {
        const FnEvent& e = fes[i];
        if (e.is_async) continue;
        if (e.device == DeviceKind::CPU) {
            int64_t t = e.kernel_ns;
            if (!legacy_spans) for_each_child(fes, e, [&](int32_t c) { t += total[size_t(c)]; });
            total[i] = t;
        } else {
            total[i] = e.src && e.src->kind == EventKind::UserAnnotation ? 0 : e.end - e.start;  // a span, not work
        }
    }
    return total;
}

}  // namespace

std::string_view table_name_view(const std::string& name) {
    return name.rfind("ProfilerStep#", 0) == 0 ? std::string_view("ProfilerStep*") : std::string_view(name);
}

std::string table_name(const std::string& name) { return std::string(table_name_view(name)); }

bool is_filtered_op_name(const std::string& name) {
    static constexpr std::string_view kFiltered[] = {"[memory]",
                                                     "[OutOfMemory]",
                                                     "profiler::_record_function_enter",
                                                     "profiler::_record_function_enter_new",
                                                     "profiler::_record_function_exit",
                                                     "aten::is_leaf",
                                                     "aten::output_nr",
                                                     "aten::_version"};
    for (std::string_view f : kFiltered)
        if (std::string_view(name) == f) return true;  // lengths first: most names differ there
    return false;
}

std::vector<OperatorRow> key_averages(const Trace& trace, const OpTableOptions& options) {
    std::vector<FnEvent> fes = function_events(trace);
    populate_children(fes);
    remove_duplicate_nodes(fes);

    const bool legacy = trace.meta().legacy_device_spans;
    const std::vector<int64_t> device_total = device_totals(fes, legacy);
    std::vector<OperatorRow> rows;
    // Rows by (name, device, shapes). The shapes text is formatted once per distinct inputs (events
    // share them) and equal texts are one string, so the key holds a pointer to it.
    struct Key {
        EventName name;
        int device;
        const std::string* shapes;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        size_t operator()(const Key& k) const {
            return std::hash<EventName>{}(k.name) ^ (std::hash<const void*>{}(k.shapes) * 31) ^ size_t(k.device);
        }
    };
    std::unordered_map<Key, size_t, KeyHash> index;
    std::unordered_set<std::string> shape_texts;
    std::unordered_map<const EventInputs*, const std::string*> shapes_of;
    auto shapes_text = [&](const FnEvent& e) -> const std::string* {
        const EventInputs* in = e.src && e.src->inputs ? e.src->inputs.get() : nullptr;
        auto [it, added] = shapes_of.try_emplace(in, nullptr);
        if (added) it->second = &*shape_texts.insert(format_shapes((in ? *in : no_inputs()).shapes)).first;
        return it->second;
    };
    static const std::string kNoShapes;
    for (size_t i = 0; i < fes.size(); ++i) {
        const FnEvent& e = fes[i];
        if (e.deleted) continue;
        const bool cpu = e.device == DeviceKind::CPU;
        if (legacy && !cpu) continue;  // torch 1.x tables have no device rows
        Totals t;
        t.cpu_total = e.cpu_ns();
        t.device_total = device_total[i];
        int64_t child_cpu = 0, child_dev = 0, child_cpu_mem = 0, child_dev_mem = 0;
        for_each_child(fes, e, [&](int32_t c) {
            const FnEvent& ch = fes[size_t(c)];
            child_cpu += ch.cpu_ns();
            child_dev += device_total[size_t(c)];
            child_cpu_mem += ch.cpu_mem;
            child_dev_mem += ch.device_mem;
        });
        const bool sync_cpu = cpu && !e.is_async;
        t.self_cpu = sync_cpu ? t.cpu_total - child_cpu : 0;
        t.self_device = e.is_async ? 0 : (cpu ? t.device_total - child_dev : t.device_total);
        t.self_cpu_mem = sync_cpu ? e.cpu_mem - child_cpu_mem : 0;
        t.self_device_mem = sync_cpu ? e.device_mem - child_dev_mem : 0;

        const std::string* shapes = options.group_by_shape ? shapes_text(e) : &kNoShapes;
        auto [it, inserted] = index.try_emplace(Key{e.name, int(e.device), shapes}, rows.size());
        if (inserted) {
            OperatorRow r;
            r.name = e.name.str();
            r.input_shapes = *shapes;
            r.device = e.device;
            r.user_annotation = !cpu && e.src && e.src->kind == EventKind::UserAnnotation;
            rows.push_back(std::move(r));
        }
        OperatorRow& r = rows[it->second];
        r.calls += 1;
        r.cpu_total_ns += t.cpu_total;
        r.self_cpu_ns += t.self_cpu;
        r.device_total_ns += t.device_total;
        r.self_device_ns += t.self_device;
        r.cpu_memory_bytes += e.cpu_mem;
        r.device_memory_bytes += e.device_mem;
        r.self_cpu_memory_bytes += t.self_cpu_mem;
        r.self_device_memory_bytes += t.self_device_mem;
    }
    return rows;
}

OpTableTotals totals(const std::vector<OperatorRow>& rows) {
    OpTableTotals t;
    const bool device_rows =
        std::any_of(rows.begin(), rows.end(), [](const OperatorRow& r) { return r.device != DeviceKind::CPU; });
    for (const auto& r : rows) {
        t.self_cpu_ns += r.self_cpu_ns;
        if (device_rows ? r.device != DeviceKind::CPU && !r.user_annotation : true)
            t.self_device_ns += r.self_device_ns;
    }
    return t;
}

}  // namespace awb
