#include "engine/profiler_session.h"

#include <ATen/record_function.h>

#include <sys/stat.h>

#include <chrono>
#include <memory>
#include <optional>
#include <set>

#include "engine/compat.h"
#include "engine/cuda_support.h"
#include "engine/device_caps.h"
#include "engine/engine_guard.h"
#include "engine/environment_probe.h"
#include "engine/memory_history.h"
#include "engine/thread_count_scope.h"
#include "engine/variants.h"
#include "model/bench_stats.h"

namespace awb {

namespace {

namespace prof = torch::autograd::profiler;

// libkineto::ActivityType values (stable across 1.13 and 2.x for these entries).
EventKind kind_of(uint8_t activity) {
    switch (activity) {
        case 0: return EventKind::CpuOp;
        case 1: return EventKind::UserAnnotation;
        case 2: return EventKind::UserAnnotation;  // gpu_user_annotation
        case 3: return EventKind::Memcpy;
        case 4: return EventKind::Memset;
        case 5: return EventKind::Kernel;
        case 7: return EventKind::Runtime;
        case 8: return EventKind::Runtime;  // cuda_driver
        default: return EventKind::Other;
    }
}

DeviceKind device_of(c10::DeviceType t) {
    if (t == c10::DeviceType::CPU) return DeviceKind::CPU;
    if (t == c10::DeviceType::CUDA) return DeviceKind::CUDA;
    return DeviceKind::Other;
}

// Appends one profiler window's events, in the order the profiler reported them.
void collect(const prof::ProfilerResult& result, std::vector<TraceEvent>& events, std::vector<MemoryEvent>& memory) {
    InputsInterner inputs;
    for (const auto& e : result.events()) {
        const std::string name = e.name();
        const int64_t start = compat::start_ns(e);
        if (name == "[memory]") {
            MemoryEvent m;
            m.ts_ns = start;
            m.bytes = e.nBytes();
            m.device = device_of(e.deviceType());
            m.device_index = int(int8_t(e.deviceIndex()));
            m.thread = e.startThreadId();
            memory.push_back(m);
            continue;
        }
        TraceEvent t;
        t.name = name;
        t.device = device_of(e.deviceType());
        t.kind = kind_of(e.activityType());
        if (t.kind == EventKind::CpuOp && e.scope() == uint8_t(at::RecordScope::USER_SCOPE))
            t.kind = EventKind::UserAnnotation;
        t.device_index = t.device == DeviceKind::CPU ? -1 : int(int8_t(e.deviceIndex()));
        t.start_ns = start;
        t.end_ns = start + compat::duration_ns(e);
        t.thread = t.device == DeviceKind::CPU ? e.startThreadId() : uint64_t(e.deviceResourceId());
        t.is_async = e.isAsync() || e.startThreadId() != e.endThreadId();
        t.scope = e.scope();
        t.correlation_id = int64_t(e.correlationId());
        t.linked_correlation_id = int64_t(e.linkedCorrelationId());
        t.sequence_nr = e.sequenceNr();
        t.fwd_thread = e.fwdThreadId();
        EventInputs in;
        if (e.hasShapes())
            for (const auto& s : e.shapes()) in.shapes.push_back(s);
        if (e.hasTypes())
            for (const auto& d : e.dtypes()) in.dtypes.push_back(d);
        if (e.hasStack())
            for (const auto& f : e.stack()) in.stack.push_back(f);
        t.inputs = inputs.intern(std::move(in));
        events.push_back(std::move(t));
    }
}

// torch.profiler.profile's state machine: the same transitions in the same order, so that a run here
// records what the Python loop records.
class ScheduledProfiler {
public:
    ScheduledProfiler(const ProfileOptions& o, bool cuda, std::string kineto_path)
        : options_(o),
          kineto_path_(std::move(kineto_path)),
          config_(compat::profiler_config(o.record_shapes, o.profile_memory, o.with_stack)) {
        activities_.insert(prof::ActivityType::CPU);
        if (cuda) activities_.insert(prof::ActivityType::CUDA);
    }
    // Left by an exception (a cancel, a failed step): the profiler must end as stop() would end it, or
    // Kineto stays prepared and the next profile in this process never records (a Stop during warm-up
    // in the GUI did that on 2.11).
    ~ScheduledProfiler() {
        step_region_.reset();
        try {
            if (!enabled_ && prepared_) {
                prof::enableProfiler(config_, activities_);
                enabled_ = true;
            }
            if (enabled_) prof::disableProfiler();
        } catch (...) {}
    }

