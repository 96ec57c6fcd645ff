// Kernels replayed from CUDA/HIP graphs attributed to the ops of their capture (results/graph_replay.h), on
// the fixtures of tests/fixtures/traces/graph_replay (tests/reference/make_graph_replay_fixtures.py: a
// hand-made CUDA pair, and pairs cut from the public vLLM and xDiT traces), and on the public traces
// themselves when ../shared/public-traces is beside the repository (as on CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "analysis/advisor.h"
#include "analysis/graph_capture.h"
#include "analysis/kernel_table.h"
#include "analysis/op_table.h"
#include "analysis/trace_links.h"
#include "io/trace_files.h"
#include "io/trace_import.h"
#include "results/chrome_trace.h"
#include "results/graph_replay.h"
#include "results/graph_replay_import.h"
#include "test_support.h"

using namespace awb;

namespace {

std::string graph_fixture(const std::string& name) { return test::trace_fixture("graph_replay/" + name); }

std::string public_traces() {
    return (std::filesystem::path(AWB_FIXTURE_DIR) / "../../../shared/public-traces/tracelens")
        .lexically_normal()
        .string();
}

AttachedTrace attach_files(const std::string& replay, const std::string& capture) {
    return attach_capture(import_chrome_trace(replay).trace, import_chrome_trace(capture).trace);
}

// For each device event under a graph launch: the names of the op it is linked to and of that op's
// ancestors, outermost first ("vllm::fused_layer > aten::mm"); "" when it is linked to none.
std::vector<std::pair<std::string, std::string>> replayed_kernel_ops(const Trace& t) {
    std::set<int64_t> graph_launches;
    for (const auto& e : t.events())
        if (is_graph_launch(e)) graph_launches.insert(e.correlation_id);
    const LaunchingOps ops(t);
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& e : t.events()) {
        if (!is_device_work(e) || !graph_launches.count(e.correlation_id)) continue;
        std::string chain;
        for (int32_t op = ops.of(e); op >= 0; op = t.events()[size_t(op)].parent)
            chain = t.events()[size_t(op)].name.str() + (chain.empty() ? "" : " > " + chain);
        out.emplace_back(e.name.str(), chain);
    }
    return out;
}

const OperatorRow* find_row(const std::vector<OperatorRow>& rows, const std::string& name) {
    for (const auto& r : rows)
        if (r.name == name && r.device == DeviceKind::CPU) return &r;
    return nullptr;
}

// Self device time summed over the CPU rows: the device time linked to some op.
int64_t linked_device_ns(const std::vector<OperatorRow>& rows) {
    int64_t sum = 0;
    for (const auto& r : rows)
        if (r.device == DeviceKind::CPU) sum += r.self_device_ns;
    return sum;
}

// Every replayed op: on its lane, no CPU time of its own in the table, and its device time (self) the
// kernels linked to it; each op's span holds its kernels and its children.
void expect_replayed_ops_consistent(const Trace& t) {
    std::map<int64_t, int64_t> linked_ns;  // op id -> its kernels' time
    for (const auto& e : t.events())
        if (is_device_work(e) && e.linked_correlation_id > 0) linked_ns[e.linked_correlation_id] += e.duration_ns();
    for (size_t i = 0; i < t.events().size(); ++i) {
        const TraceEvent& e = t.events()[i];
        if (!e.replayed) continue;
        EXPECT_EQ(e.thread, kGraphReplayLane);
        EXPECT_EQ(e.device, DeviceKind::CPU);
        if (e.parent >= 0) {
            const TraceEvent& p = t.events()[size_t(e.parent)];
            EXPECT_TRUE(p.replayed) << e.name << " nests in " << p.name;
            EXPECT_LE(p.start_ns, e.start_ns);
            EXPECT_GE(p.end_ns, e.end_ns);
        }
    }
    const auto rows = key_averages(t);
    for (const auto& r : rows) {
        if (r.device != DeviceKind::CPU) continue;
        bool any_replayed = false, any_real = false;
        for (const auto& e : t.events())
            if (e.device == DeviceKind::CPU && e.name == r.name) (e.replayed ? any_replayed : any_real) = true;
        if (any_replayed && !any_real) {
            EXPECT_EQ(r.self_cpu_ns, 0) << r.name;
            EXPECT_EQ(r.cpu_total_ns, 0) << r.name;
        }
    }
}

}  // namespace

