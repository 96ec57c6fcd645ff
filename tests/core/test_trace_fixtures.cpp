// The importer on the fixtures of tests/fixtures/traces (made by tests/reference/make_trace_fixtures.py,
// their expected tables in its README.md): a real trace written by Debian's PyTorch checked against
// torch's own key_averages(), hand-made PyTorch 2.x Kineto, 2021 Kineto, ROCm, legacy and multi-rank
// traces, gzip, and one file per class of bad input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

#include "analysis/kernel_table.h"
#include "analysis/memory_replay.h"
#include "analysis/op_table.h"
#include "analysis/trace_links.h"
#include "io/trace_import.h"
#include "test_support.h"

using namespace awb;

namespace {

const OperatorRow* find_row(const std::vector<OperatorRow>& rows, const std::string& name,
                            DeviceKind device = DeviceKind::CPU) {
    for (const auto& r : rows)
        if (r.name == name && r.device == device) return &r;
    return nullptr;
}

const KernelRow* find_kernel(const std::vector<KernelRow>& rows, const std::string& prefix) {
    for (const auto& k : rows)
        if (k.name.rfind(prefix, 0) == 0) return &k;
    return nullptr;
}

// One expected operator row: calls, self / total CPU, self / total device, in microseconds.
void expect_row(const std::vector<OperatorRow>& rows, const std::string& name, int64_t calls, double self_cpu_us,
                double cpu_total_us, double self_dev_us, double dev_total_us) {
    const OperatorRow* r = find_row(rows, name);
    ASSERT_NE(r, nullptr) << name;
    EXPECT_EQ(r->calls, calls) << name;
    EXPECT_EQ(r->self_cpu_ns, int64_t(std::llround(self_cpu_us * 1000))) << name;
    EXPECT_EQ(r->cpu_total_ns, int64_t(std::llround(cpu_total_us * 1000))) << name;
    EXPECT_EQ(r->self_device_ns, int64_t(std::llround(self_dev_us * 1000))) << name;
    EXPECT_EQ(r->device_total_ns, int64_t(std::llround(dev_total_us * 1000))) << name;
}

using test::import_error;

}  // namespace

// Written by Debian's PyTorch 1.13 (legacy exporter: a plain array, no cat): every operator row torch's
// own key_averages() printed for the same profile, exactly, negative self time included.
TEST(TraceFixtures, RealTorchTraceMatchesTorchKeyAverages) {
    const ImportedTrace t = import_chrome_trace(test::trace_fixture("torch_cpu_profile.json"));
    std::ifstream in(test::trace_fixture("torch_cpu_profile.expected.json"));
    const auto expected = nlohmann::json::parse(in);
    EXPECT_EQ(int64_t(t.trace.events().size()), expected.at("x_events").get<int64_t>());
    const auto rows = key_averages(t.trace);
    int checked = 0;
    for (const auto& e : expected.at("operators")) {
        if (!e.at("in_trace").get<bool>()) continue;  // torch's [memory] row: the legacy file has no memory events
        const std::string name = e.at("name");
        const OperatorRow* r = find_row(rows, name);
        ASSERT_NE(r, nullptr) << name;
        EXPECT_EQ(r->calls, e.at("calls").get<int64_t>()) << name;
        EXPECT_EQ(r->self_cpu_ns, e.at("self_cpu_time_total_us").get<int64_t>() * 1000) << name;
        EXPECT_EQ(r->cpu_total_ns, e.at("cpu_time_total_us").get<int64_t>() * 1000) << name;
        ++checked;
    }
    EXPECT_EQ(checked, 45);
    EXPECT_EQ(rows.size(), size_t(checked));  // nothing made up
}

