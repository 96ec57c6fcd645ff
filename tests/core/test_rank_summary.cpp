// A rank's summary (analysis/rank_summary.h, attnwb inspect RANK --summary): the summaries of a run's
// ranks, written and opened together, give the run's collectives, their matching and overlap, the GPU
// time breakdown and the kernel table exactly as the ranks' whole traces do, and say what they lack.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "analysis/rank_summary.h"
#include "analysis/run_analysis.h"
#include "io/trace_files.h"
#include "io/trace_import.h"
#include "results/chrome_trace.h"
#include "results/collectives_json.h"
#include "results/results_file.h"
#include "results/run_json.h"
#include "test_support.h"

using namespace awb;

namespace rank_summary_test {

// Each rank file of the folder summarised into dir, as attnwb inspect RANK --summary writes it.
void summarise_ranks(const std::string& folder, const std::filesystem::path& dir, int64_t& left_out) {
    for (const std::string& path : trace_files_of(folder)) {
        const ImportedTrace t = import_chrome_trace(path);
        const RankSummary s = summarize_rank(t.trace);
        left_out += s.nested_ops + s.runtime_calls + s.other_cpu;
        EXPECT_EQ(int64_t(s.trace.events().size()) + s.nested_ops + s.runtime_calls + s.other_cpu, s.events) << path;
        write_rank_file(s.trace, t, t.rank, {{"of", path}},
                        (dir / (std::filesystem::path(path).stem().string() + ".json.gz")).string());
    }
}

TEST(RankSummary, SummariesOfEachGlooRankOpenAsTheRunWithItsCollectivesOverlapBreakdownAndKernels) {
    for (const std::string fixture : {"gloo/collectives", "gloo/straggler", "gloo/ring_attention"}) {
        const std::filesystem::path dir =
            test::fresh_dir("summaries_" + std::to_string(std::hash<std::string>{}(fixture)));
        int64_t left_out = 0;
        summarise_ranks(test::trace_fixture(fixture), dir, left_out);
        EXPECT_GT(left_out, 100) << fixture;  // the ops under aten::matmul, c10d's under its call ... left out
        const ResultsFile whole = open_results_file(test::trace_fixture(fixture));
        const ResultsFile summaries = open_results_file(dir.string());
        ASSERT_EQ(summaries.run->trace.meta().ranks, whole.run->trace.meta().ranks) << fixture;
        EXPECT_LT(summaries.run->trace.events().size(), whole.run->trace.events().size()) << fixture;
        const RunAnalysis a = analyze_run(*whole.run);
        const RunAnalysis b = analyze_run(*summaries.run);
        ASSERT_FALSE(a.collectives.matched.empty()) << fixture;
        EXPECT_EQ(collectives_json(b.collectives, b.overlap), collectives_json(a.collectives, a.overlap)) << fixture;
        EXPECT_EQ(nlohmann::json(b.gpu), nlohmann::json(a.gpu)) << fixture;
        EXPECT_EQ(nlohmann::json(b.kernels), nlohmann::json(a.kernels)) << fixture;
        EXPECT_EQ(b.attention.size(), a.attention.size()) << fixture;
        EXPECT_LT(b.operators.size(), a.operators.size()) << fixture;  // the nested ops are not in its table
        const auto& notes = summaries.import->notes.run;
        ASSERT_FALSE(notes.empty()) << fixture;
        EXPECT_NE(notes.back().find("rank0.json.gz, rank1.json.gz, rank2.json.gz (+1 more): a rank's summary"),
                  std::string::npos)
            << notes.back();
    }
}

TraceEvent event(const char* name, EventKind kind, int64_t start, int64_t end, int64_t correlation = 0) {
    TraceEvent e;
    e.name = EventName(name);
    e.kind = kind;
    e.start_ns = start;
    e.end_ns = end;
    e.thread = 1;
    e.correlation_id = correlation;
    if (kind == EventKind::Kernel) {
        e.device = DeviceKind::CUDA;
        e.device_index = 0;
        e.thread = 7;
    }
    return e;
}

// aten::linear > aten::addmm (launches the kernel) > aten::expand (launches nothing), a runtime call that
// launched nothing and one that launched the kernel: the nested op that launched nothing and the idle
// runtime call are left out, the rest kept.
Trace small_trace(int64_t expand_start) {
    TraceMeta meta;
    std::vector<TraceEvent> events = {event("aten::linear", EventKind::CpuOp, 0, 10'000, 1),
                                      event("aten::addmm", EventKind::CpuOp, 1'000, 9'000, 2),
                                      event("aten::expand", EventKind::CpuOp, expand_start, 3'000, 3),
                                      event("cudaGetDevice", EventKind::Runtime, 3'000, 3'100, 40),
                                      event("cudaLaunchKernel", EventKind::Runtime, 4'000, 5'000, 41),
                                      event("gemm", EventKind::Kernel, 6'000, 8'000, 41)};
    events[4].linked_correlation_id = 2;
    events[5].linked_correlation_id = 2;
    return Trace::build(std::move(events), {}, std::move(meta));
}

std::vector<std::string> names(const Trace& t) {
    std::vector<std::string> out;
    for (const TraceEvent& e : t.events()) out.push_back(e.name.str());
    return out;
}

TEST(RankSummary, KeepsTheLaunchingOpsAndLaunchesAndLeavesOutTheRest) {
    const RankSummary s = summarize_rank(small_trace(2'000));
    EXPECT_EQ(names(s.trace), (std::vector<std::string>{"aten::linear", "aten::addmm", "cudaLaunchKernel", "gemm"}));
    EXPECT_EQ(s.nested_ops, 1);
    EXPECT_EQ(s.runtime_calls, 1);
    EXPECT_EQ(s.events, 6);
    EXPECT_NE(rank_summary_text(s).find("4 of 6 events kept"), std::string::npos) << rank_summary_text(s);
}

// HTA's overlap figure rounds a rank's times to whole microseconds when one of them has a fraction of one:
// where only an event left out has one, that event stays, so the summary rounds as the trace did.
TEST(RankSummary, KeepsAnEventWithAFractionOfAMicrosecondWhereOnlyALeftOutOneHasIt) {
    const RankSummary s = summarize_rank(small_trace(2'500));
    EXPECT_EQ(names(s.trace),
              (std::vector<std::string>{"aten::linear", "aten::addmm", "aten::expand", "cudaLaunchKernel", "gemm"}));
    EXPECT_EQ(s.nested_ops, 0);
}

// A trace of epoch times written and read back: each time keeps its fraction of a microsecond from the
// origin (the file's base lies whole microseconds from it).
TEST(RankSummary, ATraceOfEpochTimesKeepsEachTimesFractionOfAMicrosecond) {
    TraceMeta meta;
    meta.origin_ns = 0;
    const int64_t epoch = 1'700'000'000'123'456'789;
    std::vector<TraceEvent> events = {event("aten::mm", EventKind::CpuOp, epoch + 250, epoch + 5'000'000)};
    const Trace t = Trace::build(std::move(events), {}, std::move(meta));
    const std::filesystem::path dir = test::fresh_dir("epoch_fraction");
    write_chrome_trace(t, ChromeTraceInfo{}, (dir / "t.json").string());
    const ImportedTrace back = import_chrome_trace((dir / "t.json").string());
    ASSERT_EQ(back.trace.events().size(), 1u);
    const TraceEvent& e = back.trace.events().front();
    EXPECT_EQ(e.end_ns - e.start_ns, 5'000'000 - 250);
    EXPECT_EQ((e.start_ns - back.trace.meta().origin_ns) % 1000, (epoch + 250) % 1000);
}

}  // namespace rank_summary_test
