// Collectives as first-class events: names, sizes and bandwidths from each kind of record, the calls of
// real gloo runs (torch 2.11, 4 ranks) matched across ranks with their waits and the straggler, the
// communication kernels of NCCL and of the engines' custom all-reduce, and the overlap with computation.
// The plain-Python reference (tests/reference/collectives_reference.py, ctest cli.collectives_reference)
// checks every matched figure of the gloo runs; these pin what can be worked out by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/collective_diff.h"
#include "analysis/collective_findings.h"
#include "analysis/collectives.h"
#include "analysis/comm_overlap.h"
#include "analysis/kernel_class.h"
#include "analysis/rank_comparison.h"
#include "analysis/run_analysis.h"
#include "io/trace_files.h"
#include "io/trace_import.h"
#include "model/comm_args.h"
#include "model/recorded_steps.h"
#include "results/results_file.h"
#include "test_support.h"

using namespace awb;

namespace collectives_test {

TEST(Collectives, NamesAreNormalisedAsPyTorchsApiNamesThem) {
    const std::pair<const char*, const char*> cases[] = {
        {"c10d::allreduce_", "all_reduce"},
        {"allreduce", "all_reduce"},
        {"nccl:all_reduce", "all_reduce"},
        {"c10d::_allgather_base_", "all_gather"},
        {"_allgather_base", "all_gather"},
        {"nccl:_all_gather_base", "all_gather"},
        {"allgather_into_tensor_coalesced", "all_gather"},
        {"c10d::_reduce_scatter_base_", "reduce_scatter"},
        {"reduce_scatter_tensor_coalesced", "reduce_scatter"},
        {"c10d::alltoall_base_", "all_to_all"},
        {"gloo:all_to_all", "all_to_all"},
        {"all_to_all_single", "all_to_all"},
        {"c10d::broadcast_", "broadcast"},
        {"c10d::send", "send"},
        {"c10d::recv_", "recv"},
        {"recv_any_source", "recv"},
        {"c10d::barrier", "barrier"},
        {"_c10d_functional::all_reduce", "all_reduce"},
        {"_c10d_functional::wait_tensor", ""},
        {"wait", ""},
        {"aten::mm", ""},
    };
    for (const auto& [raw, name] : cases) EXPECT_EQ(collective_name(raw), name) << raw;
}

TEST(Collectives, BusBandwidthUsesNcclTestsFactors) {
    EXPECT_DOUBLE_EQ(bus_factor("all_reduce", 4), 1.5);
    EXPECT_DOUBLE_EQ(bus_factor("all_gather", 4), 0.75);
    EXPECT_DOUBLE_EQ(bus_factor("reduce_scatter", 8), 0.875);
    EXPECT_DOUBLE_EQ(bus_factor("all_to_all", 2), 0.5);
    EXPECT_DOUBLE_EQ(bus_factor("broadcast", 8), 1.0);
    EXPECT_DOUBLE_EQ(bus_factor("send", 2), 1.0);
    CollectiveCall c;
    c.name = "all_reduce";
    c.bytes = 1'000'000;
    c.start_ns = 0;
    c.end_ns = 10'000;  // 1 MB in 10 us: 100 GB/s
    c.group_ranks = {0, 1, 2, 3};
    EXPECT_DOUBLE_EQ(c.algbw_gbps(), 100.0);
    EXPECT_DOUBLE_EQ(c.busbw_gbps(), 150.0);
}

TEST(Collectives, ListsAndDtypesAsTorchWritesThem) {
    std::vector<int64_t> v;
    EXPECT_TRUE(parse_int_list("[0, 1, 2]", v));
    EXPECT_EQ(v, (std::vector<int64_t>{0, 1, 2}));
    EXPECT_TRUE(parse_int_list(" [] ", v));
    EXPECT_TRUE(v.empty());
    EXPECT_FALSE(parse_int_list("[0, x]", v));
    EXPECT_FALSE(parse_int_list("0, 1", v));
    EXPECT_EQ(dtype_bytes("Float"), 4);
    EXPECT_EQ(dtype_bytes("BFloat16"), 2);
    EXPECT_EQ(dtype_bytes("c10::BFloat16"), 2);
    EXPECT_EQ(dtype_bytes("long int"), 8);
    EXPECT_EQ(dtype_bytes("Byte"), 1);
    EXPECT_EQ(dtype_bytes("Float8_e4m3fn"), 1);
    EXPECT_EQ(dtype_bytes("ScriptObject"), 0);
}

TEST(Collectives, CommunicationKernelsOfNcclAndTheEnginesCustomAllReduce) {
    for (const char* name :
         {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
          "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
          "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, "
          "__nv_bfloat16*, int, int)",
          "void quickreduce::allreduce_prototype_twoshot<quickreduce::CodecFP, false>(...)",
          "void c10d::symmetric_memory::multimem_all_reduce_kernel<float, 16>(...)",
          "void c10d::symmetric_memory::one_shot_all_reduce_kernel<c10::BFloat16, 16>(...)",
          "void deep_ep::intranode::dispatch<8, 768, 8192>(...)", "void deep_ep::internode_ll::combine<...>(...)",
          "void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel_oneshot_lamport<...>(...)",
          "rcclKernel_AllReduce_RING_LL", "void sglang::cross_device_reduce_2stage<float, 8>(...)"}) {
        EXPECT_TRUE(is_communication_kernel(name)) << name;
        EXPECT_EQ(classify_kernel(name, EventKind::Kernel), KernelClass::Communication) << name;
    }
    for (const char* name :
         {"void at::native::reduce_kernel<512, 1>(...)", "ampere_sgemm_128x64_tn", "triton_red_fused_sum_0",
          "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(...)"})
        EXPECT_FALSE(is_communication_kernel(name)) << name;
}

// collectives/: per step on 4 gloo ranks all_reduce (65536 floats), all_gather_into_tensor (4096 per
// rank), reduce_scatter_tensor (16384 -> 4096), all_to_all_single (rank r sends (r+1)*1024+j rows to
// rank j), broadcast (8192 from rank 0), a send/recv ring, and an all_reduce of 12288 on new_group([0,1])
// and new_group([2,3]); 3 recorded steps.
TEST(Collectives, TheCallsOfARealGlooRunAreMatchedAcrossItsRanks) {
    const ResultsFile f = open_results_file(test::trace_fixture("gloo/collectives"));
    const CollectiveReport r = collective_report(f.run->trace);
    EXPECT_EQ(r.calls.size(), 4u * 3u * 8u);  // 8 calls a step on each rank (send and recv count apart)
    EXPECT_EQ(r.steps, 3);
    EXPECT_TRUE(r.notes.empty()) << r.notes.front();
    std::map<std::pair<std::string, std::string>, int> kinds;
    for (const MatchedCollective& m : r.matched) ++kinds[{m.name, m.group}];
    EXPECT_EQ(kinds, (std::map<std::pair<std::string, std::string>, int>{{{"all_reduce", "0"}, 3},
                                                                         {{"all_gather", "0"}, 3},
                                                                         {{"reduce_scatter", "0"}, 3},
                                                                         {{"all_to_all", "0"}, 3},
                                                                         {{"broadcast", "0"}, 3},
                                                                         {{"all_reduce", "1"}, 3},
                                                                         {{"all_reduce", "2"}, 3},
                                                                         {{"send_recv", "0->1"}, 3},
                                                                         {{"send_recv", "1->2"}, 3},
                                                                         {{"send_recv", "2->3"}, 3},
                                                                         {{"send_recv", "3->0"}, 3}}));
    for (const MatchedCollective& m : r.matched) {
        const size_t ranks = m.name == "send_recv" || m.group == "1" || m.group == "2" ? 2u : 4u;
        EXPECT_EQ(m.ranks.size(), ranks) << m.name << " " << m.group;
        int64_t last = 0, first = INT64_MAX;
        for (const RankArrival& a : m.ranks) {
            last = std::max(last, a.start_ns);
            first = std::min(first, a.start_ns);
        }
        EXPECT_EQ(m.skew_ns, last - first);
        for (const RankArrival& a : m.ranks) {
            EXPECT_EQ(a.wait_ns, last - a.start_ns);
        }
        const std::map<std::string, int64_t> bytes = {{"all_reduce", m.group == "0" ? 65536 * 4 : 12288 * 4},
                                                      {"all_gather", 16384 * 4},
                                                      {"reduce_scatter", 16384 * 4},
                                                      {"all_to_all", 16390 * 4},  // rank 3's input, the largest
                                                      {"broadcast", 8192 * 4},
                                                      {"send_recv", 2048 * 4}};
        EXPECT_EQ(m.bytes, bytes.at(m.name)) << m.name;
        if (m.name == "all_to_all") {
            // Splits (r+1)*1024+j over all 16 (rank, peer) pairs: the largest 4099 rows, the mean 40984/16.
            EXPECT_NEAR(m.split_imbalance, 4099.0 / (40984.0 / 16.0), 1e-9);
        }
        if (m.name == "all_reduce" && m.group == "0") {
            EXPECT_NEAR(m.busbw_gbps(), m.algbw_gbps() * 1.5, 1e-12);
        }
    }
    // Each rank's calls: the group's ranks from distributedInfo's pg_config.
    for (const CollectiveCall& c : r.calls) {
        if (c.group == "1") {
            EXPECT_EQ(c.group_ranks, (std::vector<int32_t>{0, 1}));
        }
        if (c.group == "2") {
            EXPECT_EQ(c.group_ranks, (std::vector<int32_t>{2, 3}));
        }
        if (c.name == "all_to_all") {
            ASSERT_EQ(c.in_splits.size(), 4u);
            EXPECT_EQ(c.in_splits[2], (c.rank + 1) * 1024 + 2);
        }
        if (c.name == "send") {
            EXPECT_EQ(c.peer, (c.rank + 1) % 4);
        }
        if (c.name == "recv") {
            EXPECT_EQ(c.peer, (c.rank + 3) % 4);
        }
        EXPECT_GE(c.step, 2);
        EXPECT_FALSE(c.on_device);
        EXPECT_EQ(c.work.size(), 1u);  // its gloo:* annotation
    }
}

// straggler/: rank 2 sleeps 20 ms before each all_reduce; the others wait for it.
TEST(Collectives, TheRankThatArrivesLateIsTheStraggler) {
    const ResultsFile f = open_results_file(test::trace_fixture("gloo/straggler"));
    const CollectiveReport r = collective_report(f.run->trace);
    EXPECT_EQ(r.straggler, 2);
    int all_reduce = 0;
    for (const MatchedCollective& m : r.matched) {
        if (m.name != "all_reduce") continue;
        ++all_reduce;
        EXPECT_EQ(m.last_rank, 2);
        EXPECT_GT(m.skew_ns, 20'000'000);  // the sleep, and then some
        for (const RankArrival& a : m.ranks) {
            EXPECT_EQ(a.wait_ns == 0, a.rank == 2);
        }
    }
    EXPECT_EQ(all_reduce, 3);
    const auto s = std::find_if(r.ranks.begin(), r.ranks.end(), [](const RankStraggle& x) { return x.rank == 2; });
    ASSERT_NE(s, r.ranks.end());
    EXPECT_GE(s->last_arrivals, 3);
    EXPECT_GT(s->caused_wait_ns,
              3 * 3 * 15'000'000);  // 3 ranks waited ~20 ms (the sleep, less gloo's start) at each of 3 all_reduces
    EXPECT_NE(format_collectives(r, 5).find("straggler: rank 2"), std::string::npos);
}

// ring_attention/: K and V passed around the ring by send/recv while each rank computes its block:
// what runs under gloo's open send/recv spans hides part of the transfer.
TEST(Collectives, ARingAttentionsTransfersAreHiddenInPart) {
    const ResultsFile f = open_results_file(test::trace_fixture("gloo/ring_attention"));
    const RunAnalysis a = analyze_run(*f.run);
    EXPECT_EQ(a.collectives.matched.size(),
              4u * 3u * 6u);  // 4 pairs (r -> r+1), 6 sends of K or V a step each, 3 steps
    ASSERT_FALSE(a.overlap.rows.empty());
    for (const CommOverlap& o : a.overlap.rows) {
        EXPECT_FALSE(o.on_device);
        EXPECT_GT(o.comm_ns, 0);
        EXPECT_LE(o.hidden_ns, o.comm_ns);
        if (o.step < 0) {
            EXPECT_GT(o.hidden_ns, 0) << "rank " << o.rank;
            EXPECT_EQ(o.exposed_by_collective.count("send") + o.exposed_by_collective.count("recv"), 2u);
        }
    }
    EXPECT_TRUE(a.overlap.hta.empty());  // no GPU: HTA's figure does not apply
    // Each ring_attention range (4 ranks x 3 steps) issues its rank's 6 sends and 6 recvs of K or V (64 KiB each);
    // all of a rank's collectives are in them, so the calls' communication and hidden time add up to the rank's.
    ASSERT_EQ(a.overlap.attention.size(), 12u);
    std::map<int32_t, std::pair<int64_t, int64_t>> by_rank;
    for (const AttentionComm& call : a.overlap.attention) {
        EXPECT_EQ(call.name, "ring_attention");
        EXPECT_EQ(call.collectives, 12);
        EXPECT_EQ(call.bytes, 12 * 65536);
        EXPECT_LE(call.hidden_ns, call.comm_ns);
        by_rank[call.rank].first += call.comm_ns;
        by_rank[call.rank].second += call.hidden_ns;
    }
    for (const CommOverlap& o : a.overlap.rows) {
        if (o.step >= 0) continue;
        EXPECT_EQ(by_rank[o.rank].first, o.comm_ns) << "rank " << o.rank;
        EXPECT_EQ(by_rank[o.rank].second, o.hidden_ns) << "rank " << o.rank;
    }
}

// The hand-made 2-rank NCCL fixture (record_param_comms with its sizes, one ncclDevKernel each): the call
// is the kernel's, its size the record's, its algorithm the kernel name's.
TEST(Collectives, AnNcclCallIsItsKernelWithItsRecordsSize) {
    const ResultsFile f = open_results_file(test::trace_fixture("multi_rank"));
    const RunAnalysis a = analyze_run(*f.run);
    ASSERT_EQ(a.collectives.calls.size(), 2u);
    for (const CollectiveCall& c : a.collectives.calls) {
        EXPECT_EQ(c.name, "all_reduce");
        EXPECT_EQ(c.group, "0");
        EXPECT_EQ(c.group_desc, "default_pg");
        EXPECT_EQ(c.bytes, 4096 * 4);
        EXPECT_EQ(c.dtype, "Float");
        EXPECT_TRUE(c.on_device);
        EXPECT_EQ(c.algorithm, "RING LL");
        EXPECT_EQ(c.duration_ns(), c.rank == 0 ? 120'500 : 95'250);
    }
    ASSERT_EQ(a.collectives.matched.size(), 1u);
    EXPECT_EQ(a.collectives.matched[0].transfer_ns, 95'250);
    EXPECT_NEAR(a.collectives.matched[0].busbw_gbps(), 4096.0 * 4 / 95'250 * 1.0, 1e-12);  // 2(n-1)/n = 1 for n = 2
    // One device per rank: the exposed communication is the GPU time breakdown's, measured apart.
    int whole = 0;
    for (const CommOverlap& o : a.overlap.rows) {
        if (o.step >= 0) continue;
        ++whole;
        const auto b = std::find_if(a.gpu.begin(), a.gpu.end(),
                                    [&](const GpuBreakdown& g) { return g.rank == o.rank && g.step < 0; });
        ASSERT_NE(b, a.gpu.end());
        EXPECT_EQ(o.exposed_ns(), b->exposed_communication_ns) << "rank " << o.rank;
        EXPECT_EQ(o.comm_ns, b->communication_ns) << "rank " << o.rank;
    }
    EXPECT_EQ(whole, 2);
    ASSERT_EQ(a.overlap.hta.size(), 2u);
}

// attnwb diff's side by side: per kind of collective, the two runs' sums; the straggler of each.
TEST(Collectives, TwoRunsCollectivesSideBySide) {
    const RunAnalysis a = analyze_run(*open_results_file(test::trace_fixture("gloo/straggler")).run);
    const RunAnalysis b = analyze_run(*open_results_file(test::trace_fixture("gloo/collectives")).run);
    const CollectiveDiff d = diff_collectives(a.collectives, a.overlap, b.collectives, b.overlap);
    EXPECT_EQ(d.straggler_a, 2);
    EXPECT_EQ(d.straggler_b, b.collectives.straggler);
    const auto row = [&](const std::string& name, const std::string& group) {
        return *std::find_if(d.rows.begin(), d.rows.end(),
                             [&](const CollectiveDiffRow& r) { return r.name == name && r.group == group; });
    };
    const CollectiveDiffRow all_reduce = row("all_reduce", "0");
    EXPECT_EQ(all_reduce.a.count, 3);
    EXPECT_EQ(all_reduce.b.count, 3);
    EXPECT_EQ(all_reduce.a.bytes, 3 * 65536 * 4);
    int64_t wait = 0;
    for (const MatchedCollective& m : a.collectives.matched)
        if (m.name == "all_reduce")
            for (const RankArrival& r : m.ranks) wait += r.wait_ns;
    EXPECT_EQ(all_reduce.a.wait_ns, wait);
    EXPECT_EQ(row("broadcast", "0").a.count, 0);  // only in B
    EXPECT_EQ(row("broadcast", "0").b.count, 3);
    ASSERT_EQ(d.ranks.size(), 4u);
    for (const RankCommDiff& r : d.ranks) EXPECT_TRUE(r.in_a && r.in_b);
    EXPECT_NE(format_collective_diff(d, 10).find("straggler: A rank 2"), std::string::npos);
}

// The ranks compared in one step: rank 2 sleeps 20 ms (in Python, outside every op) before each
// all_reduce, so its own work is the longest; the others' waits at that step's collectives are theirs.
TEST(Collectives, TheSlowestRankAndWhereItSpendsMore) {
    const ResultsFile f = open_results_file(test::trace_fixture("gloo/straggler"));
    const RunAnalysis a = analyze_run(*f.run);
    for (int step : {2, 3, 4}) {
        const RankComparison c = compare_ranks(f.run->trace, a, step);
        EXPECT_EQ(c.step, step);
        EXPECT_EQ(c.steps, (std::vector<int>{2, 3, 4}));
        ASSERT_EQ(c.ranks.size(), 4u);
        EXPECT_EQ(c.slowest, 2) << "step " << step;
        int64_t waits = 0, listed = 0;
        for (const MatchedCollective& m : a.collectives.matched)
            if (m.step == step)
                for (const RankArrival& r : m.ranks) waits += r.wait_ns;
        for (const RankStep& r : c.ranks) listed += r.wait_ns;
        EXPECT_EQ(listed, waits);
        // Its own work (its step less its waits) is the sleep longer than the fastest rank's. (The sleep is in
        // no op, as the others' waits are not: both are their ProfilerStep's own time, so the operators that
        // differ are the collectives' spans, not the sleep.)
        auto own = [&](int32_t rank) {
            const RankStep& r =
                *std::find_if(c.ranks.begin(), c.ranks.end(), [&](const RankStep& x) { return x.rank == rank; });
            return r.step_ns - r.wait_ns;
        };
        EXPECT_GT(own(c.slowest) - own(c.fastest), 15'000'000) << "step " << step;
        ASSERT_FALSE(c.operators.empty());
        const auto gloo = std::find_if(c.operators.begin(), c.operators.end(),
                                       [](const OperatorDiffRow& r) { return r.name == "gloo:all_reduce"; });
        ASSERT_NE(gloo, c.operators.end());
        EXPECT_LT(gloo->self_cpu_delta_ns(), 0);  // the others' all_reduce spans hold their wait for rank 2
    }
    // Without a step named: where the ranks' steps differ most; a one-rank trace compares nothing.
    EXPECT_GE(compare_ranks(f.run->trace, a).step, 2);
    const ResultsFile one = open_results_file(test::trace_fixture("kineto_gpu_2x.json"));
    EXPECT_EQ(compare_ranks(one.run->trace, analyze_run(*one.run)).step, -1);
}

// Large all-reduces within a node far under the GPU's NVLink: said for an H100 (450 GB/s a direction),
// not for a PCIe board (no link in the table), a group spanning two blocks of 8, or small messages.
TEST(Collectives, LargeCollectivesFarUnderTheLinkAreSaid) {
    auto analysis_with = [](std::vector<int32_t> group, int64_t bytes) {
        RunAnalysis a;
        for (int32_t r : group) {
            CollectiveCall c;
            c.rank = r;
            c.name = "all_reduce";
            c.group = "0";
            c.group_ranks = group;
            c.bytes = bytes;
            c.start_ns = 0;
            c.end_ns = 10'000'000;
            a.collectives.calls.push_back(c);
        }
        MatchedCollective m;
        m.name = "all_reduce";
        m.group = "0";
        m.bytes = bytes;
        m.group_size = int(group.size());
        m.transfer_ns = 10'000'000;  // 64 MiB in 10 ms: 6.7 GB/s of algorithm, 11.7 GB/s of bus bandwidth over 8 ranks
        for (size_t i = 0; i < group.size(); ++i) m.ranks.push_back({group[i], int32_t(i), 0, 10'000'000, 0});
        a.collectives.matched.push_back(m);
        return a;
    };
    const std::vector<int32_t> node = {0, 1, 2, 3, 4, 5, 6, 7}, spanning = {4, 5, 6, 7, 8, 9, 10, 11};
    auto rules = [](const RunAnalysis& a, const std::string& device) {
        std::vector<Finding> out;
        collective_findings(Trace(), a, out, device);
        std::vector<std::string> names;
        for (const Finding& f : out) names.push_back(f.rule);
        return names;
    };
    const RunAnalysis slow = analysis_with(node, int64_t(64) << 20);
    EXPECT_EQ(rules(slow, "NVIDIA H100 80GB HBM3"), std::vector<std::string>{"low-bandwidth"});
    EXPECT_TRUE(rules(slow, "NVIDIA H100 PCIe").empty());
    EXPECT_TRUE(rules(slow, "").empty());
    EXPECT_TRUE(rules(analysis_with(spanning, int64_t(64) << 20), "NVIDIA H100 80GB HBM3").empty());
    EXPECT_TRUE(rules(analysis_with(node, int64_t(1) << 20), "NVIDIA H100 80GB HBM3").empty());
}

int64_t spans_start(const StepSpans& s) { return s.by_rank().begin()->second.front().start_ns; }

// Which step holds a time (the collectives' steps, the overlap's and the GPU breakdown's): the rank's last
// ProfilerStep starting at or before it, its end included.
TEST(Collectives, StepSpansSayWhichStepHoldsATime) {
    const ResultsFile f = open_results_file(test::trace_fixture("gloo/straggler"));
    const StepSpans steps(f.run->trace);
    ASSERT_EQ(steps.by_rank().size(), 4u);
    for (const auto& [rank, spans] : steps.by_rank()) {
        ASSERT_EQ(spans.size(), 3u);
        EXPECT_EQ(spans[0].step, 2);
        EXPECT_EQ(steps.at(rank, spans[0].start_ns - 1), -1);
        EXPECT_EQ(steps.at(rank, spans[1].start_ns), 3);
        EXPECT_EQ(steps.at(rank, spans[2].end_ns), 4);
        EXPECT_EQ(steps.at(rank, spans[2].end_ns + 1), -1);
    }
    EXPECT_EQ(steps.at(7, spans_start(steps)), -1);  // a rank the trace does not hold
}

}  // namespace collectives_test
