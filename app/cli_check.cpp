// attnwb check: every variant against a float64 evaluation of the manual formula on the same inputs.
#include <iostream>
#include <memory>

#include "analysis/results_text.h"
#include "io/json_write.h"
#include "cli_engine_call.h"
#include "cli_explain.h"
#include "cli_options.h"
#include "cli_spec_options.h"
#include "engine/correctness.h"
#include "model/variant_catalog.h"
#include "results/measurement_json.h"
#include "results/run_json.h"

namespace awb::cli {

namespace {

struct CheckCommand {
    SpecOptions spec;
    std::vector<std::string> variants;
    std::string reference;
    double tolerance = 0;
    std::string json_path;
    std::string report_path;
    bool quiet = false;
};

int run(const CLI::App& sub, const CheckCommand& c) {
    std::vector<SpecProblem> problems;
    const RunSpec spec = to_spec(sub, c.spec, problems);
    if (c.tolerance < 0) problems.push_back({"tolerance", "must be > 0 (or 0 for the dtype's default)"});
    if (!problems.empty()) {
        std::cerr << "attnwb check: invalid input:\n" << format_problems(problems);
        return kExitBadInput;
    }
    std::vector<std::string> variants = variant_list(c.variants, problems);
    if (!problems.empty()) {
        std::cerr << "attnwb check: invalid input:\n" << format_problems(problems);
        return kExitBadInput;
    }
    if (variants.empty() && !spec.module.empty()) variants.push_back(spec.module);  // --variant PATH: that module
    if (variants.empty())
        for (const auto& v : variant_catalog()) variants.push_back(v.name);

    StderrProgress progress(c.quiet, /*keep_finished=*/true);
    CheckReport report;
    const int rc = call_engine("check", progress,
                               [&] { report = check_variants(spec, variants, c.tolerance, &progress, c.reference); });
    if (rc != kExitOk) return rc;
    std::cout << format_check(report);
    const Explanation explained = explain_and_print({nullptr, nullptr, nullptr, &report});
    if (write_outputs("check", [&] {
            nlohmann::json j = check_file_json(report);
            add_explanation(j, explained);
            write_output(c.json_path, our_file_text(j));
            ReportInput in;
            in.check = &report;
            write_report(c.report_path, in, explained);
        }) != kExitOk)
        return kExitRuntimeFailure;
    if (progress.interrupted()) return kExitInterrupted;
    return report.all_passed() ? kExitOk : kExitOutOfTolerance;
}

}  // namespace

Command register_check(CLI::App& app) {
    auto c = std::make_shared<CheckCommand>();
    CLI::App* sub = app.add_subcommand(
        "check",
        "Compare every variant with the manual formula evaluated in float64 on the same inputs: output and "
        "q/k/v gradients (max abs and relative error), padded keys, rows that see no key. Exit 0 when all "
        "pass, 3 when a variant is out of tolerance.");
    add_spec_options(*sub, c->spec);
    sub->add_option("--variants", c->variants,
                    "Variants to check, built-in names or module files (default: --variant's module, else all: " +
                        variant_names() + ")")
        ->delimiter(',')
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    sub->add_option("--reference", c->reference,
                    "A TorchScript module (.pt) run in float64 as the reference for modules; default: the float64 "
                    "manual formula for a module whose metadata says semantics attention, else the module itself (.pt) "
                    "or the TorchScript export its metadata names (.pt2)");
    sub->add_option("--tolerance", c->tolerance,
                    "Bound on max|x - ref| / max|ref|; 0 = the dtype's default (float64 1e-10, float32 1e-5, "
                    "float16 5e-3, bfloat16 4e-2)")
        ->capture_default_str();
    add_json_option(*sub, c->json_path, "the report", "check");
    add_report_option(*sub, c->report_path);
    add_quiet_option(*sub, c->quiet);
    return [sub, c] { return run(*sub, *c); };
}

}  // namespace awb::cli
