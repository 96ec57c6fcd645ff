// The one route from files to a run (results/results_file.h): open_traces for a trace, the ranks of a run and
// a graph replay with its captures, the import's facts kept beside the run; open_results_file goes the
// same way, and names a kind its caller does not take without reading it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "io/trace_import.h"
#include "report/report_sources.h"
#include "results/results_file.h"
#include "results/workspace.h"
#include "test_support.h"

namespace awb {
namespace {

std::string trace_fixture(const std::string& name) { return std::string(AWB_FIXTURE_DIR) + "/traces/" + name; }

TEST(ResultsFile, OneTraceKeepsTheImportsFactsBesideTheRun) {
    const ResultsFile f = open_traces({{trace_fixture("kineto_gpu_2x.json")}, "", {}});
    ASSERT_TRUE(f.run && f.import);
    EXPECT_EQ(f.path, trace_fixture("kineto_gpu_2x.json"));
    EXPECT_GT(f.run->trace.events().size(), 0u);
    EXPECT_EQ(f.import->trace.events().size(), 0u);  // the events moved into the run, not copied
    EXPECT_EQ(f.import->bytes_read, int64_t(std::filesystem::file_size(trace_fixture("kineto_gpu_2x.json"))));
    EXPECT_FALSE(f.import->devices.empty());
    EXPECT_FALSE(f.graph_replay);
    // open_results_file takes the same route: the same run, the same facts.
    const ResultsFile g = open_results_file(trace_fixture("kineto_gpu_2x.json"));
    ASSERT_TRUE(g.run && g.import);
    EXPECT_EQ(g.run->trace.events().size(), f.run->trace.events().size());
    EXPECT_EQ(g.import->categories, f.import->categories);
}

TEST(ResultsFile, AFolderWithCaptureTracesIsAReplayWithItsCaptures) {
    const std::string folder = trace_fixture("graph_replay/vllm");
    const ResultsFile f = open_traces({{}, folder, {}});
    ASSERT_TRUE(f.graph_replay && f.import && f.run);
    EXPECT_EQ(f.path, folder);
    EXPECT_GT(f.graph_replay->attributed, 0);
    EXPECT_EQ(f.graph_replay->capture_files.size(), 1u);
    // Its GPUs are recorded without a name (ROCm, MI300X): what is recorded still names them.
    EXPECT_EQ(f.run->environment.device_name, "8 x unnamed GPU (192.0 GiB, compute 9.4, 304 SMs)");
    const ResultsFile g = open_results_file(folder);
    ASSERT_TRUE(g.graph_replay);
    EXPECT_EQ(g.graph_replay->attributed, f.graph_replay->attributed);
    // The same captures named with the replay's file, as attnwb inspect --capture gives them.
    const ResultsFile named = open_traces({{folder + "/graph_execution.json.gz"}, "", {folder + "/capture_traces"}});
    ASSERT_TRUE(named.graph_replay);
    EXPECT_EQ(named.graph_replay->attributed, f.graph_replay->attributed);
    // A capture that is not there is a problem of the replay; the replay still opens.
    const ResultsFile missing = open_traces({{folder + "/graph_execution.json.gz"}, "", {folder + "/nothing_here"}});
    ASSERT_TRUE(missing.graph_replay && missing.run);
    EXPECT_FALSE(missing.graph_replay->problems.empty());
}

TEST(ResultsFile, TheRanksOfOneRunAreOneTrace) {
    const std::string folder = trace_fixture("multi_rank");
    const ResultsFile f = open_traces({{}, folder, {}});
    ASSERT_TRUE(f.run && f.import);
    EXPECT_GE(f.run->trace.meta().ranks.size(), 2u);
}

TEST(ResultsFile, AKindTheCallerDoesNotTakeIsNamedNotRead) {
    // A trace refused unread: no import, no run.
    const ResultsFile trace =
        open_results_file(trace_fixture("kineto_gpu_2x.json"), nullptr, kind_bit(ResultsKind::Sweep));
    EXPECT_EQ(trace.kind, ResultsKind::Trace);
    EXPECT_FALSE(trace.read);
    EXPECT_FALSE(trace.run || trace.import);
    // A workspace whose trace is gone: read, it names the missing trace; refused, it is not read at all.
    const std::filesystem::path dir = test::fresh_dir("results_file_kinds");
    const std::string ws = (dir / "ws.json").string();
    Workspace saved;
    saved.runs.push_back({"gone", std::make_shared<const ProfileResult>(
                                      std::move(*open_results_file(trace_fixture("kineto_gpu_2x.json")).run))});
    save_workspace(saved, ws);
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
        if (e.path().string().find(".trace.json") != std::string::npos) std::filesystem::remove(e.path());
    const ResultsFile read = open_results_file(ws);
    ASSERT_TRUE(read.read && read.workspace);
    ASSERT_EQ(read.workspace->problems.size(), 1u);
    EXPECT_NE(read.workspace->problems[0].find("is missing"), std::string::npos) << read.workspace->problems[0];
    const ResultsFile refused = open_results_file(ws, nullptr, kAnyResultsKind & ~kind_bit(ResultsKind::Workspace));
    EXPECT_EQ(refused.kind, ResultsKind::Workspace);
    EXPECT_FALSE(refused.read);
    EXPECT_FALSE(refused.workspace);
    // Bad files are still refused with their message, whatever the caller takes.
    const std::string other = (dir / "other.json").string();
    std::ofstream(other) << R"({"hello": 1})";
    try {
        open_results_file(other, nullptr, kind_bit(ResultsKind::Sweep));
        ADD_FAILURE() << "a file that is none of ours was opened";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("'" + other + "': not a file of Attention Workbench"), std::string::npos)
            << e.what();
    }
}

// One report from the same inputs, wherever they come from: attnwb report's sources (the files opened)
// and the GUI's (the run on screen with its analysis) give the same HTML; a profile report's own findings
// stand for the rules that need its events; a second run or a workspace is refused naming the file.
TEST(ReportSources, TheCliAndTheGuiWriteOneReportFromTheSameRun) {
    const std::string seeds = std::string(AWB_FIXTURE_DIR) + "/../fuzz/seeds-results/";
    ReportSources from_files;
    add_results(from_files,
                std::make_shared<const ResultsFile>(open_results_file(trace_fixture("kineto_gpu_2x.json"))));
    add_results(from_files, std::make_shared<const ResultsFile>(open_results_file(seeds + "bench/bench.json")));
    complete_sources(from_files);
    ASSERT_TRUE(from_files.analysis && from_files.profile);
    EXPECT_FALSE(from_files.profile->operators.empty());

    ReportSources on_screen;  // the GUI holds the run and its analysis already
    on_screen.run = from_files.run;
    on_screen.analysis = std::make_shared<const RunAnalysis>(analyze_run(*from_files.run));
    on_screen.bench = from_files.bench;
    complete_sources(on_screen);
    const Explanation explained = explain_sources(from_files);
    EXPECT_FALSE(explained.checklist.empty());
    EXPECT_EQ(html_report(report_input(on_screen, explain_sources(on_screen))),
              html_report(report_input(from_files, explained)));

    try {  // a second run
        add_results(from_files, std::make_shared<const ResultsFile>(open_results_file(seeds + "report/report.json")));
        ADD_FAILURE() << "a second run was taken";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("report.json': a second profiled run"), std::string::npos) << e.what();
    }
    ReportSources report_file;  // a profile report: its run without events, its profile and findings as written
    add_results(report_file, std::make_shared<const ResultsFile>(open_results_file(seeds + "report/report.json")));
    complete_sources(report_file);
    EXPECT_FALSE(report_file.analysis);
    ASSERT_TRUE(report_file.profile && report_file.measured());
    std::vector<std::string> rules;
    for (const Finding& f : explain_sources(report_file).findings) rules.push_back(f.rule);
    EXPECT_NE(std::find(rules.begin(), rules.end(), "score-matrix"), rules.end());
    EXPECT_NE(std::find(rules.begin(), rules.end(), "fragmentation"), rules.end());
}

