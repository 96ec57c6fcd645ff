// key_averages() on hand-made traces: self time from the tree, PyTorch's duplicate-node rule, memory
// attribution by interval, unattributed [memory] rows, grouping by shape, kernels linked by id.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/attention_columns.h"
#include "analysis/kernel_columns.h"
#include "analysis/op_diff_columns.h"
#include "analysis/op_columns.h"
#include "analysis/op_table.h"
#include "analysis/op_table_text.h"
#include "model/table_cells.h"
#include "model/units.h"

using namespace awb;

namespace {

TraceEvent op(const std::string& name, int64_t start_us, int64_t end_us, uint64_t thread = 1,
              std::vector<std::vector<int64_t>> shapes = {}) {
    TraceEvent e;
    e.name = name;
    e.start_ns = start_us * 1000;
    e.end_ns = end_us * 1000;
    e.thread = thread;
    e.inputs = std::make_shared<const EventInputs>(EventInputs{std::move(shapes), {}, {}, {}, {}});
    return e;
}

// A device-side event on cuda:0, stream 7, linked to the launch with that correlation id (0: none).
TraceEvent device_event(const std::string& name, EventKind kind, int64_t start_us, int64_t end_us, int64_t linked = 0) {
    TraceEvent e = op(name, start_us, end_us, 7);
    e.device = DeviceKind::CUDA;
    e.kind = kind;
    e.device_index = 0;
    e.linked_correlation_id = linked;
    return e;
}

MemoryEvent mem(int64_t ts_us, int64_t bytes, DeviceKind device = DeviceKind::CPU) {
    MemoryEvent m;
    m.ts_ns = ts_us * 1000;
    m.bytes = bytes;
    m.device = device;
    return m;
}

const OperatorRow& row(const std::vector<OperatorRow>& rows, const std::string& name, const std::string& shapes = "") {
    for (const auto& r : rows)
        if (r.name == name && r.input_shapes == shapes) return r;
    throw std::runtime_error("no row " + name + " " + shapes);
}

}  // namespace

TEST(Trace, ProfilerStepNumbersAreParsedStrictly) {
    EXPECT_EQ(profiler_step_number("ProfilerStep#12"), 12);
    EXPECT_EQ(profiler_step_number("ProfilerStep#0"), 0);
    for (const char* other : {"ProfilerStep#", "ProfilerStep#3x", "ProfilerStep*", "aten::mm", "ProfilerStep#-1"})
        EXPECT_EQ(profiler_step_number(other), -1) << other;
}

