#include "cli_explain.h"

#include <iostream>

#include "cli_engine_call.h"
#include "io/json_write.h"
#include "io/measurement_json.h"

namespace awb::cli {

Explanation explain_and_print(const Measurements& m) {
    Explanation x = explain(m);
    print_explanation(x);
    return x;
}

void print_explanation(const Explanation& x) {
    std::cout << "\n" << format_findings(x.findings) << "\n" << format_checklist(x.checklist);
}

void add_explanation(nlohmann::json& j, const Explanation& x) {
    j["findings"] = findings_json(x.findings);
    j["checklist"] = checklist_json(x.checklist);
}

void write_report(const std::string& path, ReportInput input, const Explanation& x) {
    if (path.empty()) return;
    input.explanation = x;
    write_output(path, html_report(input));
}

int write_sweep_outputs(const char* command, const SweepResult& r, const SweepAnalysis& analysis, const Explanation& x,
                        const SweepOutputs& to) {
    return write_outputs(command, [&] {
        nlohmann::json j = sweep_file_json(r, analysis);
        add_explanation(j, x);
        write_output(to.json, our_file_text(j));
        write_output(to.csv, sweep_csv(r));
        ReportInput in;
        in.sweep = &r;
        in.sweep_analysis = &analysis;
        write_report(to.report, in, x);
    });
}

}  // namespace awb::cli
