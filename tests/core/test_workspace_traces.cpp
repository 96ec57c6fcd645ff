// Workspaces keep imported traces as they were opened: a two-rank run, a graph replay with its
// synthetic lane, single-rank Kineto, ROCm, legacy and torch 2 traces reopen with the same events
// (every field), names, ranks and analysis.
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/run_analysis.h"
#include "io/trace_files.h"
#include "results/graph_replay.h"
#include "results/results_file.h"
#include "results/run_json.h"
#include "results/workspace.h"
#include "test_support.h"

using namespace awb;
namespace fs = std::filesystem;

namespace {

const std::string kTraces = std::string(AWB_FIXTURE_DIR) + "/traces/";

void expect_same_event(const TraceEvent& a, const TraceEvent& b, size_t i) {
    SCOPED_TRACE("event " + std::to_string(i) + " " + std::string(a.name.view()));
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.device, b.device);
    EXPECT_EQ(a.device_index, b.device_index);
    EXPECT_EQ(a.start_ns, b.start_ns);
    EXPECT_EQ(a.end_ns, b.end_ns);
    EXPECT_EQ(a.thread, b.thread);
    EXPECT_EQ(a.is_async, b.is_async);
    EXPECT_EQ(a.replayed, b.replayed);
    EXPECT_EQ(a.scope, b.scope);
    EXPECT_EQ(a.correlation_id, b.correlation_id);
    EXPECT_EQ(a.linked_correlation_id, b.linked_correlation_id);
    EXPECT_EQ(a.sequence_nr, b.sequence_nr);
    EXPECT_EQ(a.fwd_thread, b.fwd_thread);
    EXPECT_EQ(a.shapes(), b.shapes());
    EXPECT_EQ(a.dtypes(), b.dtypes());
    EXPECT_EQ(a.stack(), b.stack());
    EXPECT_EQ(a.concrete(), b.concrete());
    EXPECT_EQ(bool(a.launch), bool(b.launch));
    if (a.launch && b.launch) {
        EXPECT_EQ(*a.launch, *b.launch);
    }
    EXPECT_EQ(a.rank, b.rank);
    EXPECT_EQ(a.parent, b.parent);
    EXPECT_EQ(a.depth, b.depth);
}

void expect_same_trace(const Trace& a, const Trace& b) {
    ASSERT_EQ(a.events().size(), b.events().size());
    for (size_t i = 0; i < a.events().size(); ++i) expect_same_event(a.events()[i], b.events()[i], i);
    ASSERT_EQ(a.memory().size(), b.memory().size());
    for (size_t i = 0; i < a.memory().size(); ++i) {
        const MemoryEvent &x = a.memory()[i], &y = b.memory()[i];
        EXPECT_EQ(
            std::tie(x.ts_ns, x.bytes, x.device, x.device_index, x.thread, x.rank, x.total_allocated, x.total_reserved),
            std::tie(y.ts_ns, y.bytes, y.device, y.device_index, y.thread, y.rank, y.total_allocated, y.total_reserved))
            << "memory event " << i;
    }
    const TraceMeta &m = a.meta(), &n = b.meta();
    EXPECT_EQ(m.origin_ns, n.origin_ns);
    EXPECT_EQ(m.clock_resolution_ns, n.clock_resolution_ns);
    EXPECT_EQ(m.source, n.source);
    EXPECT_EQ(m.thread_names, n.thread_names);
    EXPECT_EQ(m.stream_names, n.stream_names);
    EXPECT_EQ(m.process_names, n.process_names);
    EXPECT_EQ(m.thread_process, n.thread_process);
    EXPECT_EQ(m.ranks, n.ranks);
    EXPECT_EQ(m.world_size, n.world_size);
    EXPECT_EQ(m.backend, n.backend);
    EXPECT_EQ(m.legacy_device_spans, n.legacy_device_spans);
    EXPECT_EQ(a.begin_ns(), b.begin_ns());
    EXPECT_EQ(a.end_ns(), b.end_ns());
}

// Saves the run in a workspace of its own, reopens it and checks that it comes back whole.
ProfileResult round_trip(const std::shared_ptr<const ProfileResult>& run, const std::string& name) {
    const fs::path dir = test::fresh_dir("wst_" + name);
    Workspace w;
    w.runs.push_back({name, run});
    w.shown = 0;
    save_workspace(w, (dir / "ws.json").string());
    const Workspace back = load_workspace((dir / "ws.json").string());
    EXPECT_TRUE(back.problems.empty()) << (back.problems.empty() ? "" : back.problems.front());
    if (back.runs.size() != 1) {
        ADD_FAILURE() << "the run did not come back";
        return {};
    }
    EXPECT_EQ(back.runs[0].label, name);
    EXPECT_EQ(back.shown, 0);
    return *back.runs[0].result;
}