// Written by torch 2.11's Kineto (export_chrome_trace, and tensorboard_trace_handler with gzip and
// with_stack's python_function events) on the article's loop, CPU: the table imported from each file
// equals torch's own key_averages() of that same profile, by name and by input shape: every row,
// calls, self and total CPU time to the nanosecond, CPU memory and self CPU memory to the byte.
class Torch2TraceFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Torch2TraceFixture, MatchesTorchKeyAverages) {
    const std::string file = GetParam();
    std::ifstream in(test::trace_fixture("torch2/" + file.substr(0, file.find('.')) + ".expected.json"));
    ASSERT_TRUE(in) << file;
    const auto expected = nlohmann::json::parse(in);
    EXPECT_EQ(expected.at("torch_version").get<std::string>().rfind("2.11.", 0), 0u);
    const ImportedTrace t = import_chrome_trace(test::trace_fixture("torch2/" + file));
    EXPECT_EQ(t.notes.skipped_events, 0);
    for (bool by_shape : {false, true}) {
        SCOPED_TRACE(by_shape ? "by shape" : "by name");
        const auto rows = key_averages(t.trace, {by_shape});
        const auto& want = expected.at(by_shape ? "by_shape" : "by_name");
        ASSERT_EQ(rows.size(), want.size());
        for (size_t i = 0; i < rows.size(); ++i) {  // torch's order too: first appearance
            const auto& w = want[i];
            const auto& r = rows[i];
            const std::string label = w.at("name").get<std::string>() + " " + w.at("input_shapes").get<std::string>();
            EXPECT_EQ(r.name, w.at("name").get<std::string>());
            EXPECT_EQ(r.input_shapes, w.at("input_shapes").get<std::string>());
            EXPECT_EQ(r.calls, w.at("calls").get<int64_t>()) << label;
            EXPECT_EQ(r.self_cpu_ns, std::llround(w.at("self_cpu_us").get<double>() * 1000)) << label;
            EXPECT_EQ(r.cpu_total_ns, std::llround(w.at("cpu_total_us").get<double>() * 1000)) << label;
            EXPECT_EQ(r.cpu_memory_bytes, w.at("cpu_memory_bytes").get<int64_t>()) << label;
            EXPECT_EQ(r.self_cpu_memory_bytes, w.at("self_cpu_memory_bytes").get<int64_t>()) << label;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Torch211, Torch2TraceFixture,
                         ::testing::Values("manual_train.json", "sdpa_train_stack.pt.trace.json.gz",
                                           "gqa_padding_forward.json"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             return info.param.substr(0, info.param.find('.'));
                         });

TEST(TraceFixtures, Kineto2xOperatorsKernelsMemoryAndMetadata) {
    for (const char* name : {"kineto_gpu_2x.json", "kineto_gpu_2x.json.gz"}) {
        SCOPED_TRACE(name);
        const ImportedTrace t = import_chrome_trace(test::trace_fixture(name));
        const auto rows = key_averages(t.trace);
        // Runtime calls link to their op by External id and take no device time; kernels are counted once.
        // The step's and attn_fwd's device time hold no gpu_user_annotation span (PyTorch's table adds the
        // annotation's 115.736 us to attn_fwd's self CUDA time: a span over work, not work).
        expect_row(rows, "ProfilerStep*", 1, 317.5, 600, 0, 276.024 - 115.736);
        expect_row(rows, "aten::bmm", 2, 47, 85, 62.208, 62.208);
        expect_row(rows, "aten::matmul", 2, 25, 110, 0, 62.208);
        expect_row(rows, "cudaLaunchKernel", 4, 67, 67, 0, 0);
        expect_row(rows, "aten::copy_", 1, 5.875, 27.5, 3.456, 3.456);
        expect_row(rows, "record_param_comms", 1, 30, 50, 85.12, 85.12);
        expect_row(rows, "attn_fwd", 1, 15, 160, 0, 186.168 - 115.736);
        EXPECT_EQ(find_row(rows, "Instrumentation"), nullptr);       // overhead
        EXPECT_EQ(find_row(rows, "Stream Sync"), nullptr);           // cuda_sync
        EXPECT_EQ(find_row(rows, "PyTorch Profiler (0)"), nullptr);  // the profiler's span
        EXPECT_EQ(rows.size(), 32u);

        const auto kernels = kernel_table(t.trace);
        const KernelRow* gemm = find_kernel(kernels, "ampere_sgemm_128x64_nn");
        ASSERT_NE(gemm, nullptr);
        EXPECT_EQ(gemm->calls, 1);
        EXPECT_EQ(gemm->total_ns, 41472);
        EXPECT_EQ(gemm->launch.grid, (std::array<int32_t, 3>{1, 2, 16}));
        EXPECT_EQ(gemm->launch.block, (std::array<int32_t, 3>{128, 1, 1}));
        EXPECT_EQ(gemm->launch.registers_per_thread, 122);
        EXPECT_EQ(gemm->launch.shared_memory_bytes, 32768);
        EXPECT_DOUBLE_EQ(gemm->mean_occupancy_pct, 6);
        const KernelRow* copy = find_kernel(kernels, "Memcpy HtoD");
        ASSERT_NE(copy, nullptr);
        EXPECT_EQ(copy->kind, EventKind::Memcpy);
        EXPECT_EQ(copy->launch.bytes, 524288);
        EXPECT_EQ(kernels.front().name.rfind("ncclDevKernel_AllReduce", 0), 0u);  // largest total first

        // baseTimeNanoseconds comes after the events in Kineto's files; times are relative to it.
        EXPECT_EQ(t.trace.meta().origin_ns, 1722470400000000000);
        int64_t peak_total = 0;
        for (const auto& m : t.trace.memory()) peak_total = std::max(peak_total, m.total_allocated);
        EXPECT_EQ(peak_total, 4194304);
        int64_t replay_peak = 0;
        for (const auto& s : replay_memory(t.trace))
            if (s.device == DeviceKind::CUDA) replay_peak = std::max(replay_peak, s.peak_bytes);
        EXPECT_EQ(replay_peak, 3145728);

        EXPECT_EQ(t.rank, 0);
        EXPECT_EQ(t.world_size, 2);
        EXPECT_EQ(t.backend, "nccl");
        ASSERT_FALSE(t.devices.empty());
        EXPECT_FALSE(t.devices.front().name.empty());
        EXPECT_EQ(t.flow_events, 16);
        EXPECT_EQ(t.counter_events, 1);
        EXPECT_EQ(t.metadata_events, 15);
        EXPECT_EQ(t.categories.at("kernel"), 5);
        EXPECT_EQ(t.categories.at("cpu_op"), 18);
        EXPECT_EQ(t.notes.skipped_events, 0);
        EXPECT_FALSE(t.trace.meta().thread_names.empty());
        EXPECT_FALSE(t.trace.meta().stream_names.empty());
    }
}

TEST(TraceFixtures, Kineto2021Layout) {
    const ImportedTrace t = import_chrome_trace(test::trace_fixture("kineto_2021.json"));
    const auto rows = key_averages(t.trace);
    expect_row(rows, "ProfilerStep*", 1, 205, 400, 0, 63);
    expect_row(rows, "aten::bmm", 1, 36, 48, 35, 35);
    expect_row(rows, "cudaLaunchKernel", 2, 22, 22, 0, 0);
    expect_row(rows, "aten::copy_", 1, 15, 80, 20, 20);
    const auto kernels = kernel_table(t.trace);
    const KernelRow* gemm = find_kernel(kernels, "volta_sgemm_128x64_nn");
    ASSERT_NE(gemm, nullptr);
    EXPECT_EQ(gemm->launch.grid, (std::array<int32_t, 3>{1, 2, 4}));
    EXPECT_DOUBLE_EQ(gemm->mean_occupancy_pct, 25);  // "theoretical occupancy %" in this layout
    EXPECT_EQ(t.trace.memory().size(), 3u);
}

TEST(TraceFixtures, RocmKernelsWithoutLaunchDetails) {
    const ImportedTrace t = import_chrome_trace(test::trace_fixture("rocm_kernels.json"));
    const auto rows = key_averages(t.trace);
    expect_row(rows, "ProfilerStep*", 1, 155, 300, 0, 68.5);
    expect_row(rows, "aten::bmm", 2, 40, 75, 49.25, 49.25);
    expect_row(rows, "hipExtModuleLaunchKernel", 2, 35, 35, 0, 0);
    const auto kernels = kernel_table(t.trace);
    const KernelRow* tensile = find_kernel(kernels, "Cijk_Alik_Bljk");
    ASSERT_NE(tensile, nullptr);
    EXPECT_EQ(tensile->calls, 2);
    EXPECT_EQ(tensile->total_ns, 49250);
    EXPECT_EQ(tensile->device_index, 2);
    EXPECT_EQ(format_dim3(tensile->launch.grid), "-");
    EXPECT_LT(tensile->mean_occupancy_pct, 0);
}

TEST(TraceFixtures, LegacyArrayCpuTable) {
    const ImportedTrace t = import_chrome_trace(test::trace_fixture("legacy_array.json"));
    const auto rows = key_averages(t.trace);
    const OperatorRow* bmm = find_row(rows, "aten::bmm");
    ASSERT_NE(bmm, nullptr);
    EXPECT_EQ(bmm->calls, 4);
    EXPECT_EQ(bmm->self_cpu_ns, 123250);
    const OperatorRow* sum = find_row(rows, "aten::sum");
    ASSERT_NE(sum, nullptr);
    EXPECT_EQ(sum->self_cpu_ns, 20301);  // "20.300999999999988" us, to the nearest ns
    // The legacy profiler's "CUDA functions" spans, joined to their ops by cpu_to_cuda flows, count as
    // torch 1.x counted them: total = the op's span, self = span minus the children's; no device rows.
    EXPECT_TRUE(t.trace.meta().legacy_device_spans);
    expect_row(rows, "aten::matmul", 2, 18.25, 110.5, 3.5, 78);
    expect_row(rows, "aten::bmm", 4, 123.25, 123.25, 107, 107);
    expect_row(rows, "aten::softmax", 1, 6, 30, 0.75, 9);
    expect_row(rows, "SumBackward", 1, 7, 12, 2.5, 3);
    expect_row(rows, "BmmBackward", 1, 9, 40, 2.5, 35);
    for (const auto& r : rows) EXPECT_EQ(r.device, DeviceKind::CPU) << r.name;
    EXPECT_EQ(rows.size(), 8u);
}

TEST(TraceFixtures, EachRankOfADistributedRun) {
    const ImportedTrace r0 = import_chrome_trace(test::trace_fixture("multi_rank/rank0.pt.trace.json"));
    const ImportedTrace r1 = import_chrome_trace(test::trace_fixture("multi_rank/rank1.pt.trace.json"));
    EXPECT_EQ(r0.rank, 0);
    EXPECT_EQ(r1.rank, 1);
    EXPECT_EQ(r0.trace.meta().ranks, std::vector<int32_t>{0});
    for (const auto& e : r1.trace.events()) EXPECT_EQ(e.rank, 1);
    expect_row(key_averages(r0.trace), "record_param_comms", 1, 40, 50, 120.5, 120.5);
    expect_row(key_averages(r1.trace), "record_param_comms", 1, 40, 50, 95.25, 95.25);
    // Different baseTimeNanoseconds: on the absolute clock both all-reduce kernels end together.
    auto nccl_end = [](const Trace& t) {
        for (const auto& e : t.events())
            if (e.name.rfind("ncclDevKernel", 0) == 0) return e.end_ns;
        return int64_t(0);
    };
    EXPECT_EQ(nccl_end(r0.trace), 1722470400005205500);
    EXPECT_EQ(nccl_end(r1.trace), 1722470400005205500);
}

// Every class of bad input: one TraceImportError naming the problem (and where), or, for valid JSON
// with odd fields, the good events kept and the others skipped with a warning naming their offset.
TEST(TraceFixtures, BadInputGivesOneClearMessage) {
    const std::vector<std::pair<std::string, std::string>> errors = {
        {"truncated.json", "the file ends inside an event that starts at byte offset"},
        {"truncated.json.gz", "unexpected end of file"},
        {"empty.json", "the file is empty"},
        {"whitespace.json", "the file is empty (or only whitespace)"},
        {"binary.bin", "not a chrome trace: it starts with byte 137"},
        {"not_gzip.json.gz", "invalid block type"},
        {"wrong_type_root.json", "not a chrome trace"},
        {"wrong_type_events.json", "\"traceEvents\" is not a list (byte offset 16)"},
        {"no_events.json", "holds no trace events"},
        {"non_utf8.json", "not valid UTF-8"},
        {"nul_in_string.json", "must be escaped"},
        {"unterminated_string.json", "the file ends inside an event"},
    };
    for (const auto& [file, expected] : errors) {
        const std::string msg = import_error(test::trace_fixture("bad/" + file));
        EXPECT_NE(msg.find(expected), std::string::npos) << file << ": " << msg;
        EXPECT_NE(msg.find(file), std::string::npos) << "the message names the file: " << msg;
    }
    const ImportedTrace fields = import_chrome_trace(test::trace_fixture("bad/wrong_type_fields.json"));
    EXPECT_EQ(fields.notes.skipped_events, 3);
    ASSERT_EQ(fields.notes.warnings.size(), 3u);
    EXPECT_NE(fields.notes.warnings[0].find("\"ts\" is not a number"), std::string::npos) << fields.notes.warnings[0];
    EXPECT_NE(fields.notes.warnings[0].find("byte offset 146"), std::string::npos) << fields.notes.warnings[0];
    expect_row(key_averages(fields.trace), "aten::mm", 2, 20, 20, 0, 0);

    for (const char* file : {"huge_numbers.json", "huge_numbers_finite.json"}) {
        const ImportedTrace huge = import_chrome_trace(test::trace_fixture(std::string("bad/") + file));
        EXPECT_EQ(huge.notes.skipped_events, 4) << file;
        for (const auto& e : huge.trace.events()) {
            EXPECT_GE(e.end_ns, e.start_ns) << file;
            EXPECT_LT(std::llabs(e.start_ns), int64_t(2e18)) << file;
        }
    }
    for (const char* file : {"deeply_nested.json", "deeply_nested.json.gz"}) {  // no stack overflow
        const ImportedTrace deep = import_chrome_trace(test::trace_fixture(std::string("bad/") + file));
        ASSERT_EQ(deep.trace.events().size(), 1u) << file;
        EXPECT_EQ(deep.trace.events()[0].name, "after");
        ASSERT_EQ(deep.notes.warnings.size(), 1u);
        EXPECT_NE(deep.notes.warnings[0].find("nested deeper than 1024 levels"), std::string::npos)
            << deep.notes.warnings[0];
    }
}

// A folder of ranks opens as one trace: events keep their rank, ids link within a rank only (each
// process numbers its External ids from 1), and the rows sum over ranks.
TEST(TraceFixtures, DistributedRunAsOneTrace) {
    const auto files = trace_files_of(test::trace_fixture("multi_rank"));
    ASSERT_EQ(files.size(), 2u);
    const ImportedTrace t = import_chrome_traces(files);
    EXPECT_EQ(t.trace.meta().ranks, (std::vector<int32_t>{0, 1}));
    const auto rows = key_averages(t.trace);
    expect_row(rows, "record_param_comms", 2, 80, 100, 215.75, 215.75);
    expect_row(rows, "ProfilerStep*", 2, 220, 400, 0, 240.454);
    expect_row(rows, "cuLaunchKernelEx", 2, 20, 20, 0, 0);
    EXPECT_THROW(import_chrome_traces(
                     {test::trace_fixture("multi_rank/rank0.pt.trace.json"), test::trace_fixture("bad/empty.json")}),
                 TraceImportError);
    EXPECT_EQ(trace_files_of(test::trace_fixture("kineto_2021.json")),
              std::vector<std::string>{test::trace_fixture("kineto_2021.json")});
    try {  // tests/fuzz: sources and a dictionary, no trace
        trace_files_of(std::string(AWB_FIXTURE_DIR) + "/../fuzz");
        ADD_FAILURE() << "no error";
    } catch (const TraceImportError& e) {
        EXPECT_NE(std::string(e.what()).find("holds no .json or .json.gz traces"), std::string::npos) << e.what();
    }
}

// Launch -> kernel links, as Kineto's ac2g flows: from a kernel, a launch or an op (with its children).
TEST(TraceFixtures, LaunchFlowsLinkOpsLaunchesAndKernels) {
    const ImportedTrace t = import_chrome_trace(test::trace_fixture("kineto_gpu_2x.json"));
    const auto& ev = t.trace.events();
    auto index_of = [&](const std::string& name, int nth = 0) {
        for (int32_t i = 0; i < int32_t(ev.size()); ++i)
            if (ev[size_t(i)].name == name && nth-- == 0) return i;
        return int32_t(-1);
    };
    const int32_t gemm = index_of("ampere_sgemm_128x64_nn");
    ASSERT_GE(gemm, 0);
    const auto from_kernel = launch_flows(t.trace, gemm);
    ASSERT_EQ(from_kernel.size(), 1u);
    EXPECT_EQ(ev[size_t(from_kernel[0].from)].name, "cudaLaunchKernel");
    EXPECT_EQ(launch_flows(t.trace, from_kernel[0].from), from_kernel);  // and back from the launch
    // aten::matmul launches through its aten::bmm child: one sgemm each call.
    const auto from_op = launch_flows(t.trace, index_of("aten::matmul"));
    ASSERT_EQ(from_op.size(), 1u);
    EXPECT_EQ(from_op[0].to, gemm);
    // The step holds every launch of the forward and backward on its thread.
    EXPECT_GE(launch_flows(t.trace, index_of("ProfilerStep#3")).size(), 5u);
    EXPECT_TRUE(launch_flows(t.trace, -1).empty());
}
