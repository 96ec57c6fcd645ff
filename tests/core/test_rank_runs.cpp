// The ranks of a run, checked: files that contradict each other are other runs, named with the
// reason and never renumbered; a subset of a run's ranks opens as that run with a note; clocks that
// disagree are aligned on the collectives.
#include <gtest/gtest.h>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/clock_alignment.h"
#include "analysis/collectives.h"
#include "io/trace_files.h"
#include "io/trace_import.h"
#include "io/trace_ranks.h"
#include "results/results_file.h"
#include "test_support.h"

using namespace awb;
using namespace awb::trace_io;

namespace rank_runs_test {

// A rank's file: one op at [start, start + 10 us).
ImportedTrace part(int rank, int world, const std::string& backend = "nccl", int64_t start = 1'000'000) {
    ImportedTrace p;
    p.rank = rank;
    p.world_size = world;
    p.backend = backend;
    TraceEvent e;
    e.name = "aten::mm";
    e.start_ns = start;
    e.end_ns = start + 10'000;
    TraceMeta meta;
    if (rank >= 0) meta.ranks = {rank};
    p.trace = Trace::build({e}, {}, meta);
    return p;
}

std::vector<std::string> names(size_t n) {
    std::vector<std::string> out;
    for (size_t i = 0; i < n; ++i) out.push_back("r" + std::to_string(i) + ".json");
    return out;
}

std::vector<ImportedTrace> parts_of(std::initializer_list<ImportedTrace> list) {
    std::vector<ImportedTrace> out;
    for (const ImportedTrace& p : list) {
        ImportedTrace copy;
        copy.rank = p.rank;
        copy.world_size = p.world_size;
        copy.backend = p.backend;
        copy.process_groups = p.process_groups;
        copy.trace = Trace::build(p.trace.events(), {}, p.trace.meta());
        out.push_back(std::move(copy));
    }
    return out;
}

// The ranks of a run are merged, not sorted and nested again: the same events, order, parents and depths as
// Trace::build of their concatenation. Each part: ops nested three deep on two threads, kernels on a
// stream, and intervals equal to other parts' and to their own (the order given decides those).
TEST(RankRuns, MergedRanksAreTheTraceBuiltFromAllTheirEvents) {
    std::vector<std::vector<TraceEvent>> parts;
    std::vector<TraceEvent> all;
    for (int32_t rank = 0; rank < 4; ++rank) {
        std::vector<TraceEvent> events;
        uint64_t lcg = 12345u + uint64_t(rank);
        auto next = [&lcg](int64_t n) {
            return int64_t((lcg = lcg * 6364136223846793005ull + 1442695040888963407ull) >> 33) % n;
        };
        for (int i = 0; i < 200; ++i) {
            TraceEvent e;
            e.name = "e" + std::to_string(rank) + "_" + std::to_string(i);
            e.rank = rank;
            e.thread = uint64_t(1 + next(2));
            e.start_ns = next(50) * 1000;  // coarse: many equal starts, within and across ranks
            e.end_ns = e.start_ns + (1 + next(20)) * 1000;
            if (i % 5 == 0) {
                e.kind = EventKind::Kernel;
                e.device = DeviceKind::CUDA;
                e.thread = 7;
            }
            events.push_back(e);
        }
        all.insert(all.end(), events.begin(), events.end());
        TraceMeta meta;
        meta.ranks = {rank};
        auto [ordered, memory] = Trace::build(std::move(events), {}, meta).take();
        parts.push_back(std::move(ordered));
    }
    const Trace built = Trace::build(all, {}, {});
    const Trace merged = Trace::merge(std::move(parts), {}, {});
    ASSERT_EQ(merged.events().size(), built.events().size());
    EXPECT_EQ(merged.begin_ns(), built.begin_ns());
    EXPECT_EQ(merged.end_ns(), built.end_ns());
    int nested = 0;
    for (size_t i = 0; i < built.events().size(); ++i) {
        const TraceEvent &m = merged.events()[i], &b = built.events()[i];
        ASSERT_EQ(m.name.view(), b.name.view()) << "at " << i;
        EXPECT_EQ(m.parent, b.parent) << b.name.view();
        EXPECT_EQ(m.depth, b.depth) << b.name.view();
        nested += b.depth >= 2;
    }
    EXPECT_GT(nested, 20);  // the parts nest deep enough for the parents to be remapped
}

TEST(RankRuns, OneRunKeepsEachFilesOwnRank) {
    auto parts = parts_of({part(3, 4), part(1, 4)});
    const auto runs = group_rank_files(parts, names(2));
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].label, "ranks 1, 3 of 4 (nccl)");
    const ImportedTrace merged = merge_rank_traces(std::move(parts), names(2));
    EXPECT_EQ(merged.trace.meta().ranks, (std::vector<int32_t>{1, 3}));
    // A subset of the run: a note names the missing ranks, nothing is refused.
    ASSERT_EQ(merged.notes.run.size(), 1u);
    EXPECT_NE(merged.notes.run[0].find("2 of the run's 4 ranks are in the files; missing [0, 2]"), std::string::npos)
        << merged.notes.run[0];
}

