// Workspaces: a session's runs (with traces), sweeps and spec saved and read back as they were; a
// missing run file leaves that run out with a message, a damaged workspace file is one clear error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "analysis/op_table.h"
#include "engine/profiler_session.h"
#include "engine/sweep_runner.h"
#include "results/measurement_json.h"
#include "results/results_file.h"
#include "results/run_json.h"
#include "results/workspace.h"
#include "test_support.h"

using namespace awb;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) { return test::fresh_dir("ws_" + name); }

// The trace of run n (1-based) in a workspace's runs folder: run-N.SAVE.trace.json.gz; empty when none.
fs::path run_file(const fs::path& runs, int n) {
    const std::string prefix = "run-" + std::to_string(n) + ".";
    for (const auto& e : fs::directory_iterator(runs))
        if (e.path().filename().string().rfind(prefix, 0) == 0) return e.path();
    return {};
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

size_t files_in(const fs::path& dir) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir)) n += e.is_regular_file() ? 1 : 0;
    return n;
}

Workspace two_runs_and_a_sweep() {
    Workspace w;
    RunSpec spec = test::small_spec();
    w.runs.push_back({"manual small", std::make_shared<const ProfileResult>(profile_run(spec, ProfileOptions{}))});
    spec.variant = "sdpa";
    spec.seq_q = spec.seq_k = 32;
    w.runs.push_back({"sdpa 32", std::make_shared<const ProfileResult>(profile_run(spec, ProfileOptions{}))});
    SweepPlan plan;
    plan.base = test::small_spec();
    plan.seq_lengths = {16, 32};
    plan.variants = {"manual"};
    plan.bench.budget_s = 0.02;
    plan.bench.min_repeats = 3;
    plan.bench.warmup = 1;
    plan.bench.measure_memory = false;
    w.sweeps.push_back({"small sweep", run_sweep(plan)});
    w.panel_spec = spec;
    w.shown = 1;
    return w;
}

}  // namespace

TEST(Workspace, SavesAndReopensRunsSweepsAndSpec) {
    const Workspace w = two_runs_and_a_sweep();
    const fs::path dir = fresh_dir("roundtrip");
    const std::string path = (dir / "session.json").string();
    save_workspace(w, path);
    EXPECT_FALSE(run_file(dir / "session.runs", 1).empty());
    EXPECT_FALSE(run_file(dir / "session.runs", 2).empty());

    // Moved elsewhere, it still opens: the run files are found relative to the workspace file.
    const fs::path moved = fresh_dir("moved");
    fs::rename(dir / "session.json", moved / "session.json");
    fs::rename(dir / "session.runs", moved / "session.runs");
    const Workspace back = load_workspace((moved / "session.json").string());
    EXPECT_TRUE(back.problems.empty());
    EXPECT_EQ(back.panel_spec, w.panel_spec);
    EXPECT_EQ(back.shown, 1);
    ASSERT_EQ(back.runs.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        const ProfileResult& a = *w.runs[i].result;
        const ProfileResult& b = *back.runs[i].result;
        EXPECT_EQ(back.runs[i].label, w.runs[i].label);
        EXPECT_EQ(b.spec, a.spec);
        EXPECT_EQ(b.options.active, a.options.active);
        EXPECT_EQ(b.environment.torch_version, a.environment.torch_version);
        ASSERT_EQ(b.steps.size(), a.steps.size());
        EXPECT_EQ(b.steps.back().wall_ns, a.steps.back().wall_ns);
        EXPECT_EQ(b.steps.back().action, a.steps.back().action);
        EXPECT_EQ(b.device_peak_bytes, a.device_peak_bytes);
        EXPECT_DOUBLE_EQ(median_recorded_step_ns(b), median_recorded_step_ns(a));
        // The operator table the user sees is the same.
        const auto ta = key_averages(a.trace);
        const auto tb = key_averages(b.trace);
        ASSERT_EQ(ta.size(), tb.size());
        for (size_t k = 0; k < ta.size(); ++k) {
            EXPECT_EQ(ta[k].name, tb[k].name);
            EXPECT_EQ(ta[k].calls, tb[k].calls);
            EXPECT_EQ(ta[k].self_cpu_ns, tb[k].self_cpu_ns) << ta[k].name;
        }
        EXPECT_EQ(b.trace.memory().size(), a.trace.memory().size());
    }
    ASSERT_EQ(back.sweeps.size(), 1u);
    EXPECT_EQ(back.sweeps[0].label, "small sweep");
    ASSERT_EQ(back.sweeps[0].sweep.points.size(), w.sweeps[0].sweep.points.size());
    EXPECT_EQ(back.sweeps[0].sweep.points[1].bench.timing.median_ns,
              w.sweeps[0].sweep.points[1].bench.timing.median_ns);
    EXPECT_FALSE(back.bench);  // none was saved
    EXPECT_FALSE(back.check);
}