TEST(OpTable, SelfTimeIsTotalMinusDirectChildren) {
    // step [0,100): matmul [10,60) > bmm [20,50) > select [25,30); softmax [70,90)
    auto t = Trace::build({op("ProfilerStep#2", 0, 100), op("aten::matmul", 10, 60), op("aten::bmm", 20, 50),
                           op("aten::select", 25, 30), op("aten::softmax", 70, 90)},
                          {}, {});
    auto rows = key_averages(t);
    EXPECT_EQ(row(rows, "ProfilerStep*").cpu_total_ns, 100'000);
    EXPECT_EQ(row(rows, "ProfilerStep*").self_cpu_ns, 30'000);
    EXPECT_EQ(row(rows, "aten::matmul").self_cpu_ns, 20'000);
    EXPECT_EQ(row(rows, "aten::bmm").self_cpu_ns, 25'000);
    EXPECT_EQ(row(rows, "aten::select").self_cpu_ns, 5'000);
    EXPECT_EQ(totals(rows).self_cpu_ns, 100'000) << "self times add up to the top-level total";
    EXPECT_EQ(rows.front().name, "ProfilerStep*") << "rows in order of first appearance";
}

TEST(OpTable, NestingIsPerThreadAndPartialOverlapIsNotAChild) {
    auto t = Trace::build({op("a", 0, 100, 1), op("b", 10, 20, 2), op("c", 90, 120, 1)}, {}, {});
    auto rows = key_averages(t);
    EXPECT_EQ(row(rows, "a").self_cpu_ns, 100'000) << "other thread's op and a straddling op are not children";
    EXPECT_EQ(t.events()[1].parent, -1);
}

TEST(OpTable, OnlyChildWithTheSameNameIsMerged) {
    // aten::mean calling aten::mean (its only child) counts once, as in PyTorch's _remove_dup_nodes.
    auto t = Trace::build({op("aten::mean", 0, 10), op("aten::mean", 1, 9), op("aten::sum", 2, 5)}, {}, {});
    auto rows = key_averages(t);
    EXPECT_EQ(row(rows, "aten::mean").calls, 1);
    EXPECT_EQ(row(rows, "aten::mean").self_cpu_ns, 7'000);
    // With a second child the nested op stays a separate call.
    auto t2 = Trace::build({op("aten::mean", 0, 10), op("aten::mean", 1, 5), op("aten::sum", 6, 8)}, {}, {});
    EXPECT_EQ(row(key_averages(t2), "aten::mean").calls, 2);
}

TEST(OpTable, FilteredUtilityOpsAreLeftOut) {
    auto t = Trace::build({op("aten::is_leaf", 0, 1), op("aten::_version", 2, 3), op("aten::add", 4, 5)}, {}, {});
    auto rows = key_averages(t);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].name, "aten::add");
}

TEST(OpTable, MemoryIsChargedToEveryOpWhoseIntervalHoldsIt) {
    auto t = Trace::build({op("outer", 0, 100), op("inner", 10, 20)},
                          {mem(10, 4096), mem(20, 100), mem(50, -1000), mem(200, 7), mem(300, -7)}, {});
    auto rows = key_averages(t);
    EXPECT_EQ(row(rows, "inner").cpu_memory_bytes, 4196) << "both interval ends are inclusive";
    EXPECT_EQ(row(rows, "inner").self_cpu_memory_bytes, 4196);
    EXPECT_EQ(row(rows, "outer").cpu_memory_bytes, 3196);
    EXPECT_EQ(row(rows, "outer").self_cpu_memory_bytes, -1000);
    const auto loose = row(rows, "[memory]");
    EXPECT_EQ(loose.calls, 2) << "records outside every op become top-level [memory] rows";
    EXPECT_EQ(loose.cpu_memory_bytes, 0);
}

TEST(OpTable, CudaMemoryGoesToDeviceColumns) {
    auto t = Trace::build({op("aten::empty", 0, 10)}, {mem(5, 512, DeviceKind::CUDA)}, {});
    const auto rows = key_averages(t);  // the row is a reference into it (AddressSanitizer found one into a temporary)
    const auto r = row(rows, "aten::empty");
    EXPECT_EQ(r.cpu_memory_bytes, 0);
    EXPECT_EQ(r.device_memory_bytes, 512);
    EXPECT_EQ(r.self_device_memory_bytes, 512);
}

TEST(OpTable, GroupByShapeSplitsRowsAndFormatsLikePython) {
    auto t = Trace::build(
        {op("aten::bmm", 0, 10, 1, {{16, 512, 64}, {16, 64, 512}}),
         op("aten::bmm", 20, 30, 1, {{16, 512, 512}, {16, 512, 64}}),
         op("aten::bmm", 40, 50, 1, {{16, 512, 64}, {16, 64, 512}}), op("aten::mul", 60, 61, 1, {{2, 8}, {}})},
        {}, {});
    auto by_name = key_averages(t);
    EXPECT_EQ(row(by_name, "aten::bmm").calls, 3);
    EXPECT_EQ(row(by_name, "aten::bmm").input_shapes, "");
    auto by_shape = key_averages(t, {true});
    EXPECT_EQ(row(by_shape, "aten::bmm", "[[16, 512, 64], [16, 64, 512]]").calls, 2);
    EXPECT_EQ(row(by_shape, "aten::bmm", "[[16, 512, 512], [16, 512, 64]]").calls, 1);
    EXPECT_EQ(row(by_shape, "aten::mul", "[[2, 8], []]").calls, 1);
}

TEST(OpTable, KernelsLinkedByCorrelationGiveDeviceTime) {
    TraceEvent launch = op("aten::mm", 0, 10);
    launch.correlation_id = 42;
    TraceEvent parent = op("aten::matmul", 0, 20);
    parent.correlation_id = 41;
    const TraceEvent kernel = device_event("gemm_kernel", EventKind::Kernel, 12, 15, 42);
    auto rows = key_averages(Trace::build({parent, launch, kernel}, {}, {}));
    EXPECT_EQ(row(rows, "aten::mm").self_device_ns, 3'000);
    EXPECT_EQ(row(rows, "aten::matmul").device_total_ns, 3'000);
    EXPECT_EQ(row(rows, "aten::matmul").self_device_ns, 0);
    const auto k = row(rows, "gemm_kernel");
    EXPECT_EQ(k.device, DeviceKind::CUDA);
    EXPECT_EQ(k.cpu_total_ns, 0);
    EXPECT_EQ(k.device_total_ns, 3'000);
}

// The footer as PyTorch 2.x's _build_table makes it: device rows only, without user annotations. A
// sum over every row counted each kernel twice (its own row and its launcher's self CUDA) and the
// annotation's span on top (3.290 s where the kernels summed 566.76 ms).
TEST(OpTable, SelfDeviceTotalCountsEachKernelOnce) {
    TraceEvent launch = op("aten::mm", 0, 10);
    launch.correlation_id = 42;
    const TraceEvent kernel = device_event("gemm_kernel", EventKind::Kernel, 12, 15, 42);
    const TraceEvent annotation = device_event("manual", EventKind::UserAnnotation, 11, 30);  // gpu_user_annotation
    const auto rows = key_averages(Trace::build({launch, kernel, annotation}, {}, {}));
    EXPECT_TRUE(row(rows, "manual").user_annotation);
    EXPECT_FALSE(row(rows, "gemm_kernel").user_annotation);
    EXPECT_EQ(row(rows, "aten::mm").self_device_ns, 3'000);
    EXPECT_EQ(totals(rows).self_device_ns, 3'000) << "the kernel once: not its launcher's share, not the annotation";
    TableTextOptions text;
    text.device_columns = true;
    EXPECT_NE(format_table(rows, text).find("Self CUDA time total: 3.000us"), std::string::npos)
        << format_table(rows, text);
    // A table without device rows (LibTorch 1.x's legacy profiler) keeps the device time on its CPU rows.
    std::vector<OperatorRow> legacy{row(rows, "aten::mm")};
    EXPECT_EQ(totals(legacy).self_device_ns, 3'000);
}

// A device-side user annotation is a span over work, not work (vLLM's capture_8192_PIECEWISE had
// 55 ms of self CUDA time, 6541% of the table, over 0.8 ms of kernels). PyTorch links it to its CPU
// record_function and adds its span to that op's device time; here neither row gets device time from it.
TEST(OpTable, UserAnnotationsGiveNoDeviceTime) {
    TraceEvent scope = op("capture_8192_PIECEWISE", 0, 100);
    scope.kind = EventKind::UserAnnotation;
    scope.correlation_id = 7;
    TraceEvent launch = op("aten::mm", 10, 20);
    launch.correlation_id = 42;
    const TraceEvent kernel = device_event("gemm_kernel", EventKind::Kernel, 22, 25, 42);
    const TraceEvent annotation = device_event("capture_8192_PIECEWISE", EventKind::UserAnnotation, 5, 95, 7);
    const auto rows = key_averages(Trace::build({scope, launch, kernel, annotation}, {}, {}));
    const OperatorRow* cpu = nullptr;
    const OperatorRow* device = nullptr;
    for (const auto& r : rows)
        if (r.name == "capture_8192_PIECEWISE") (r.device == DeviceKind::CPU ? cpu : device) = &r;
    ASSERT_TRUE(cpu && device);
    EXPECT_EQ(cpu->self_device_ns, 0) << "the annotation's 90 us span is not its CPU scope's device time";
    EXPECT_EQ(cpu->device_total_ns, 3'000) << "only the kernel under it";
    EXPECT_EQ(device->self_device_ns, 0);
    EXPECT_EQ(device->device_total_ns, 0);
    EXPECT_EQ(totals(rows).self_device_ns, 3'000);
}

TEST(OpTable, AsyncEventsHaveNoSelfTime) {
    TraceEvent a = op("async_op", 0, 50);
    a.is_async = true;
    auto rows = key_averages(Trace::build({a, op("aten::add", 10, 20)}, {}, {}));
    EXPECT_EQ(row(rows, "async_op").self_cpu_ns, 0);
    EXPECT_EQ(row(rows, "async_op").cpu_total_ns, 50'000);
    EXPECT_EQ(row(rows, "aten::add").self_cpu_ns, 10'000) << "async events parent nothing";
}

TEST(OpTable, SortingIsNumericDescendingAndStable) {
    std::vector<OperatorRow> rows(3);
    rows[0].name = "a";
    rows[0].self_cpu_ns = 900;
    rows[1].name = "b";
    rows[1].self_cpu_ns = 10'000;
    rows[2].name = "c";
    rows[2].self_cpu_ns = 900;
    sort_rows(rows, SortKey::SelfCpu);
    EXPECT_EQ(rows[0].name, "b");
    EXPECT_EQ(rows[1].name, "a");
    EXPECT_EQ(rows[2].name, "c");
    SortKey k;
    EXPECT_TRUE(parse_sort_key("self_cpu_mem", k));
    EXPECT_EQ(k, SortKey::SelfCpuMemory);
    EXPECT_FALSE(parse_sort_key("cuda_time", k));
}

TEST(OpTableText, UnitsFollowPyTorch) {
    EXPECT_EQ(format_time_us(0.5), "0.500us");
    EXPECT_EQ(format_time_us(1234.5), "1.234ms");
    EXPECT_EQ(format_time_us(2.5e6), "2.500s");
    EXPECT_EQ(format_memory(512), "512 b");
    EXPECT_EQ(format_memory(-2048), "-2.00 Kb");
    EXPECT_EQ(format_memory(int64_t(50) << 20), "50.00 Mb");
    EXPECT_EQ(format_memory(int64_t(3) << 30), "3.00 Gb");
}

TEST(OpTableText, TableShowsRowsAndTotal) {
    auto t = Trace::build({op("ProfilerStep#1", 0, 100), op("aten::bmm", 10, 60)}, {}, {});
    auto rows = key_averages(t);
    sort_rows(rows, SortKey::SelfCpu);
    const std::string text = format_table(rows, {});
    EXPECT_NE(text.find("aten::bmm"), std::string::npos);
    EXPECT_NE(text.find("50.00%"), std::string::npos);
    EXPECT_NE(text.find("Self CPU time total: 100.000us"), std::string::npos);
    EXPECT_EQ(text.find("Self CUDA"), std::string::npos);
}

#include "analysis/op_diff.h"

TEST(OpDiff, JoinsByNameAndShapesAndSortsByImpact) {
    auto row = [](const char* name, const char* shapes, int64_t calls, int64_t self_ns) {
        OperatorRow r;
        r.name = name;
        r.input_shapes = shapes;
        r.calls = calls;
        r.self_cpu_ns = self_ns;
        return r;
    };
    const std::vector<OperatorRow> a{row("aten::bmm", "", 6, 1000), row("aten::softmax", "", 2, 500),
                                     row("aten::mul", "[[1]]", 2, 100)};
    const std::vector<OperatorRow> b{row("aten::bmm", "", 6, 400), row("aten::mul", "[[2]]", 2, 90),
                                     row("aten::_efficient_attention", "", 1, 300)};
    const auto d = awb::join_operators(a, b);
    ASSERT_EQ(d.size(), 5u);
    EXPECT_EQ(d[0].name, "aten::bmm");  // -600
    EXPECT_EQ(d[0].self_cpu_delta_ns(), -600);
    EXPECT_TRUE(d[0].in_a && d[0].in_b);
    EXPECT_EQ(d[1].name, "aten::softmax");  // -500, vanished
    EXPECT_FALSE(d[1].in_b);
    EXPECT_EQ(d[2].name, "aten::_efficient_attention");  // +300, new
    EXPECT_FALSE(d[2].in_a);
    EXPECT_EQ(d[2].b.calls, 1);
    // Grouped by shape, the two aten::mul rows do not match each other.
    EXPECT_EQ(d[3].name, "aten::mul");
    EXPECT_EQ(d[4].name, "aten::mul");
    EXPECT_NE(d[3].input_shapes, d[4].input_shapes);
}

TEST(OpDiff, DeviceTimeCountsInTheImpactAndKernelsJoinByName) {
    OperatorRow cpu_heavy, device_heavy;
    cpu_heavy.name = "aten::copy_";
    cpu_heavy.self_cpu_ns = 300;
    device_heavy.name = "aten::bmm";
    device_heavy.self_device_ns = 5000;
    OperatorRow device_after = device_heavy;
    device_after.self_device_ns = 1000;
    const auto d = awb::join_operators({cpu_heavy, device_heavy}, {device_after});
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].name, "aten::bmm");  // 4000 ns less on the device outweighs 300 ns of CPU
    EXPECT_EQ(d[0].impact_ns(), 4000);
    // A CPU annotation and its device twin keep apart.
    OperatorRow on_device = cpu_heavy;
    on_device.device = DeviceKind::CUDA;
    on_device.self_device_ns = 50;
    EXPECT_EQ(awb::join_operators({cpu_heavy, on_device}, {cpu_heavy, on_device}).size(), 2u);

    auto kernel = [](const char* name, int64_t calls, int64_t total_ns, int grid) {
        awb::KernelRow k;
        k.name = name;
        k.calls = calls;
        k.total_ns = total_ns;
        k.launch.grid = {grid, 1, 1};
        return k;
    };
    // Two launch configurations of one kernel in A are summed; the gemm vanished, the flash kernel is new.
    const auto kd = awb::join_kernels(
        {kernel("softmax_warp", 1, 100, 8), kernel("softmax_warp", 2, 300, 16), kernel("sgemm", 1, 900, 4)},
        {kernel("softmax_warp", 3, 350, 8), kernel("flash_fwd", 1, 200, 2)});
    ASSERT_EQ(kd.size(), 3u);
    EXPECT_EQ(kd[0].name, "sgemm");
    EXPECT_TRUE(kd[0].in_a && !kd[0].in_b);
    EXPECT_EQ(kd[1].name, "flash_fwd");
    EXPECT_EQ(kd[2].name, "softmax_warp");
    EXPECT_EQ(kd[2].calls_a, 3);
    EXPECT_EQ(kd[2].total_a_ns, 400);
    EXPECT_EQ(kd[2].delta_ns(), -50);
}

// The tables are described once (op_columns.h, kernel_columns.h): each column sits at its enum's place,
// the CLI's headers are the description's in PyTorch's order, and every view averages the same way.
TEST(TableColumns, EachViewRendersTheDescription) {
    for (size_t i = 0; i < awb::op_columns().size(); ++i) EXPECT_EQ(size_t(awb::op_columns()[i].id), i);
    for (size_t i = 0; i < awb::kernel_columns().size(); ++i) EXPECT_EQ(size_t(awb::kernel_columns()[i].id), i);
    for (size_t i = 0; i < awb::diff_columns().size(); ++i) EXPECT_EQ(size_t(awb::diff_columns()[i].id), i);
    for (size_t i = 0; i < awb::attention_column_list().size(); ++i)
        EXPECT_EQ(size_t(awb::attention_column_list()[i].id), i);

    awb::OperatorRow never_called;
    never_called.name = "aten::empty";
    never_called.cpu_total_ns = 5'000;  // calls 0: a row a merge can leave
    awb::OperatorRow mm;
    mm.name = "aten::mm";
    mm.calls = 4;
    mm.self_cpu_ns = mm.cpu_total_ns = 8'000;
    const std::vector<awb::OperatorRow> rows{mm, never_called};
    EXPECT_EQ(awb::op_value(never_called, awb::OpColumn::CpuAvg, awb::totals(rows)), 0.0);
    EXPECT_EQ(awb::op_value(mm, awb::OpColumn::CpuAvg, awb::totals(rows)), 2'000.0);
    EXPECT_EQ(awb::op_value(mm, awb::OpColumn::SelfCpuShare, awb::totals(rows)), 1.0);

    awb::TableTextOptions o;
    o.device_columns = true;
    const std::string text = awb::format_table(rows, o);
    size_t at = 0;
    for (int position = 0; position < 14; ++position) {
        const auto it = std::find_if(awb::op_columns().begin(), awb::op_columns().end(),
                                     [&](const auto& c) { return c.pytorch_position == position; });
        ASSERT_NE(it, awb::op_columns().end()) << position;
        const size_t found = text.find(it->pytorch_title, at);
        ASSERT_NE(found, std::string::npos) << it->pytorch_title << " after place " << at << "\n" << text;
        at = found;
    }
    // aten::empty's average is 0, not its total (the CLI divided by max(calls, 1)).
    const std::string empty_line = text.substr(text.find("aten::empty"));
    EXPECT_NE(empty_line.find("5.000us       0.000us"), std::string::npos) << empty_line;
}

// A comparison's cells read the same in `attnwb diff` and the Compare view: a ratio without A is "new"
// (or "-" when B has none either), a delta that grew is signed.
TEST(TableColumns, ComparisonCells) {
    awb::OperatorDiffRow grew;
    grew.in_a = grew.in_b = true;
    grew.a.self_cpu_ns = 1'000;
    grew.b.self_cpu_ns = 4'000;
    EXPECT_EQ(awb::diff_cell(grew, awb::DiffColumn::SelfCpuRatio), "4.00x");
    EXPECT_EQ(awb::diff_cell(grew, awb::DiffColumn::SelfCpuDelta), "+3.00 us");
    awb::OperatorDiffRow fresh;
    fresh.in_b = true;
    fresh.b.self_cpu_ns = 10;
    EXPECT_EQ(awb::diff_cell(fresh, awb::DiffColumn::SelfCpuRatio), "new");
    EXPECT_EQ(awb::diff_cell(fresh, awb::DiffColumn::Presence), "new");
    fresh.b.self_cpu_ns = 0;
    EXPECT_EQ(awb::diff_cell(fresh, awb::DiffColumn::SelfCpuRatio), "-");
}

// A text table's cell is padded and cut by characters: a name with "…" (three bytes, one character) keeps
// its width, and a cut never splits a character.
TEST(TableColumns, CellsFitByCharacters) {
    EXPECT_EQ(awb::fit_cell("12", 5), "   12");
    EXPECT_EQ(awb::fit_cell("ab", -4), "ab  ");
    EXPECT_EQ(awb::fit_cell("abcdef", -4), "abcd");
    EXPECT_EQ(awb::fit_cell("as is", 0), "as is");
    EXPECT_EQ(awb::fit_cell("a\u2026b", -4), "a\u2026b ");
    EXPECT_EQ(awb::fit_cell("\u2026\u2026\u2026", -2), "\u2026\u2026");
}