void expect_reopens_as_it_was(const std::shared_ptr<const ProfileResult>& run, const std::string& name) {
    SCOPED_TRACE(name);
    const ProfileResult back = round_trip(run, name);
    expect_same_trace(run->trace, back.trace);
    EXPECT_EQ(back.spec_known, run->spec_known);
    EXPECT_EQ(back.environment, run->environment);
    EXPECT_EQ(back.roof, run->roof);
    EXPECT_TRUE(analyze_run(back) == analyze_run(*run)) << "the analysis differs";
    // And again: a reopened trace saved once more is still the same.
    expect_same_trace(run->trace, round_trip(std::make_shared<const ProfileResult>(back), name + "_again").trace);
}

std::shared_ptr<const ProfileResult> opened(const std::string& path) {
    ResultsFile f = open_results_file(path);
    return std::make_shared<const ProfileResult>(std::move(*f.run));
}

}  // namespace

TEST(WorkspaceTraces, TwoRankRunKeepsItsRanksNamesAndAnalysis) {
    const auto run = opened(kTraces + "multi_rank");
    ASSERT_EQ(run->trace.meta().ranks, (std::vector<int32_t>{0, 1}));
    ASSERT_EQ(run->trace.meta().world_size, 2);
    ASSERT_FALSE(run->trace.meta().thread_names.empty());
    expect_reopens_as_it_was(run, "two_ranks");
    // One file per rank, each saying which rank it is (so the folder opens as the ranks of one run).
    const fs::path runs = test::fresh_dir("wst_two_ranks_files") / "ws.runs";
    Workspace w;
    w.runs.push_back({"two ranks", run});
    save_workspace(w, (runs.parent_path() / "ws.json").string());
    std::vector<int> ranks;
    for (const auto& e : fs::directory_iterator(runs)) {
        const ImportedTrace t = import_chrome_trace(e.path().string());  // its distributedInfo
        ranks.push_back(t.rank);
        EXPECT_EQ(t.world_size, 2);
        EXPECT_EQ(t.backend, "nccl");
        EXPECT_EQ(t.trace.meta().ranks, std::vector<int32_t>{t.rank});
    }
    std::sort(ranks.begin(), ranks.end());
    EXPECT_EQ(ranks, (std::vector<int>{0, 1}));
}

TEST(WorkspaceTraces, GraphReplayKeepsItsSyntheticLaneAndLinks) {
    for (const char* folder : {"cuda", "vllm"}) {
        const auto run = opened(kTraces + "graph_replay/" + folder);
        ASSERT_EQ(run->trace.meta().thread_names.count(kGraphReplayLane), 1u) << folder;
        expect_reopens_as_it_was(run, std::string("replay_") + folder);
    }
}

TEST(WorkspaceTraces, SingleFileTracesReopenAsTheyWere) {
    for (const char* file : {"kineto_gpu_2x.json", "kineto_2021.json", "legacy_array.json", "rocm_kernels.json",
                             "torch2/manual_train.json", "torch2/sdpa_train_stack.pt.trace.json.gz",
                             "manual/clip_vision_train_stack.json.gz", "libraries/vllm_unified_attention.json.gz",
                             "torch_cpu_profile.json"})
        expect_reopens_as_it_was(opened(kTraces + file), fs::path(file).stem().stem().string());
}

TEST(WorkspaceTraces, EpochMicrosecondsWithoutABaseKeepTheirNanoseconds) {
    // HTA's a100_nccl.json.gz: absolute epoch microseconds with 3 decimals and no baseTimeNanoseconds;
    // written relative to the trace's origin (0) they would lose the last nanosecond as a double.
    TraceEvent op;
    op.name = EventName("ProfilerStep#4");
    op.kind = EventKind::UserAnnotation;
    op.scope = 5;
    op.start_ns = 1716423322416788067;
    op.end_ns = 1716423322639230258;
    op.thread = 7;
    TraceEvent k = op;
    k.name = EventName("ncclKernel_AllReduce");
    k.kind = EventKind::Kernel;
    k.device = DeviceKind::CUDA;
    k.device_index = 0;
    k.scope = 0;
    k.start_ns = 1716423322417703567;
    k.end_ns = 1716423322417707421;
    const auto run = std::make_shared<const ProfileResult>([&] {
        ProfileResult r;
        r.spec_known = false;
        r.trace = Trace::build({op, k}, {}, TraceMeta{});
        return r;
    }());
    expect_reopens_as_it_was(run, "epoch_us");
}
