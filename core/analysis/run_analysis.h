// Everything derived from one run's trace, computed once and shared by every consumer: the operator
// table (key_averages, not grouped by shape), the kernel table, the memory replay, the GPU time
// breakdown, the GPUs' idle gaps, the attention calls, the collectives across ranks and the communication's
// overlap with computation. The GUI computes it off the GUI thread when
// a run arrives and hands the same value to the operator, kernel, GPU time and attention tables, the
// timeline (memory tracks, idle marks, tooltips), the advisor, the checklist, the comparison and the
// reports.
#pragma once

#include <memory>
#include <vector>

#include "analysis/attention.h"
#include "analysis/collectives.h"
#include "analysis/comm_overlap.h"
#include "analysis/gpu_breakdown.h"
#include "analysis/graph_capture.h"
#include "analysis/kernel_table.h"
#include "analysis/memory_replay.h"
#include "analysis/op_table.h"
#include "analysis/trace_quality.h"
#include "model/profile_result.h"

namespace awb {

struct RunAnalysis {
    std::vector<OperatorRow> operators;        // key_averages(trace), PyTorch's order
    std::vector<KernelRow> kernels;            // kernel_table(trace)
    std::vector<MemorySeries> memory;          // replay_memory(trace): one series per device
    std::vector<GpuBreakdown> gpu;             // gpu_breakdown(trace): empty without device events
    std::vector<DeviceIdle> gpu_idle;          // gpu_idle_gaps(trace): the timeline marks them
    std::vector<AttentionInstance> attention;  // attention_instances(trace): every attention call
    std::vector<Roof> roofs;                   // call_roofs(...): what the calls are measured against (a run's only)
    GraphCaptureSummary capture;   // graph_capture_summary(trace): a capture trace's graphs (none: graphs 0)
    TraceQuality quality;          // trace_quality(trace, the run's import notes)
    CollectiveReport collectives;  // collective_report(trace): calls, matched across ranks, the straggler
    OverlapReport overlap;         // comm_overlap(trace): communication hidden or exposed, per rank and step
    // The operator table's device columns (Self CUDA, CUDA total, ...) are shown: the trace has device
    // events, or the run ran on a GPU. The CLI's tables, the GUI's and the reports ask this, not the events.
    bool device_columns = false;
    bool operator==(const RunAnalysis&) const = default;
};

RunAnalysis analyze_run(const Trace& trace, const RunSpec* spec = nullptr);
// A run's trace with what the run knows besides: its spec (the calls' causal flag) and its roof.
RunAnalysis analyze_run(const ProfileResult& run);

// A run together with its analysis, as the GUI and the reports pass them around.
struct AnalyzedRun {
    std::shared_ptr<const ProfileResult> run;
    std::shared_ptr<const RunAnalysis> analysis;
};
AnalyzedRun analyzed(std::shared_ptr<const ProfileResult> run);  // analyze_run(*run), shared

}  // namespace awb