// Every finding the advisor makes from a run alone is of a rule listed as reading the run, so a profile
// report's own findings of it are kept when the file is reported on without its events: traces that fire
// the manual-attention, layout, fragmentation, dispatch and collective rules.
TEST(ReportSources, EveryRuleOnARunIsKeptFromAReportFile) {
    const std::string traces = std::string(AWB_FIXTURE_DIR) + "/traces/";
    std::set<std::string> fired;
    for (const char* path : {"manual/gpt2_baddbmm_train.json.gz", "manual/llama_gqa_bf16_train_stack.json.gz",
                             "kineto_gpu_2x.json", "gloo/straggler", "gloo/collectives", "multi_rank"}) {
        const ResultsFile f = open_results_file(traces + path);
        for (const Finding& finding : advise(Measurements{&*f.run})) {
            fired.insert(finding.rule);
            EXPECT_TRUE(reads_the_run(finding.rule)) << path << ": " << finding.rule;
        }
    }
    // dispatch-bound, exposed-communication, fragmentation, materialised-scores (which attnwb report
    // dropped from a report file before the list was the advisor's) and straggler
    EXPECT_GE(fired.size(), 5u) << "the traces fire too few rules to test the list";
    EXPECT_EQ(fired.count("materialised-scores"), 1u);
    EXPECT_FALSE(reads_the_run("cold-start"));  // a benchmark's: judged again from the benchmark file
    EXPECT_FALSE(reads_the_run("precision"));
}

}  // namespace
}  // namespace awb
