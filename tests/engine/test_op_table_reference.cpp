// The operator table against PyTorch's own key_averages() on the same workload.
//
// Fixtures: tests/fixtures/key_averages/torch-<major.minor>/*.json, made by
// tests/reference/make_op_fixtures.py with the Python torch of the LibTorch these tests link (Debian's
// python3-torch for 1.13.1, the wheel's torch for 2.11.0), each case run 30 times. The reference is
// not perfectly repeatable: at the profiler's resolution (1 us on 1.13, 1 ns on 2.x) a tensor freed
// while a tiny operator runs is charged to that operator, and two ops in the same tick can nest
// differently (which changes a few call counts through PyTorch's duplicate-node rule). So:
//   - every row that appeared in all reference runs must appear here, and no row may appear here that
//     the reference never produced;
//   - per column, the reference's own range (min..max over its runs) and ours (over five runs here)
//     must overlap: where both sides agree with themselves, that is exact equality; where a microsecond
//     tie makes one side vary (about one run in eight nests a short op differently, which PyTorch's
//     duplicate-node rule turns into a call more or less), it is the spread against the spread.
//     A method that differed would show on every run and fail.
//
// One more allowance, for the memory columns only: a [memory] record whose microsecond equals the start
// or end of an operator is charged to that operator (PyTorch's interval test is inclusive). Our C++
// loop has no interpreter between ops, so a tensor dying right after an op returns (a temporary, a
// local at function exit) often lands in the op's last microsecond, where in Python it lands a few
// microseconds later, outside (and the other way round). Records within one clock tick of an op's
// start or end (or anywhere in an op at most four ticks long: on a loaded machine it takes longer and
// a neighbour's record falls inside) are the only ones whose owner depends on speed; each row may differ from the
// reference
// by at most the bytes of such records around its own events and their direct children (whose share
// moves its self column). The "[memory]" row collects records that fell between ops, all of them
// timing-dependent: it may appear here when the reference never had it, within its own bytes.
// Records well inside an op, every allocation of a score matrix among them, must be charged exactly
// as PyTorch charges them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "analysis/op_table.h"
#include "engine/profiler_session.h"
#include "results/run_json.h"
#include "test_support.h"

using namespace awb;
using nlohmann::json;

