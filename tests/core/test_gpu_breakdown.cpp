// The GPU time breakdown on a hand-made trace worked out by hand (two streams, two steps, overlap of
// computation with communication, copies and sets) and on the real two-rank fixture (an NCCL
// all-reduce that no computation hides).
#include <gtest/gtest.h>

#include "analysis/gpu_breakdown.h"
#include "analysis/idle_time.h"
#include "io/trace_files.h"
#include "io/trace_import.h"
#include "results/run_json.h"

using namespace awb;

namespace {

TraceEvent cpu(const std::string& name, EventKind kind, int64_t start_us, int64_t end_us, int64_t correlation = 0) {
    TraceEvent e;
    e.name = name;
    e.kind = kind;
    e.start_ns = start_us * 1000;
    e.end_ns = end_us * 1000;
    e.thread = 1;
    e.correlation_id = correlation;
    return e;
}

TraceEvent device(const std::string& name, EventKind kind, int64_t start_us, int64_t end_us, uint64_t stream,
                  int64_t correlation) {
    TraceEvent e = cpu(name, kind, start_us, end_us, correlation);
    e.device = DeviceKind::CUDA;
    e.device_index = 0;
    e.thread = stream;
    return e;
}

constexpr int64_t us = 1000;

// Step 3 launches a GEMM (50-80 us, stream 7), an all-reduce (60-100, stream 8: 20 us of it not hidden)
// and a copy (100-110); step 4 a GEMM (130-150) and a set inside it (140-145). A device-side
// annotation spans them all and is not work.
Trace two_step_trace() {
    std::vector<TraceEvent> events{
        cpu("ProfilerStep#3", EventKind::UserAnnotation, 0, 100),
        cpu("ProfilerStep#4", EventKind::UserAnnotation, 100, 200),
        cpu("cudaLaunchKernel", EventKind::Runtime, 10, 12, 1),
        cpu("cudaLaunchKernel", EventKind::Runtime, 20, 22, 2),
        cpu("cudaMemcpyAsync", EventKind::Runtime, 30, 32, 3),
        cpu("cudaLaunchKernel", EventKind::Runtime, 110, 112, 4),
        cpu("cudaMemsetAsync", EventKind::Runtime, 120, 122, 5),
        device("sm90_xmma_gemm_bf16", EventKind::Kernel, 50, 80, 7, 1),
        device("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", EventKind::Kernel, 60, 100, 8, 2),
        device("Memcpy DtoD (Device -> Device)", EventKind::Memcpy, 100, 110, 7, 3),
        device("sm90_xmma_gemm_bf16", EventKind::Kernel, 130, 150, 7, 4),
        device("Memset (Device)", EventKind::Memset, 140, 145, 8, 5),
        device("ProfilerStep#3", EventKind::UserAnnotation, 50, 160, 9, 0),
    };
    return Trace::build(std::move(events), {}, {});
}

}  // namespace

TEST(GpuBreakdown, WholeTraceAndStepsMergeStreamsAndExposeWhatComputationDoesNotHide) {
    const std::vector<GpuBreakdown> rows = gpu_breakdown(two_step_trace());
    ASSERT_EQ(rows.size(), 3u);
    GpuBreakdown whole;
    whole.device_index = 0;
    whole.start_ns = 50 * us;
    whole.end_ns = 150 * us;
    whole.kernels = 5;
    whole.computation_ns = 50 * us;  // 30 + 20
    whole.communication_ns = 40 * us;
    whole.memcpy_ns = 10 * us;
    whole.memset_ns = 5 * us;
    whole.busy_ns = 80 * us;  // [50, 110] and [130, 150]: the set and the overlap count once
    whole.idle_ns = 20 * us;
    whole.exposed_communication_ns = 20 * us;  // 80-100
    whole.exposed_memcpy_ns = 10 * us;
    auto by_class = [](int64_t gemm, int64_t comm, int64_t copy, int64_t set) {
        std::array<int64_t, kKernelClassCount> c{};
        c[size_t(KernelClass::Gemm)] = gemm;
        c[size_t(KernelClass::Communication)] = comm;
        c[size_t(KernelClass::Memcpy)] = copy;
        c[size_t(KernelClass::Memset)] = set;
        return c;
    };
    whole.class_ns = by_class(50 * us, 40 * us, 10 * us, 5 * us);
    EXPECT_EQ(rows[0], whole);
    EXPECT_DOUBLE_EQ(rows[0].share(rows[0].busy_ns), 0.8);
    // Step 3: from its first device event to step 4's first (the idle wait for step 4 is step 3's).
    GpuBreakdown step3 = whole;
    step3.step = 3;
    step3.end_ns = 130 * us;
    step3.kernels = 3;
    step3.computation_ns = 30 * us;
    step3.memset_ns = 0;
    step3.busy_ns = 60 * us;
    step3.class_ns = by_class(30 * us, 40 * us, 10 * us, 0);
    EXPECT_EQ(rows[1], step3);
    GpuBreakdown step4;
    step4.device_index = 0;
    step4.step = 4;
    step4.start_ns = 130 * us;
    step4.end_ns = 150 * us;
    step4.kernels = 2;
    step4.computation_ns = 20 * us;
    step4.memset_ns = 5 * us;
    step4.busy_ns = 20 * us;
    step4.class_ns = by_class(20 * us, 0, 0, 5 * us);
    EXPECT_EQ(rows[2], step4);
    // The JSON says the same in microseconds with shares.
    const nlohmann::json j = rows[1];
    EXPECT_EQ(j["step"], 3);
    EXPECT_TRUE(j["rank"].is_null());
    EXPECT_DOUBLE_EQ(j["exposed_communication_us"].get<double>(), 20.0);
    EXPECT_DOUBLE_EQ(j["idle_share"].get<double>(), 0.25);
    EXPECT_DOUBLE_EQ(j["by_class"]["gemm"]["us"].get<double>(), 30.0);
    EXPECT_FALSE(j["by_class"].contains("softmax"));
    const std::string text = format_gpu_breakdown(rows);
    EXPECT_NE(text.find("#4"), std::string::npos);
    EXPECT_NE(text.find("Computation by kernel class"), std::string::npos);
    EXPECT_NE(text.find("GEMM"), std::string::npos);
}