// The importer keeps what ROCm's launch calls say they launch, without growing the event.
TEST(GraphReplay, LaunchCallsKeepTheirKernelNameAndEventsDoNotGrow) {
    if constexpr (sizeof(void*) == 8) {
        EXPECT_LE(sizeof(TraceEvent), 136u);
    }
    const Trace t = import_chrome_trace(graph_fixture("vllm/capture_traces/graph_capture_rank_0.json.gz")).trace;
    std::map<std::string, int> kernels_of_launches;
    for (const auto& e : t.events())
        if (e.kind == EventKind::Runtime && e.launch && !e.launch->kernel.empty())
            ++kernels_of_launches[e.launch->kernel.str()];
    EXPECT_EQ(kernels_of_launches["triton_poi_fused_0"], 1);
    EXPECT_EQ(kernels_of_launches["_topk_forward"], 2);
    EXPECT_EQ(
        kernels_of_launches["void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, "
                            "c10::BFloat16*, c10::BFloat16 const*, int, long, long, long, int, int, int)"],
        3);
    // CUDA's launch calls name nothing: no record for them.
    const Trace cuda = import_chrome_trace(graph_fixture("cuda/capture_traces/capture.json")).trace;
    for (const auto& e : cuda.events()) {
        if (e.kind == EventKind::Runtime) {
            EXPECT_EQ(e.launch, nullptr) << e.name;
        }
    }
}

