#include "analysis/run_analysis.h"

#include <algorithm>
#include <future>
#include <tuple>
#include <utility>

namespace awb {

RunAnalysis analyze_run(const Trace& trace, const RunSpec* spec) {
    RunAnalysis a;
    // The operator table and the attention calls share nothing with the rest: on a second core. (Profiled on a
    // 307 MB real trace: key_averages and attention_instances about half of the tables' time, the rest the other.)
    auto second = std::async(std::launch::async, [&trace, spec] {
        auto operators = key_averages(trace);
        return std::make_pair(std::move(operators), attention_instances(trace, spec));
    });
    const std::vector<KernelClass> classes = kernel_classes(trace);  // once, for the kernel table and the breakdown
    const LaunchCalls launches(trace);  // once, for the breakdown, the collectives and their overlap
    a.kernels = kernel_table(trace, classes);
    a.memory = replay_memory(trace);
    a.gpu = gpu_breakdown(trace, classes, launches);
    a.gpu_idle = gpu_idle_gaps(trace);
    a.capture = graph_capture_summary(trace);
    a.quality = trace_quality(trace, launches);
    a.collectives = collective_report(trace, classes, launches);
    std::tie(a.operators, a.attention) = second.get();
    a.overlap = comm_overlap(trace, classes, a.collectives, a.attention, launches);
    set_step_gpu_time(a.attention, a.gpu);
    a.device_columns = (spec && spec->device.kind == DeviceKind::CUDA) ||
                       std::any_of(trace.events().begin(), trace.events().end(),
                                   [](const TraceEvent& e) { return e.device != DeviceKind::CPU; });
    return a;
}

RunAnalysis analyze_run(const ProfileResult& run) {
    RunAnalysis a = analyze_run(run.trace, run.spec_known ? &run.spec : nullptr);
    a.quality.import = run.import;
    a.roofs = call_roofs(run.roof, run.environment.device_name, a.attention);
    return a;
}

AnalyzedRun analyzed(std::shared_ptr<const ProfileResult> run) {
    auto analysis = std::make_shared<const RunAnalysis>(analyze_run(*run));
    return {std::move(run), std::move(analysis)};
}

}  // namespace awb