TEST(GpuBreakdown, IdleGapsOfEachDeviceSumToItsIdleTime) {
    const Trace trace = two_step_trace();
    const std::vector<DeviceIdle> idle = gpu_idle_gaps(trace);
    ASSERT_EQ(idle.size(), 1u);
    EXPECT_EQ(idle[0].device_index, 0);
    const std::vector<std::pair<int64_t, int64_t>> gaps{{110 * us, 130 * us}};  // between the copy and step 4's GEMM
    EXPECT_EQ(idle[0].gaps, gaps);
    EXPECT_EQ(gpu_breakdown(trace)[0].idle_ns, 20 * us);
}

TEST(GpuBreakdown, AKernelWithoutItsLaunchBelongsToTheStepItStartsIn) {
    std::vector<TraceEvent> events{cpu("ProfilerStep#0", EventKind::UserAnnotation, 0, 100),
                                   cpu("ProfilerStep#1", EventKind::UserAnnotation, 100, 200),
                                   device("k", EventKind::Kernel, 20, 30, 7, 77),
                                   device("k", EventKind::Kernel, 150, 170, 7, 78)};
    const auto rows = gpu_breakdown(Trace::build(std::move(events), {}, {}));
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[1].step, 0);
    EXPECT_EQ(rows[1].span_ns(), 130 * us);  // 20 .. 150
    EXPECT_EQ(rows[1].idle_ns, 120 * us);
    EXPECT_EQ(rows[2].step, 1);
    EXPECT_EQ(rows[2].busy_ns, 20 * us);
}

// Each step is measured over the events that can overlap it (not every event of the trace):
// a kernel launched two steps earlier that still runs covers the later step's gap all the same.
TEST(GpuBreakdown, AKernelStartedStepsEarlierStillCoversALaterStep) {
    std::vector<TraceEvent> events{
        cpu("ProfilerStep#1", EventKind::UserAnnotation, 0, 100),
        cpu("ProfilerStep#2", EventKind::UserAnnotation, 100, 200),
        cpu("ProfilerStep#3", EventKind::UserAnnotation, 200, 300),
        cpu("cudaLaunchKernel", EventKind::Runtime, 10, 12, 1),
        cpu("cudaLaunchKernel", EventKind::Runtime, 110, 112, 2),
        cpu("cudaLaunchKernel", EventKind::Runtime, 210, 212, 3),
        cpu("cudaLaunchKernel", EventKind::Runtime, 220, 222, 4),
        device("long_gemm", EventKind::Kernel, 50, 260, 7, 1),    // step 1's, into step 3
        device("short_gemm", EventKind::Kernel, 120, 130, 8, 2),  // step 2
        device("short_gemm", EventKind::Kernel, 230, 240, 8, 3),  // step 3: 230-240 and 270-280,
        device("short_gemm", EventKind::Kernel, 270, 280, 8, 4),  // the long one covers 240-260
    };
    const auto rows = gpu_breakdown(Trace::build(std::move(events), {}, {}));
    ASSERT_EQ(rows.size(), 4u);  // the whole trace and steps 1, 2, 3
    const GpuBreakdown& step3 = rows[3];
    ASSERT_EQ(step3.step, 3);
    EXPECT_EQ(step3.start_ns, 230 * us);
    EXPECT_EQ(step3.end_ns, 280 * us);
    EXPECT_EQ(step3.busy_ns, 40 * us);  // 230-260 and 270-280
    EXPECT_EQ(step3.idle_ns, 10 * us);
    EXPECT_EQ(step3.kernels, 2);
}

TEST(GpuBreakdown, CpuTraceHasNone) {
    std::vector<TraceEvent> events{cpu("aten::mm", EventKind::CpuOp, 0, 10)};
    EXPECT_TRUE(gpu_breakdown(Trace::build(std::move(events), {}, {})).empty());
}