// Hand-made CUDA pair: graphs A, B, A and one of 4 kernels no capture has; counts and order only.
TEST(GraphReplay, CudaPairIsMatchedByCountAndOrderAndCountsTheMismatch) {
    const Trace capture = import_chrome_trace(graph_fixture("cuda/capture_traces/capture.json")).trace;
    const AttachedTrace a = attach_capture(import_chrome_trace(graph_fixture("cuda/replay.json")).trace, capture);
    const GraphReplayReport& r = a.report;
    EXPECT_EQ(r.graph_launches, 4);
    EXPECT_EQ(r.matched, 3);
    EXPECT_EQ(r.captured_graphs, 2);
    EXPECT_EQ(r.kernels, 12);
    EXPECT_EQ(r.attributed, 8);
    EXPECT_EQ(r.unattributed_kernels(), 4);
    EXPECT_EQ(r.ops_added, 5 + 2 + 5);
    EXPECT_EQ(r.captured_not_replayed, 0);
    ASSERT_EQ(r.unattributed.size(), 1u);
    EXPECT_EQ(r.unattributed[0], "1 graph launch (4 kernels): no captured graph has 4 kernels (captured: 2, 3)");
    EXPECT_TRUE(r.problems.empty());
    using P = std::pair<std::string, std::string>;
    const std::vector<P> expected = {{"gemm_kernel", "vllm::fused_layer > aten::mm"},
                                     {"softmax_kernel", "vllm::fused_layer > aten::softmax > aten::_softmax"},
                                     {"Memcpy DtoD (Device -> Device)", "vllm::fused_layer > aten::copy_"},
                                     {"add_kernel", "aten::add"},
                                     {"mul_kernel", "aten::mul"},
                                     {"gemm_kernel", "vllm::fused_layer > aten::mm"},
                                     {"softmax_kernel", "vllm::fused_layer > aten::softmax > aten::_softmax"},
                                     {"Memcpy DtoD (Device -> Device)", "vllm::fused_layer > aten::copy_"},
                                     {"gemm_kernel", ""},
                                     {"add_kernel", ""},
                                     {"mul_kernel", ""},
                                     {"add_kernel", ""}};
    EXPECT_EQ(replayed_kernel_ops(a.trace), expected);
    expect_replayed_ops_consistent(a.trace);
    EXPECT_EQ(a.trace.meta().thread_names.at(kGraphReplayLane), kGraphReplayLaneName);

    // The table: replayed ops have no CPU time; their device time is their kernels'; calls per replay.
    // The normal op (aten::relu) and its kernel are as they were.
    const auto rows = key_averages(a.trace);
    const OperatorRow* mm = find_row(rows, "aten::mm");
    ASSERT_NE(mm, nullptr);
    EXPECT_EQ(mm->calls, 2);
    EXPECT_EQ(mm->self_cpu_ns, 0);
    EXPECT_EQ(mm->cpu_total_ns, 0);
    EXPECT_EQ(mm->self_device_ns, 200'000);
    EXPECT_EQ(mm->device_total_ns, 200'000);
    const OperatorRow* layer = find_row(rows, "vllm::fused_layer");
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->calls, 2);
    EXPECT_EQ(layer->cpu_total_ns, 0);
    EXPECT_EQ(layer->self_device_ns, 0);
    EXPECT_EQ(layer->device_total_ns, 2 * (100'000 + 50'000 + 10'000));
    const OperatorRow* relu = find_row(rows, "aten::relu");
    ASSERT_NE(relu, nullptr);
    EXPECT_EQ(relu->cpu_total_ns, 50'000);
    EXPECT_EQ(relu->self_device_ns, 20'000);
    EXPECT_EQ(find_row(key_averages(import_chrome_trace(graph_fixture("cuda/replay.json")).trace), "aten::relu")
                  ->self_device_ns,
              20'000);

    // Each replayed op spans its kernels, a parent its children, and shares the capture's inputs.
    const EventInputs* captured_mm_inputs = nullptr;
    for (const auto& e : capture.events())
        if (e.name == "aten::mm") captured_mm_inputs = e.inputs.get();
    int replayed_mm = 0;
    for (const auto& e : a.trace.events()) {
        if (!e.replayed || e.name != "aten::mm") continue;
        ++replayed_mm;
        EXPECT_EQ(e.inputs.get(), captured_mm_inputs);
        EXPECT_EQ(e.duration_ns(), 100'000);
        const TraceEvent& layer_op = a.trace.events()[size_t(e.parent)];
        EXPECT_EQ(layer_op.name, "vllm::fused_layer");
        EXPECT_EQ(layer_op.duration_ns(), 180'000);  // gemm start .. copy end
    }
    EXPECT_EQ(replayed_mm, 2);
    // Nothing is dropped.
    EXPECT_EQ(a.trace.events().size(),
              import_chrome_trace(graph_fixture("cuda/replay.json")).trace.events().size() + 12);
    // Exported (File > Export, workspaces) and read back, the replayed ops still have no CPU time.
    const std::string path = testing::TempDir() + "graph_replay_roundtrip.json";
    write_chrome_trace(a.trace, ChromeTraceInfo{}, path);
    const auto back = key_averages(import_chrome_trace(path).trace);
    std::filesystem::remove(path);
    const OperatorRow* mm_back = find_row(back, "aten::mm");
    ASSERT_NE(mm_back, nullptr);
    EXPECT_EQ(mm_back->calls, 2);
    EXPECT_EQ(mm_back->cpu_total_ns, 0);
    EXPECT_EQ(mm_back->self_device_ns, 200'000);
}

// A capture that holds no graph capture, and a replay without graph launches: the trace as it is.
TEST(GraphReplay, WrongFilesGiveTheTraceAsItIsWithOneProblemEach) {
    const Trace replay = import_chrome_trace(graph_fixture("cuda/replay.json")).trace;
    const AttachedTrace no_capture = attach_capture(replay, replay);
    EXPECT_EQ(no_capture.report.attributed, 0);
    EXPECT_EQ(no_capture.report.graph_launches, 4);
    EXPECT_EQ(no_capture.report.captured_graphs, 0);
    ASSERT_EQ(no_capture.report.problems.size(), 1u);
    EXPECT_NE(no_capture.report.problems[0].find("no graph capture"), std::string::npos);
    EXPECT_EQ(no_capture.report.unattributed,
              std::vector<std::string>{"4 graph launches (12 kernels): no captured graph to match them against"});
    EXPECT_EQ(no_capture.trace.events().size(), replay.events().size());
    const Trace capture = import_chrome_trace(graph_fixture("cuda/capture_traces/capture.json")).trace;
    const AttachedTrace no_launch = attach_capture(capture, capture);
    EXPECT_EQ(no_launch.report.graph_launches, 0);
    ASSERT_EQ(no_launch.report.problems.size(), 1u);
    EXPECT_NE(no_launch.report.problems[0].find("no graph launch"), std::string::npos);

    // Through the files: each unusable capture named once, the replay still read.
    ReplayFiles files{
        {graph_fixture("cuda/replay.json")}, {graph_fixture("cuda/replay.json"), graph_fixture("none.json")}, {}};
    const ReplayImport imported = import_replay(files);
    ASSERT_EQ(imported.report.problems.size(), 2u);
    EXPECT_NE(imported.report.problems[0].find("cuda/replay.json' holds no graph capture"), std::string::npos);
    EXPECT_NE(imported.report.problems[1].find("none.json"), std::string::npos);
    EXPECT_EQ(imported.report.attributed, 0);
    EXPECT_EQ(imported.imported.trace.events().size(), replay.events().size());
    // Two traces without captures are the ranks of one run: these two are not (one says rank 0, one no rank).
    ImportedTrace ranks;
    EXPECT_THROW(
        import_replay_selection({graph_fixture("cuda/replay.json"), graph_fixture("xdit/profile_trace_rank_0.json.gz")},
                                nullptr, &ranks),
        MixedRunsError);
    // Another run's capture: it holds graphs, none of them the replay's.
    const ReplayImport other = import_replay(
        {{graph_fixture("cuda/replay.json")}, {graph_fixture("vllm/capture_traces/graph_capture_rank_0.json.gz")}, {}});
    EXPECT_EQ(other.report.matched, 0);
    EXPECT_EQ(other.report.captured_graphs, 3);
    ASSERT_EQ(other.report.problems.size(), 1u);
    EXPECT_NE(other.report.problems[0].find("graph_capture_rank_0.json.gz' matches a graph launch of"),
              std::string::npos);
    EXPECT_EQ(
        other.report.unattributed,
        (std::vector<std::string>{
            "1 graph launch (2 kernels): no captured graph has 2 kernels (captured: 4, 15)",
            "2 graph launches (6 kernels): no captured graph has 3 kernels (captured: 4, 15)",
            "1 graph launch (4 kernels): their kernels differ from those of every captured graph of 4 launches"}));
}

// vLLM's folder layout: the replay beside capture_traces/ with execution_details.json.
TEST(GraphReplay, FoldersAsVllmWritesThem) {
    const auto files = replay_files_of(graph_fixture("vllm"));
    ASSERT_TRUE(files.has_value());
    EXPECT_EQ(files->replay, std::vector<std::string>{graph_fixture("vllm") + "/graph_execution.json.gz"});
    EXPECT_EQ(files->captures,
              std::vector<std::string>{graph_fixture("vllm") + "/capture_traces/graph_capture_rank_0.json.gz"});
    EXPECT_TRUE(files->problems.empty());
    EXPECT_FALSE(replay_files_of(graph_fixture("vllm/capture_traces")).has_value());
    // Without execution_details.json the folder's traces are the captures; it is never a trace itself.
    EXPECT_EQ(replay_files_of(graph_fixture("cuda"))->captures,
              std::vector<std::string>{graph_fixture("cuda") + "/capture_traces/capture.json"});
    EXPECT_EQ(trace_files_of(graph_fixture("vllm/capture_traces")),
              std::vector<std::string>{graph_fixture("vllm") + "/capture_traces/graph_capture_rank_0.json.gz"});
    // A selection in any order: the file with the captures is the capture.
    ImportedTrace ranks;
    const std::optional<ReplayImport> chosen =
        import_replay_selection({graph_fixture("vllm/capture_traces/graph_capture_rank_0.json.gz"),
                                 graph_fixture("vllm/graph_execution.json.gz")},
                                nullptr, &ranks);
    ASSERT_TRUE(chosen.has_value());
    const ReplayImport& selected = *chosen;
    const ReplayImport folder = import_replay(*files);
    EXPECT_EQ(selected.report.attributed, 34);
    EXPECT_EQ(folder.report, selected.report);
}

// Cut from vLLM's PIECEWISE replay: 3 graph pieces (4, 15, 15 kernels) matched piece by piece by the
// kernel names ROCm's launch calls carry; the attention op between the pieces stays as it ran.
TEST(GraphReplay, VllmPiecesAreAttributedToTheirOps) {
    const AttachedTrace a = attach_files(graph_fixture("vllm/graph_execution.json.gz"),
                                         graph_fixture("vllm/capture_traces/graph_capture_rank_0.json.gz"));
    EXPECT_EQ(a.report.graph_launches, 3);
    EXPECT_EQ(a.report.matched, 3);
    EXPECT_EQ(a.report.captured_graphs, 3);
    EXPECT_EQ(a.report.kernels, 34);
    EXPECT_EQ(a.report.attributed, 34);
    EXPECT_TRUE(a.report.unattributed.empty());
    const auto ops = replayed_kernel_ops(a.trace);
    ASSERT_EQ(ops.size(), 34u);
    // Each piece is a compiled FX graph called inside the capture: the outermost op, then vLLM's and
    // ATen's ops as they nested at capture.
    std::map<std::string, std::set<std::string>> by_kernel;
    for (const auto& [kernel, chain] : ops) {
        EXPECT_EQ(chain.rfind("## Call CompiledFxGraph ", 0), 0u) << chain;
        by_kernel[kernel.substr(0, 24)].insert(chain.substr(chain.find(" ## > ") + 6));
    }
    using Chains = std::set<std::string>;
    EXPECT_EQ(by_kernel["Cijk_Alik_Bljk_BBS_BH_Bi"],
              Chains{"vllm::rocm_unquantized_gemm > aten::linear > aten::addmm"});
    EXPECT_EQ(by_kernel["_matmul_ogs_NNT_bf16xbf1"], Chains{"vllm::moe_forward"});
    EXPECT_EQ(by_kernel["_topk_forward"], Chains{"vllm::moe_forward > TopK"});
    EXPECT_EQ(by_kernel["void vllm::rotary_embedd"], Chains{"_C::rotary_embedding"});
    EXPECT_EQ(by_kernel["triton_poi_fused_0"], Chains{"triton_poi_fused_0"});
    expect_replayed_ops_consistent(a.trace);
    // Before: no op held the graphs' kernels; after: all of them, and the table's other rows are unchanged.
    const Trace replay = import_chrome_trace(graph_fixture("vllm/graph_execution.json.gz")).trace;
    const auto before = key_averages(replay), after = key_averages(a.trace);
    int64_t graph_ns = 0;
    for (const auto& e : replay.events())
        if (is_device_work(e) && e.linked_correlation_id == 0) graph_ns += e.duration_ns();
    EXPECT_EQ(linked_device_ns(after), linked_device_ns(before) + graph_ns);
    for (const auto& name : {"vllm::unified_attention_with_output", "hipGraphLaunch", "aten::select"}) {
        ASSERT_NE(find_row(before, name), nullptr) << name;
        EXPECT_EQ(*find_row(after, name), *find_row(before, name)) << name;
    }
    const OperatorRow* moe = find_row(after, "vllm::moe_forward");
    ASSERT_NE(moe, nullptr);
    EXPECT_EQ(moe->calls, 2);
    EXPECT_EQ(moe->cpu_total_ns, 0);
    EXPECT_GT(moe->self_device_ns, 0);
}

// Cut from xDiT: one captured graph of 1567 launches replayed twice with 1566 kernels (the capture holds
// them all and one more); sage_fwd's kernels are linked to the op that launched them at capture, with
// its recorded input dims.
TEST(GraphReplay, XditSageAttentionKernelsGetTheirCaptureOp) {
    const AttachedTrace a = attach_files(graph_fixture("xdit/profile_trace_rank_0.json.gz"),
                                         graph_fixture("xdit/capture_traces/capture_trace_rank_0.json.gz"));
    EXPECT_EQ(a.report.graph_launches, 2);
    EXPECT_EQ(a.report.matched, 2);
    EXPECT_EQ(a.report.captured_graphs, 1);
    EXPECT_EQ(a.report.kernels, 2 * 1566);
    EXPECT_EQ(a.report.attributed, 2 * 1566);
    EXPECT_EQ(a.report.captured_not_replayed, 2);
    const LaunchingOps ops(a.trace);
    int sage = 0;
    for (const auto& e : a.trace.events()) {
        if (e.name != "sage_fwd") continue;
        const int32_t op = ops.of(e);
        ASSERT_GE(op, 0);
        const TraceEvent& o = a.trace.events()[size_t(op)];
        EXPECT_EQ(o.name, "sage_fwd_1");
        EXPECT_TRUE(o.replayed);
        ASSERT_FALSE(o.shapes().empty());
        EXPECT_EQ(o.shapes()[0], (std::vector<int64_t>{1, 24, 768, 128}));
        EXPECT_EQ(o.duration_ns(), e.duration_ns());
        ++sage;
    }
    EXPECT_EQ(sage, 2 * 57);
    expect_replayed_ops_consistent(a.trace);
    // The kernels were linked to the op around the graph launch (its External id): their time moves
    // to the replayed ops, none is lost or counted twice.
    const Trace replay = import_chrome_trace(graph_fixture("xdit/profile_trace_rank_0.json.gz")).trace;
    EXPECT_EQ(linked_device_ns(key_averages(a.trace)), linked_device_ns(key_averages(replay)));
    const std::vector<OperatorRow> rows = key_averages(a.trace);  // kept: sage_row points into it
    const auto sage_row = find_row(rows, "sage_fwd_1");
    ASSERT_NE(sage_row, nullptr);
    EXPECT_EQ(sage_row->calls, 2 * 57);
    EXPECT_EQ(sage_row->self_cpu_ns, 0);
    // The kernel classes see the launching op: GEMMs launched by aten::mm at capture.
    for (const auto& k : kernel_table(a.trace)) {
        if (k.name.rfind("Cijk_", 0) == 0) {
            EXPECT_EQ(k.cls, KernelClass::Gemm) << k.name;
        }
    }
}

// The whole public traces (../shared/public-traces, beside the repository on CI).
TEST(GraphReplay, PublicTraces) {
    const std::string root = public_traces();
    if (!std::filesystem::is_directory(root))
        GTEST_SKIP() << "the public traces are not at " << root << " (../shared/public-traces beside the repository)";
    const ReplayImport vllm = import_replay(*replay_files_of(root + "/vllm_prefilldecode_piecewise"));
    EXPECT_EQ(vllm.report.graph_launches, 25);
    EXPECT_EQ(vllm.report.matched, 25);
    EXPECT_EQ(vllm.report.captured_graphs, 25);
    EXPECT_EQ(vllm.report.kernels, 361);
    EXPECT_EQ(vllm.report.attributed, 361);
    EXPECT_TRUE(vllm.report.problems.empty());
    expect_replayed_ops_consistent(vllm.imported.trace);
    const ReplayImport xdit = import_replay(*replay_files_of(root + "/xdit_flux.1_aiter_sage"));
    EXPECT_EQ(xdit.report.graph_launches, 4);
    EXPECT_EQ(xdit.report.matched, 4);
    EXPECT_EQ(xdit.report.kernels, 4 * 1566);
    EXPECT_EQ(xdit.report.attributed, 4 * 1566);
    EXPECT_EQ(xdit.report.captured_not_replayed, 4);
    const Trace xdit_replay = import_chrome_trace(root + "/xdit_flux.1_aiter_sage/profile_trace_rank_0.json.gz").trace;
    EXPECT_EQ(linked_device_ns(key_averages(xdit.imported.trace)), linked_device_ns(key_averages(xdit_replay)));
    // SGLang's folder is a capture without a replay: one trace, execution_details.json is no trace.
    EXPECT_EQ(trace_files_of(root + "/sglang_decode_capture"),
              std::vector<std::string>{root + "/sglang_decode_capture/bs_32_rank0.json.gz"});
    EXPECT_FALSE(replay_files_of(root + "/sglang_decode_capture").has_value());
}

// A capture trace says what it is: its launches inside BeginCapture .. EndCapture did not run (counted
// independently by a Python pass over the fixture: 3 regions, 34 launches; 8 device events of 71.112 us
// ran outside them), and the advisor says so instead of calling the capture's CPU time dispatch.
TEST(GraphCapture, ACaptureTraceIsRecognisedAndItsLaunchesCounted) {
    const Trace capture = import_chrome_trace(graph_fixture("vllm/capture_traces/graph_capture_rank_0.json.gz")).trace;
    const GraphCaptureSummary s = graph_capture_summary(capture);
    EXPECT_EQ(s.graphs, 3);
    EXPECT_EQ(s.launches, 34);
    EXPECT_EQ(s.device_events, 8);
    EXPECT_EQ(s.device_ns, 71'112);
    EXPECT_EQ(s.begin_call, "hipStreamBeginCapture");
    const std::string note = graph_capture_note(s);
    EXPECT_NE(
        note.find(
            "graph-capture trace: 3 graphs captured (hipStreamBeginCapture .. EndCapture); their 34 launches did not "
            "run here"),
        std::string::npos)
        << note;
    ProfileResult run;
    run.trace = capture;
    const std::vector<Finding> findings = advise({&run});
    ASSERT_FALSE(findings.empty());
    EXPECT_EQ(findings.front().rule, "graph-capture");
    EXPECT_TRUE(
        std::none_of(findings.begin(), findings.end(), [](const Finding& f) { return f.rule == "dispatch-bound"; }));
    // The hand-made CUDA capture: graph A (2 kernels and a copy) and B (2 kernels).
    EXPECT_EQ(
        graph_capture_summary(import_chrome_trace(graph_fixture("cuda/capture_traces/capture.json")).trace).launches,
        5);
    // A replay is not a capture.
    EXPECT_EQ(graph_capture_summary(import_chrome_trace(graph_fixture("cuda/replay.json")).trace).graphs, 0);
    EXPECT_EQ(graph_capture_note(graph_capture_summary(import_chrome_trace(graph_fixture("cuda/replay.json")).trace)),
              "");
}
