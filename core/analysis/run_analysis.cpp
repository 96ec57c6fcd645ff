#include "analysis/run_analysis.h"

namespace awb {

RunAnalysis analyze_run(const Trace& trace) {
    RunAnalysis a;
    a.operators = key_averages(trace);
    a.kernels = kernel_table(trace);
    a.memory = replay_memory(trace);
    a.gpu = gpu_breakdown(trace);
    a.gpu_idle = gpu_idle_gaps(trace);
    return a;
}

AnalyzedRun analyze(std::shared_ptr<const ProfileResult> run) {
    auto analysis = std::make_shared<const RunAnalysis>(analyze_run(run->trace));
    return {std::move(run), std::move(analysis)};
}

}  // namespace awb