TEST(GpuBreakdown, RealTwoRankTraceAllReduceIsExposed) {
    // tests/fixtures/traces/multi_rank: each rank runs a GEMM, then an NCCL all-reduce on another
    // stream that starts after the GEMM ended (README of the fixtures: the times below are the file's).
    const std::string dir = std::string(AWB_FIXTURE_DIR) + "/traces/multi_rank";
    const ImportedTrace t = import_chrome_traces(trace_files_of(dir));
    const auto rows = gpu_breakdown(t.trace);
    ASSERT_EQ(rows.size(), 4u);  // per rank: the whole trace and ProfilerStep#1
    const int64_t gemm[2] = {12288, 12416}, nccl[2] = {120500, 95250}, span[2] = {170500, 166500};
    for (int r = 0; r < 2; ++r) {
        for (const GpuBreakdown& b : {rows[size_t(2 * r)], rows[size_t(2 * r + 1)]}) {
            EXPECT_EQ(b.rank, r);
            EXPECT_EQ(b.device_index, r);
            EXPECT_EQ(b.kernels, 2);
            EXPECT_EQ(b.computation_ns, gemm[r]);
            EXPECT_EQ(b.communication_ns, nccl[r]);
            EXPECT_EQ(b.exposed_communication_ns, nccl[r]);
            EXPECT_EQ(b.span_ns(), span[r]);
            EXPECT_EQ(b.idle_ns, span[r] - gemm[r] - nccl[r]);
        }
        EXPECT_EQ(rows[size_t(2 * r)].step, -1);
        // One gap per rank: from the GEMM's end to the all-reduce's start.
        const auto idle = gpu_idle_gaps(t.trace);
        ASSERT_EQ(idle.size(), 2u);
        ASSERT_EQ(idle[size_t(r)].gaps.size(), 1u);
        EXPECT_EQ(idle[size_t(r)].gaps[0].second - idle[size_t(r)].gaps[0].first, span[r] - gemm[r] - nccl[r]);
        EXPECT_EQ(rows[size_t(2 * r + 1)].step, 1);
    }
}

// Idle time, HTA's way, on the two-step trace with an op and a Python frame around the memset's launch:
// stream 7 waits 20 us before the copy (launched at 30, in time: kernel wait, step 3) and 20 us before the
// second GEMM (launched at 110, as the copy ended: kernel wait, step 4); stream 8 waits 40 us before the
// set, launched at 120 after the all-reduce ended at 100: host wait, held by aten::zero_ from model.py.
TEST(IdleTime, EachGapIsHostWaitKernelWaitOrOtherAndNamesWhatHeldItsLaunch) {
    std::vector<TraceEvent> events = two_step_trace().events();
    for (TraceEvent& e : events) e.parent = -1, e.depth = 0;
    events.push_back(cpu("model.py(12): forward", EventKind::Other, 115, 126));
    events.push_back(cpu("aten::zero_", EventKind::CpuOp, 118, 124));
    const Trace trace = Trace::build(std::move(events), {}, {});
    const IdleReport r = idle_time(trace, LaunchCalls(trace));
    auto row = [&](int64_t stream, int step) {
        for (const StreamIdle& i : r.rows)
            if (i.stream == stream && i.step == step) return i;
        ADD_FAILURE() << "no row for stream " << stream << " step " << step;
        return StreamIdle{};
    };
    EXPECT_EQ(row(7, -1).kernel_wait_ns, 40 * us);
    EXPECT_EQ(row(7, -1).host_wait_ns, 0);
    EXPECT_EQ(row(7, -1).gaps, 2);
    EXPECT_EQ(row(7, 3).kernel_wait_ns, 20 * us);
    EXPECT_EQ(row(7, 4).kernel_wait_ns, 20 * us);
    EXPECT_EQ(row(8, -1).host_wait_ns, 40 * us);
    EXPECT_EQ(row(8, 4).host_wait_ns, 40 * us);
    ASSERT_FALSE(r.longest.empty());
    EXPECT_EQ(r.longest[0].duration_ns(), 40 * us);
    EXPECT_EQ(r.longest[0].cause, IdleCause::HostWait);
    EXPECT_EQ(r.longest[0].held_by, "aten::zero_");
    EXPECT_EQ(r.longest[0].python_frame, "model.py(12): forward");
    // Under a 15 us threshold the launched-in-time gaps are "other"; two steps: HTA leaves the last out.
    const IdleReport strict = idle_time(trace, LaunchCalls(trace), 15 * us);
    EXPECT_EQ(strict.rows.front().other_ns, 40 * us);
    ASSERT_EQ(strict.hta.size(), 2u);
    EXPECT_EQ(strict.hta[0].gaps, 1);  // stream 7 keeps the GEMM and the copy, launched in step 3: one gap
    EXPECT_EQ(strict.hta[0].other_ns, 20 * us);
    EXPECT_EQ(strict.hta[1].gaps, 0);  // stream 8: only the all-reduce is kept
    EXPECT_EQ(strict.hta_steps.at(-1), "launched before ProfilerStep#4 (the last) began");
}