namespace {

constexpr int kOurRuns = 5;
const char* const kColumns[] = {"calls", "cpu_memory_bytes", "self_cpu_memory_bytes"};

int64_t column(const OperatorRow& r, const std::string& c) {
    if (c == "calls") return r.calls;
    if (c == "cpu_memory_bytes") return r.cpu_memory_bytes;
    return r.self_cpu_memory_bytes;
}

using RowKey = std::pair<std::string, std::string>;  // name, input shapes

struct Measured {
    const OperatorRow* row;
    int64_t boundary_bytes;  // see the header comment
};

struct Ours {
    std::map<RowKey, std::vector<Measured>> rows;  // per key, one entry per run it appeared in
    std::vector<std::vector<OperatorRow>> storage;
};

// Sum of |bytes| of the memory records within kBoundaryTicks of each event's start or end (anywhere in an
// event at most four ticks long), per row key, added to the event's own row and to its parent's row.
// Three ticks, not one: which op a record next to a boundary falls in follows the machine's speed (the
// reference's Python runs, recorded on another machine, had records a tick from aten::resolve_conj's and
// aten::copy_'s ends that a machine 1.5x slower puts two or three ticks away).
std::map<RowKey, int64_t> boundary_bytes(const Trace& trace, bool by_shape) {
    const auto& mem = trace.memory();
    constexpr int64_t kBoundaryTicks = 3;
    const int64_t tick = kBoundaryTicks * trace.meta().clock_resolution_ns;
    auto within = [&](int64_t from, int64_t to) {  // |bytes| of the records in [from - tick, to + tick]
        int64_t sum = 0;
        auto lo = std::lower_bound(mem.begin(), mem.end(), from - tick,
                                   [](const MemoryEvent& m, int64_t t) { return m.ts_ns < t; });
        for (auto it = lo; it != mem.end() && it->ts_ns <= to + tick; ++it) sum += std::llabs(it->bytes);
        return sum;
    };
    auto key_of = [&](const TraceEvent& e) {
        return RowKey{table_name(e.name), by_shape ? format_shapes(e.shapes()) : std::string()};
    };
    std::map<RowKey, int64_t> out;
    for (const auto& e : trace.events()) {
        if (!nests_on_cpu(e) || is_filtered_op_name(e.name)) continue;
        // An op a few ticks long (aten::resolve_conj, aten::view) is all boundary: how long it takes on a
        // loaded machine decides whether a record next to it falls inside.
        const bool short_op = e.end_ns - e.start_ns <= 4 * trace.meta().clock_resolution_ns;
        const int64_t b =
            short_op ? within(e.start_ns, e.end_ns) : within(e.start_ns, e.start_ns) + within(e.end_ns, e.end_ns);
        if (b == 0) continue;
        out[key_of(e)] += b;
        if (e.parent >= 0) out[key_of(trace.events()[size_t(e.parent)])] += b;
    }
    return out;
}

std::vector<std::string> fixture_files() {
    std::vector<std::string> out;
    std::error_code missing;
    for (const auto& e : std::filesystem::directory_iterator(test::torch_reference("key_averages"), missing))
        if (e.path().extension() == ".json") out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

void compare(const std::string& label, const json& reference, const Ours& ours, int reference_runs) {
    std::map<RowKey, const json*> ref;
    for (const auto& r : reference) ref[{r["name"].get<std::string>(), r["input_shapes"].get<std::string>()}] = &r;

    int steady = 0, found = 0;
    for (const auto& [key, r] : ref) {
        if ((*r)["seen_in_runs"].get<int>() != reference_runs) continue;
        ++steady;
        found += int(ours.rows.count(key));
        EXPECT_TRUE(ours.rows.count(key)) << label << ": row '" << key.first << "' " << key.second
                                          << " is in every reference run but in none of ours";
    }
    std::cout << label << ": " << found << " of " << steady << " reference rows (those in all " << reference_runs
              << " runs) found; " << ours.rows.size() << " rows here, " << ref.size() << " in the reference\n";
    for (const auto& [key, runs] : ours.rows) {
        if (int(runs.size()) * 2 <= kOurRuns) continue;  // a minority row: one run's tie
        auto it = ref.find(key);
        if (it == ref.end() && key.first == "[memory]") {
            for (const auto& m : runs) EXPECT_LE(std::llabs(m.row->cpu_memory_bytes), m.boundary_bytes);
            continue;
        }
        if (it == ref.end()) {
            ADD_FAILURE() << label << ": row '" << key.first << "' " << key.second << " never appears in the reference";
            continue;
        }
        const json& r = *it->second;
        for (const std::string c : kColumns) {
            int64_t ours_lo = INT64_MAX, ours_hi = INT64_MIN;
            std::string values;
            for (const auto& m : runs) {
                const int64_t v = column(*m.row, c), slack = c == "calls" ? 0 : m.boundary_bytes;
                ours_lo = std::min(ours_lo, v - slack);
                ours_hi = std::max(ours_hi, v + slack);
                values += " " + std::to_string(v) + (slack ? "(+-" + std::to_string(slack) + ")" : "");
            }
            const int64_t lo = r[c + "_min"].get<int64_t>(), hi = r[c + "_max"].get<int64_t>();
            EXPECT_LE(std::max(ours_lo, lo), std::min(ours_hi, hi))
                << label << ": " << key.first << " " << key.second << " column " << c << ": ours" << values
                << " vs the reference's " << lo << ".." << hi << (lo == hi ? " (it agrees with itself)" : "");
        }
    }
}

}  // namespace

// The cases below are instantiated from the folder of this LibTorch's version: it must be there, whole.
TEST(KeyAveragesReferenceFixtures, ExistForThisLibTorch) {
    EXPECT_EQ(fixture_files().size(), 8u)
        << test::torch_reference("key_averages") << ": tests/reference/make_op_fixtures.py makes them";
}

class KeyAveragesReference : public ::testing::TestWithParam<std::string> {};

TEST_P(KeyAveragesReference, MatchesPythonProfiler) {
    std::ifstream in(GetParam());
    ASSERT_TRUE(in) << GetParam();
    const json fixture = json::parse(in);
    const RunSpec spec = fixture["spec"].get<RunSpec>();
    ProfileOptions options;
    options.wait = fixture["schedule"]["wait"];
    options.warmup = fixture["schedule"]["warmup"];
    options.active = fixture["schedule"]["active"];
    options.repeat = fixture["schedule"]["repeat"];
    options.record_shapes = fixture["record_shapes"];
    options.profile_memory = fixture["profile_memory"];
    const int reference_runs = fixture["runs"];

    Ours by_name, by_shape;
    std::vector<std::map<RowKey, int64_t>> name_slack, shape_slack;
    for (int i = 0; i < kOurRuns; ++i) {
        const ProfileResult result = profile_run(spec, options);
        by_name.storage.push_back(key_averages(result.trace));
        by_shape.storage.push_back(key_averages(result.trace, {true}));
        name_slack.push_back(boundary_bytes(result.trace, false));
        shape_slack.push_back(boundary_bytes(result.trace, true));
    }
    // "[memory]" rows hold only records that fell between ops: all of their bytes are slack.
    auto index = [](Ours& ours, size_t run, std::map<RowKey, int64_t>& slack) {
        for (const auto& row : ours.storage[run]) {
            const RowKey key{row.name, row.input_shapes};
            if (row.name == "[memory]")
                slack[key] = std::llabs(row.cpu_memory_bytes) + std::llabs(row.self_cpu_memory_bytes);
            ours.rows[key].push_back({&row, slack[key]});
        }
    };
    for (size_t i = 0; i < size_t(kOurRuns); ++i) {
        index(by_name, i, name_slack[i]);
        index(by_shape, i, shape_slack[i]);
    }

    const std::string label = std::filesystem::path(GetParam()).stem().string();
    compare(label + " (by name)", fixture["by_name"], by_name, reference_runs);
    compare(label + " (by shape)", fixture["by_shape"], by_shape, reference_runs);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, KeyAveragesReference, ::testing::ValuesIn(fixture_files()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             return std::filesystem::path(info.param).stem().string();
                         });