    void start() {
        current_ = schedule_action(options_, 0);
        transit(ScheduleAction::None, current_);
        begin_step_region();
    }
    // profiler.step(): ends the step region, moves the schedule on, opens the next step's region.
    ScheduleAction step() {
        step_region_.reset();
        const ScheduleAction prev = current_;
        ++step_num_;
        current_ = schedule_action(options_, step_num_);
        transit(prev, current_);
        compat::profiler_step();
        begin_step_region();
        return prev;
    }
    void stop() {
        step_region_.reset();
        transit(current_, std::nullopt);
    }
    bool recording() const { return enabled_; }

    std::vector<TraceEvent> events;
    std::vector<MemoryEvent> memory;
    std::vector<std::string> kineto_files, kineto_problems;
    int64_t origin_ns = -1;

private:
    void prepare() {
        prof::prepareProfiler(config_, activities_);
        prepared_ = true;
    }
    void start_trace() {
        prof::enableProfiler(config_, activities_);
        enabled_ = true;
        prepared_ = false;
    }
    void stop_trace() {
        enabled_ = false;
        auto result = prof::disableProfiler();
        if (!result) return;
        if (origin_ns < 0) origin_ns = compat::trace_start_ns(*result);
        collect(*result, events, memory);
        if (!kineto_path_.empty()) {
            // Kineto logs a failed write and returns: the file itself says whether it was written.
            const std::string path = kineto_cycle_path(kineto_path_, cycle_++);
            compat::save_kineto_trace(*result, path);
            struct stat st {};
            if (::stat(path.c_str(), &st) == 0 && st.st_size > 0)
                kineto_files.push_back(path);
            else
                kineto_problems.push_back("Kineto could not write '" + path + "' (its log on stderr says why)");
        }
    }
    void transit(ScheduleAction prev, std::optional<ScheduleAction> next) {
        using A = ScheduleAction;
        if (!next) {  // exit
            if (prev == A::Warmup) {
                start_trace();
                stop_trace();
            } else if (prev == A::Record || prev == A::RecordAndSave) {
                stop_trace();
            }
            return;
        }
        const A n = *next;
        switch (prev) {
            case A::None:
                if (n == A::Warmup) prepare();
                if (n == A::Record || n == A::RecordAndSave) {
                    prepare();
                    start_trace();
                }
                break;
            case A::Warmup:
                if (n == A::None) {
                    start_trace();
                    stop_trace();
                }
                if (n == A::Record || n == A::RecordAndSave) start_trace();
                break;
            case A::Record:
                if (n == A::None || n == A::Warmup) stop_trace();
                break;
            case A::RecordAndSave:
                stop_trace();
                if (n == A::Warmup) prepare();
                if (n == A::Record || n == A::RecordAndSave) {
                    prepare();
                    start_trace();
                }
                break;
        }
    }
    void begin_step_region() {
        step_region_.emplace(at::RecordScope::USER_SCOPE);
        if (step_region_->isActive()) step_region_->before("ProfilerStep#" + std::to_string(step_num_));
    }

