// What every attnwb command that measures prints after its numbers, and writes with them: the
// advisor's findings, the measurement checklist, and the HTML report (--report FILE).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/explanation.h"
#include "model/sweep.h"
#include "report/report_html.h"

namespace awb::cli {

// explain(m) (analysis/explanation.h), printed (print_explanation).
Explanation explain_and_print(const Measurements& m);
void print_explanation(const Explanation& explanation);  // the findings, then the checklist, on stdout

// j["findings"] and j["checklist"].
void add_explanation(nlohmann::json& j, const Explanation& explanation);

// Writes the HTML report (nothing when path is empty) with x's findings and checklist; throws on failure.
void write_report(const std::string& path, ReportInput input, const Explanation& explanation);

// A sweep's files (attnwb sweep, attnwb merge): the JSON with x, the CSV and the report, each only
// when its path is given. One message and kExitRuntimeFailure when a write fails, else kExitOk.
struct SweepOutputs {
    std::string json, csv, report;
};
int write_sweep_outputs(const char* command, const SweepResult& r, const SweepAnalysis& analysis,
                        const Explanation& explanation, const SweepOutputs& to);

}  // namespace awb::cli