TEST(Workspace, KeepsTheBenchmarkAndCheckTheChecklistReads) {
    Workspace w;
    auto bench = std::make_shared<BenchResult>();
    bench->spec = test::small_spec();
    bench->timing.median_ns = 1.5e6;
    bench->warmup_iterations = 3;
    w.bench = bench;
    auto check = std::make_shared<CheckReport>();
    check->spec = test::small_spec();
    check->tolerance = 1e-5;
    check->variants = {{"sdpa", "", {{"output", 1e-7, 1e-7, 1, 1e-7, true, true}}, {}, true, "", ""}};
    w.check = check;
    const fs::path dir = fresh_dir("bench_check");
    save_workspace(w, (dir / "w.json").string());
    const Workspace back = load_workspace((dir / "w.json").string());
    ASSERT_TRUE(back.bench && back.check);
    EXPECT_EQ(*back.bench, *bench);
    EXPECT_EQ(*back.check, *check);
}

TEST(Workspace, MissingRunFileLeavesThatRunOutAndKeepsTheRest) {
    Workspace w = two_runs_and_a_sweep();
    const fs::path dir = fresh_dir("missing");
    const std::string path = (dir / "ws.json").string();
    save_workspace(w, path);
    const fs::path removed = run_file(dir / "ws.runs", 1);
    ASSERT_FALSE(removed.empty());
    fs::remove(removed);
    const Workspace back = load_workspace(path);
    ASSERT_EQ(back.runs.size(), 1u);
    EXPECT_EQ(back.runs[0].label, "sdpa 32");
    EXPECT_EQ(back.shown, 0);  // the shown run (the second) is now the first
    ASSERT_EQ(back.problems.size(), 1u);
    EXPECT_NE(back.problems[0].find("manual small"), std::string::npos) << back.problems[0];
    EXPECT_NE(back.problems[0].find(removed.filename().string()), std::string::npos) << back.problems[0];
    EXPECT_EQ(back.sweeps.size(), 1u);
}

// A save that stops half-way (here: cancelled after its first trace; a kill -9 or a full disk stop it
// the same way, before the workspace file's rename) leaves the previous workspace whole: its file and
// every trace it names. A save that ends removes the previous save's traces.
TEST(Workspace, SaveStoppedHalfWayLeavesThePreviousWorkspaceWhole) {
    const Workspace first = two_runs_and_a_sweep();
    const fs::path dir = fresh_dir("halfway");
    const std::string path = (dir / "ws.json").string();
    save_workspace(first, path);
    const std::string before = read_text(path);

    Workspace second = first;
    second.runs.push_back({"third", first.runs[0].result});
    for (auto& r : second.runs) r.label += " (second save)";
    struct CancelAfterFirstTrace : RunObserver {
        int calls = 0;
        void on_progress(int, int, const std::string&) override { ++calls; }
        bool cancel_requested() const override { return calls >= 2; }
    } cancel;
    EXPECT_THROW(save_workspace(second, path, &cancel), Cancelled);
    EXPECT_EQ(read_text(path), before);
    EXPECT_EQ(files_in(dir / "ws.runs"), 2u);  // the first save's two traces; the stopped save's are gone
    const Workspace back = load_workspace(path);
    EXPECT_TRUE(back.problems.empty()) << back.problems.front();
    ASSERT_EQ(back.runs.size(), 2u);
    EXPECT_EQ(back.runs[0].label, "manual small");
    EXPECT_EQ(back.runs[1].result->spec, first.runs[1].result->spec);

    save_workspace(second, path);
    EXPECT_EQ(files_in(dir / "ws.runs"), 3u);  // the new three; the first save's two are removed
    EXPECT_EQ(load_workspace(path).runs.size(), 3u);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()),
              2);  // ws.json, ws.runs/: no temporaries
}

