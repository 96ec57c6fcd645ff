// The profile report: what attnwb profile writes (--report-json) and the HTML report, the checklist and
// attnwb report read back: a run's spec, options and environment with its analysis's operator table,
// memory series (downsampled), peak, steps and attention calls. Built from a RunAnalysis only;
// results/run_json.h reads and writes it. Pure C++: no torch, no Qt.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/run_analysis.h"
#include "model/profile_result.h"

namespace awb {

struct ProfileReport {
    RunSpec spec;
    bool spec_known = true;  // false for an imported trace without our metadata
    ProfileOptions options;
    Environment environment;
    bool grouped_by_shape = false;
    bool device_columns = false;  // RunAnalysis::device_columns: the operator tables show the device columns
    std::vector<OperatorRow> operators;
    int64_t peak_memory_bytes = 0;            // replayed from [memory] events (CPU), or CUDA allocator peak
    std::string peak_memory_source;           // "replayed cpu allocations" / "cuda allocator"
    std::vector<MemorySeries> memory_series;  // min/max downsampled
    std::vector<StepRecord> steps;
    std::vector<AttentionInstance> attention;  // every attention call of the run
    std::vector<Roof> roofs;                   // the roofs its calls are measured against (RunAnalysis::roofs)
    int64_t attention_gpu_busy_ns = 0;  // busy time of the GPUs its calls ran on (attention_totals), 0 without kernels
};

// The report of a run, from its analysis (analyze_run(result)): the operators grouped by input shape
// when asked (key_averages(group_by_input_shape=True)), else the analysis's.
ProfileReport make_report(const ProfileResult& result, const RunAnalysis& analysis, bool group_by_shape = false);
// The run a report describes, without its events (spec, options, environment, steps, device peak):
// what the measurement checklist reads when only the report file is at hand.
ProfileResult run_of_report(const ProfileReport& report);

}  // namespace awb
