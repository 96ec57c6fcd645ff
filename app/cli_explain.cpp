#include "cli_explain.h"

#include <iostream>

#include "cli_engine_call.h"
#include "io/json_write.h"
#include "results/measurement_json.h"

namespace awb::cli {

Explanation explain_and_print(const Measurements& m) {
    Explanation explanation = explain(m);
    print_explanation(explanation);
    return explanation;
}

void print_explanation(const Explanation& explanation) {
    std::cout << "\n" << format_findings(explanation.findings) << "\n" << format_checklist(explanation.checklist);
}

void add_explanation(nlohmann::json& j, const Explanation& explanation) {
    j["findings"] = findings_json(explanation.findings);
    j["checklist"] = checklist_json(explanation.checklist);
}

void write_report(const std::string& path, ReportInput input, const Explanation& explanation) {
    if (path.empty()) return;
    input.explanation = explanation;
    write_output(path, html_report(input));
}

int write_sweep_outputs(const char* command, const SweepResult& r, const SweepAnalysis& analysis,
                        const Explanation& explanation, const SweepOutputs& to) {
    return write_outputs(command, [&] {
        nlohmann::json j = sweep_file_json(r, analysis);
        add_explanation(j, explanation);
        write_output(to.json, our_file_text(j));
        write_output(to.csv, sweep_csv(r));
        ReportInput in;
        in.sweep = &r;
        in.sweep_analysis = &analysis;
        write_report(to.report, in, explanation);
    });
}

}  // namespace awb::cli