TEST(RankRuns, FilesThatContradictEachOtherAreOtherRuns) {
    struct Case {
        std::vector<ImportedTrace> parts;
        std::string reason;
    };
    ProcessGroup a{"1", "undefined", "cuda:nccl", 2, {0, 1}}, b{"1", "undefined", "cuda:nccl", 2, {0, 2}};
    ImportedTrace with_a = part(0, 4), with_b = part(1, 4);
    with_a.process_groups = {a};
    with_b.process_groups = {b};
    std::vector<Case> cases;
    cases.push_back({parts_of({part(0, 128), part(34, 300, "gloo")}), "world size 300, not 128"});
    cases.push_back({parts_of({part(0, 4), part(1, 4, "gloo")}), "backend gloo, not nccl"});
    cases.push_back({parts_of({part(0, 4), part(0, 4)}), "rank 0 is already r0.json"});
    cases.push_back({parts_of({with_a, with_b}), "process group '1' holds ranks [0, 2], not [0, 1]"});
    // Epoch microseconds beside a trace's own zero: 134,057,474 s apart.
    cases.push_back({parts_of({part(0, 2), part(1, 2, "nccl", int64_t(134'057'474) * 1'000'000'000)}),
                     "from the others' (another clock"});
    for (Case& c : cases) {
        const auto paths = names(c.parts.size());
        const auto runs = group_rank_files(c.parts, paths);
        ASSERT_EQ(runs.size(), 2u) << c.reason;
        EXPECT_NE(runs[1].why_apart.find(c.reason), std::string::npos) << runs[1].why_apart;
        try {
            merge_rank_traces(std::move(c.parts), paths);
            ADD_FAILURE() << "not refused: " << c.reason;
        } catch (const MixedRunsError& e) {
            EXPECT_NE(std::string(e.what()).find(c.reason), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("r1.json"), std::string::npos) << e.what();
            ASSERT_EQ(e.runs().size(), 2u);
            EXPECT_EQ(e.runs()[1], std::vector<std::string>{"r1.json"});
        }
    }
}

TEST(RankRuns, FilesWithoutARankBesideRanksAreNamedAndAloneAreNumberedByPosition) {
    auto mixed = parts_of({part(0, 2), part(-1, -1), part(1, 2)});
    const auto runs = group_rank_files(mixed, names(3));
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].files, (std::vector<size_t>{0, 2}));
    EXPECT_FALSE(runs[1].ranked);
    EXPECT_EQ(runs[1].files, std::vector<size_t>{1});
    EXPECT_THROW(merge_rank_traces(std::move(mixed), names(3)), MixedRunsError);
    // No file says a rank: one run numbered by position, and said so.
    const ImportedTrace alone = merge_rank_traces(parts_of({part(-1, -1), part(-1, -1)}), names(2));
    EXPECT_EQ(alone.trace.meta().ranks, (std::vector<int32_t>{0, 1}));
    ASSERT_FALSE(alone.notes.run.empty());
    EXPECT_NE(alone.notes.run[0].find("numbered 0-1 in the order given"), std::string::npos);
}

TEST(RankRuns, MetadataAFileLacksIsANote) {
    ImportedTrace lacking = part(1, -1, "");
    const ImportedTrace merged = merge_rank_traces(parts_of({part(0, 2), lacking}), names(2));
    EXPECT_EQ(merged.trace.meta().ranks, (std::vector<int32_t>{0, 1}));
    std::string notes;
    for (const auto& n : merged.notes.run) notes += n + "\n";
    EXPECT_NE(notes.find("r1.json does not say the world size (the other files do)"), std::string::npos) << notes;
    EXPECT_NE(notes.find("r1.json does not say the backend"), std::string::npos) << notes;
}

TEST(RankRuns, AFolderOfTwoRunsIsRefusedByNameOrOpenedAsTwo) {
    // The 4-rank gloo run and a 2-rank one chosen together.
    std::vector<std::string> files = trace_files_of(test::trace_fixture("gloo/straggler"));
    for (const auto& f : trace_files_of(test::trace_fixture("gloo/two_ranks_ws2"))) files.push_back(f);
    try {
        open_trace_selection(files);
        ADD_FAILURE() << "two runs opened as one";
    } catch (const MixedRunsError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("ranks 0-3 of 4 (gloo)"), std::string::npos) << what;
        EXPECT_NE(what.find("world size 2, not 4"), std::string::npos) << what;
        EXPECT_NE(what.find("two_ranks_ws2/rank0.json"), std::string::npos) << what;
    }
    const std::vector<ResultsFile> runs = open_trace_runs({files, "", {}});
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].run->trace.meta().ranks, (std::vector<int32_t>{0, 1, 2, 3}));
    EXPECT_EQ(runs[1].run->trace.meta().ranks, (std::vector<int32_t>{0, 1}));
    EXPECT_EQ(runs[1].import->world_size, 2);
    // Two rank files chosen together (File > Open) are one run, not a refused graph replay.
    const ResultsFile two = open_trace_selection(trace_files_of(test::trace_fixture("gloo/two_ranks_ws2")));
    EXPECT_EQ(two.run->trace.meta().ranks, (std::vector<int32_t>{0, 1}));
    EXPECT_TRUE(two.import->notes.run.empty());
}