TEST(Workspace, DamagedFilesGiveOneClearError) {
    const fs::path dir = fresh_dir("bad");
    auto error_of = [](const std::string& path) {
        try {
            load_workspace(path);
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(error_of((dir / "absent.json").string()).find("cannot open"), std::string::npos);
    std::ofstream(dir / "trunc.json")
        << R"({"schema": "attention-workbench/workspace", "schema_version": 1, "runs": [)";
    EXPECT_NE(error_of((dir / "trunc.json").string()).find("not valid JSON"), std::string::npos);
    std::ofstream(dir / "other.json") << R"({"schema": "attention-workbench/sweep", "schema_version": 1})";
    EXPECT_NE(error_of((dir / "other.json").string()).find("not an Attention Workbench workspace"), std::string::npos);
    std::ofstream(dir / "newer.json") << R"({"schema": "attention-workbench/workspace", "schema_version": 9})";
    EXPECT_NE(error_of((dir / "newer.json").string()).find("schema_version 9"), std::string::npos);
    std::ofstream(dir / "badspec.json")
        << R"({"schema": "attention-workbench/workspace", "schema_version": 1, "panel_spec": {"dtype": "float7"},
              "runs": [], "sweeps": []})";
    EXPECT_NE(error_of((dir / "badspec.json").string()).find("float7"), std::string::npos);
}

TEST(Workspace, UnwritableFolderIsNamed) {
    try {
        save_workspace(Workspace{}, "/proc/awb-no-such-dir/ws.json");
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("/proc/awb-no-such-dir"), std::string::npos) << e.what();
    }
}

TEST(JsonIo, GzPathsAreWrittenCompressed) {
    const fs::path dir = fresh_dir("gz");
    const std::string text(100000, 'a');
    write_text_file((dir / "x.json.gz").string(), text);
    EXPECT_LT(fs::file_size(dir / "x.json.gz"), 2000u);
    std::ifstream in(dir / "x.json.gz", std::ios::binary);
    unsigned char magic[2] = {0, 0};
    in.read(reinterpret_cast<char*>(magic), 2);
    EXPECT_EQ(magic[0], 0x1f);
    EXPECT_EQ(magic[1], 0x8b);
}

// File > Open reads a workspace once: the kind and the workspace from the same reading, its runs'
// problems kept as load_workspace keeps them.
TEST(Workspace, OpenedAsAnyFileIsReadInTheSamePass) {
    Workspace w = two_runs_and_a_sweep();
    const fs::path dir = fresh_dir("opened");
    const std::string path = (dir / "ws.json").string();
    save_workspace(w, path);
    fs::remove(run_file(dir / "ws.runs", 1));
    const ResultsFile f = open_results_file(path);
    EXPECT_EQ(f.kind, ResultsKind::Workspace);
    ASSERT_TRUE(f.workspace);
    EXPECT_EQ(f.workspace->runs.size(), 1u);
    EXPECT_EQ(f.workspace->sweeps.size(), 1u);
    ASSERT_EQ(f.workspace->problems.size(), 1u);
    EXPECT_NE(f.workspace->problems[0].find("manual small"), std::string::npos) << f.workspace->problems[0];
}

TEST(Workspace, DamagedWorkspaceOpenedAsAnyFileNamesItOnce) {
    const fs::path dir = fresh_dir("opened_bad");
    const std::string path = (dir / "ws.json").string();
    std::ofstream(path) << R"({"schema": "attention-workbench/workspace", "schema_version": 1, "panel_spec": 3})";
    try {
        open_results_file(path);
        FAIL() << "a damaged workspace opened";
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.find(path), what.rfind(path)) << what;  // named once
        EXPECT_NE(what.find("bad spec"), std::string::npos) << what;
    }
}