    ProfileOptions options_;
    std::string kineto_path_;
    int cycle_ = 0;
    prof::ProfilerConfig config_;
    std::set<prof::ActivityType> activities_;
    ScheduleAction current_ = ScheduleAction::None;
    int step_num_ = 0;
    bool enabled_ = false;
    bool prepared_ = false;  // prepareProfiler() ran and no trace started since
    std::optional<at::RecordFunction> step_region_;
};

// Before running: Kineto is there and the trace's folder takes files (Kineto only logs a failed write).
void check_kineto_trace_path(const std::string& path) {
    if (!compat::kKineto)
        throw InvalidInput({{"kineto_trace", "LibTorch " + std::string(TORCH_VERSION) +
                                                 " is built without Kineto, which writes that trace (the 2.x "
                                                 "wheel build has it: scripts/build.sh --torch2); our own chrome "
                                                 "trace (--trace) has the same events"}});
    if (auto problem = unwritable_output("kineto_trace", path)) throw InvalidInput({std::move(*problem)});
}

// Before running: this build and this spec can record the CUDA allocator's history.
void check_memory_history(const RunSpec& spec) {
    auto problems = memory_history_problems(spec);
    if (!problems.empty()) throw InvalidInput(std::move(problems));
}

// The allocator's snapshot once the device has finished the steps' work, then recording off; none when
// nothing was recorded.
std::string snapshot_and_stop(std::optional<MemoryHistoryRecording>& history, int cuda_index) {
    if (!history) return {};
    cuda::synchronize(cuda_index);
    std::string pickle = history->snapshot_pickle();
    history.reset();
    return pickle;
}

}  // namespace

bool kineto_available() { return compat::kKineto; }

ProfileResult profile_run(const RunSpec& spec, const ProfileOptions& options, RunObserver* observer,
                          const std::string& kineto_trace_path, std::size_t memory_history_entries) {
    if (memory_history_entries > 0) check_memory_history(spec);
    validate_or_throw(spec, options);
    if (!kineto_trace_path.empty()) check_kineto_trace_path(kineto_trace_path);
    ProfileResult out;
    out.spec = spec;
    out.options = options;
    translate_failures("running " + spec.variant + " " + shape_string(spec), [&] {
        ThreadCountScope threads(spec.threads);
        out.environment = probe_environment(spec);
        const bool cuda = spec.device.kind == DeviceKind::CUDA;
        const int cuda_index = spec.device.index < 0 ? 0 : spec.device.index;

        auto variant = make_variant(spec);
        variant->prepare(spec);
        const AttentionInputs inputs = make_inputs(spec);
        if (cuda) {
            cuda::synchronize(cuda_index);
            cuda::reset_peak_memory(cuda_index);
        }

        const int total = total_steps(options);
        std::optional<MemoryHistoryRecording> history;  // off again when it goes, also on an exception
        if (memory_history_entries > 0) history.emplace(memory_history_entries);
        ScheduledProfiler profiler(options, cuda, kineto_trace_path);
        profiler.start();
        at::Tensor result;  // lives across steps like the article's `output`
        bool recorded = false;
        for (int i = 0; i < total; ++i) {
            if (recorded && observer && observer->finish_requested()) {
                out.interrupted = true;  // stop() below keeps the recording cut where it stands
                break;
            }
            throw_if_cancelled(observer);
            const auto t0 = std::chrono::steady_clock::now();
            run_step(*variant, inputs, spec.mode, result);
            if (cuda) cuda::synchronize(cuda_index);
            const auto t1 = std::chrono::steady_clock::now();
            const ScheduleAction action = profiler.step();
            out.steps.push_back({i, action, std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()});
            recorded = recorded || action == ScheduleAction::Record || action == ScheduleAction::RecordAndSave;
            if (observer)
                observer->on_progress(
                    i + 1, total,
                    "step " + std::to_string(i + 1) + "/" + std::to_string(total) + " (" + to_string(action) + ")");
        }
        profiler.stop();
        out.memory_snapshot = snapshot_and_stop(history, cuda_index);
        if (cuda) out.device_peak_bytes = cuda::max_memory_allocated(cuda_index);
        out.kineto_trace_files = std::move(profiler.kineto_files);
        out.kineto_trace_problems = std::move(profiler.kineto_problems);

        TraceMeta meta;
        meta.origin_ns = profiler.origin_ns < 0 ? 0 : profiler.origin_ns;
        meta.clock_resolution_ns = compat::kClockResolutionNs;
        meta.source = "profiler";
        out.trace = Trace::build(std::move(profiler.events), std::move(profiler.memory), std::move(meta));
    });
    return out;
}

}  // namespace awb