// The hand-made 2-rank NCCL fixture on one clock: rank 1's baseTimeNanoseconds is 2 ms after rank 0's,
// and both all-reduce kernels end at 5205.5 us of rank 0's clock. Written again with rank 1's base 2 ms
// early (its host's clock behind), the kernel ends on rank 1 before rank 0's started: aligned on the
// kernels' ends, rank 1 gets +2 ms, which the note says.
TEST(RankRuns, ClocksThatDisagreeAreAlignedOnTheCollectives) {
    const ResultsFile same = open_results_file(test::trace_fixture("multi_rank"));
    EXPECT_TRUE(same.run->trace.meta().clock_offsets_ns.empty());
    const CollectiveReport agreed = collective_report(same.run->trace);
    EXPECT_EQ(agreed.clock_disagreements, 0);
    ASSERT_EQ(agreed.matched.size(), 1u);
    EXPECT_EQ(agreed.matched[0].skew_ns, 25'250);  // rank 1's kernel started 25.25 us later
    EXPECT_EQ(agreed.matched[0].last_rank, 1);

    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("awb-clocks-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    for (int r = 0; r < 2; ++r) {
        const std::string name = "rank" + std::to_string(r) + ".pt.trace.json";
        std::ifstream in(test::trace_fixture("multi_rank/" + name));
        nlohmann::json j = nlohmann::json::parse(in);
        if (r == 1) j["baseTimeNanoseconds"] = j["baseTimeNanoseconds"].get<int64_t>() - 4'000'000;
        std::ofstream(dir / name) << j.dump();
    }
    const ImportedTrace raw = import_chrome_traces(trace_files_of(dir.string()));
    const CollectiveReport before = collective_report(raw.trace);
    EXPECT_EQ(before.clock_disagreements, 1);
    EXPECT_EQ(rank_clock_offsets(before), (std::map<int32_t, int64_t>{{1, 4'000'000}}));
    const ResultsFile f = open_results_file(dir.string());
    EXPECT_EQ(f.run->trace.meta().clock_offsets_ns, (std::map<int32_t, int64_t>{{1, 4'000'000}}));
    ASSERT_FALSE(f.import->notes.run.empty());
    EXPECT_NE(f.import->notes.run.back().find("rank 1 +4.000 ms added to their times"), std::string::npos)
        << f.import->notes.run.back();
    const CollectiveReport after = collective_report(f.run->trace);
    EXPECT_EQ(after.clock_disagreements, 0);
    ASSERT_EQ(after.matched.size(), 1u);
    EXPECT_EQ(after.matched[0].skew_ns, 25'250);
    // Every event of rank 1 moved by the offset, none of rank 0's.
    EXPECT_EQ(f.run->trace.end_ns(), same.run->trace.end_ns());
    std::filesystem::remove_all(dir);
    // The gloo runs on one host agree: nothing is shifted.
    const ResultsFile gloo = open_results_file(test::trace_fixture("gloo/collectives"));
    EXPECT_TRUE(gloo.run->trace.meta().clock_offsets_ns.empty());
}

// A collective one rank did not record (its last all_gather cut from rank 3's file): the others' is still
// matched among themselves, and the note says which ranks hold how many calls; nothing is renumbered.
TEST(RankRuns, ACollectiveOnSomeRanksOnlyIsMatchedAmongThemAndSaid) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("awb-onerank-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    for (int r = 0; r < 4; ++r) {
        const std::string name = "rank" + std::to_string(r) + ".json";
        std::ifstream in(test::trace_fixture("gloo/straggler/" + name));
        nlohmann::json j = nlohmann::json::parse(in);
        if (r == 3) {
            auto& events = j["traceEvents"];
            for (const char* cut : {"c10d::_allgather_base_", "gloo:all_gather"}) {
                size_t last = events.size();
                for (size_t i = 0; i < events.size(); ++i)
                    if (events[i].value("name", "") == cut) last = i;
                ASSERT_LT(last, events.size());
                events.erase(events.begin() + ptrdiff_t(last));
            }
        }
        std::ofstream(dir / name) << j.dump();
    }
    const ResultsFile f = open_results_file(dir.string());
    std::filesystem::remove_all(dir);
    EXPECT_EQ(f.run->trace.meta().ranks, (std::vector<int32_t>{0, 1, 2, 3}));
    const CollectiveReport r = collective_report(f.run->trace);
    ASSERT_EQ(r.matched.size(), 6u);
    const MatchedCollective& last = *std::max_element(
        r.matched.begin(), r.matched.end(), [](const auto& a, const auto& b) { return a.first_ns < b.first_ns; });
    EXPECT_EQ(last.name, "all_gather");
    EXPECT_EQ(last.ranks.size(), 3u);  // ranks 0-2
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_NE(
        r.notes[0].find(
            "process group 0: the ranks hold different numbers of calls (rank 0: 6, rank 1: 6, rank 2: 6, rank 3: 5)"),
        std::string::npos)
        << r.notes[0];
}

}  // namespace rank_runs_test
