#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "io/json_write.h"
#include "results/measurement_json.h"
#include "results/results_file.h"
#include "results/results_formats.h"
#include "results/run_json.h"
#include "results/workspace.h"
#include "test_support.h"

using namespace awb;
using nlohmann::json;

TEST(RunJson, SpecRoundTrip) {
    RunSpec s;
    s.variant = "sdpa";
    s.kv_heads = 2;
    s.mask = MaskKind::Padding;
    s.key_lengths = {512, 100};
    s.layout = Layout::BNHD;
    s.dtype = Dtype::BFloat16;
    s.device = *parse_device("cuda:1");
    s.sdpa_backend = SdpaBackend::Flash;
    const json j = s;
    EXPECT_EQ(j["device"], "cuda:1");
    EXPECT_EQ(j.get<RunSpec>(), s);
    EXPECT_FALSE(j.contains("window"));  // files of other masks stay as they were
    s.mask = MaskKind::Window;
    s.key_lengths.clear();
    s.window = 4096;
    EXPECT_EQ(json(s)["window"], 4096);
    EXPECT_EQ(json(s).get<RunSpec>(), s);
}

TEST(RunJson, BadSpecFieldsAreAllNamed) {
    const json j = {{"batch", "two"}, {"dtype", "int3"}, {"mask", 5}, {"key_lengths", {1, "x"}}};
    try {
        (void)j.get<RunSpec>();
        FAIL();
    } catch (const InvalidInput& e) {
        std::vector<std::string> fields;
        for (const auto& p : e.problems()) fields.push_back(p.field);
        EXPECT_EQ(fields, (std::vector<std::string>{"batch", "dtype", "mask", "key_lengths"}));
    }
}

TEST(RunJson, ReportRoundTripAndSchemaCheck) {
    ProfileReport r;
    r.spec.seq_q = 128;
    r.options.active = 4;
    r.environment.torch_version = "1.13.0";
    r.environment.threads = 2;
    OperatorRow row;
    row.name = "aten::bmm";
    row.calls = 18;
    row.self_cpu_ns = 87'070'000;
    row.cpu_total_ns = 87'637'000;
    row.cpu_memory_bytes = 125829120;
    row.self_cpu_memory_bytes = 125829120;
    r.operators = {row};
    r.peak_memory_bytes = 52428800;
    MemorySeries m;
    m.points = {{1000, 10}, {2000, 30}};
    m.peak_bytes = 30;
    m.peak_ts_ns = 2000;
    r.memory_series = {m};
    r.steps = {{2, ScheduleAction::Record, 69'000'000}};

    const json j = to_json(r);
    EXPECT_EQ(j["schema"], kProfileReportSchema);
    EXPECT_EQ(j["operators"][0]["self_cpu_us"].get<double>(), 87070.0);
    const ProfileReport back = report_from_json(json::parse(j.dump()));
    EXPECT_EQ(back.spec, r.spec);
    EXPECT_EQ(back.options, r.options);
    EXPECT_EQ(back.environment, r.environment);
    EXPECT_EQ(back.operators, r.operators);
    EXPECT_EQ(back.memory_series[0].points, m.points);
    EXPECT_EQ(back.steps[0].action, ScheduleAction::Record);
    EXPECT_EQ(back.steps[0].wall_ns, 69'000'000);
    EXPECT_FALSE(back.device_columns);
    r.device_columns = true;  // the analysis's decision travels with the report
    EXPECT_TRUE(report_from_json(json::parse(to_json(r).dump())).device_columns);
    // A report written before it did: a CPU run without device time has none, one with device time has them.
    json old = to_json(r);
    old.erase("device_columns");
    EXPECT_FALSE(report_from_json(old).device_columns);
    old["operators"][0]["self_device_us"] = 5.0;
    EXPECT_TRUE(report_from_json(old).device_columns);

    json wrong = j;
    wrong["schema"] = "something-else";
    EXPECT_THROW(report_from_json(wrong), std::runtime_error);
    json newer = j;
    newer["schema_version"] = 99;
    EXPECT_THROW(report_from_json(newer), std::runtime_error);
    json broken = j;
    broken["operators"] = 5;
    EXPECT_THROW(report_from_json(broken), std::runtime_error);
}

// A file that is not JSON is named and said in words, never as nlohmann's exception text.
TEST(RunJson, UnreadableFilesAreSaidInWords) {
    const auto dir = std::filesystem::temp_directory_path() / "awb_json_words";
    std::filesystem::create_directories(dir);
    auto error_of = [&](const std::string& name, const std::string& bytes) {
        const std::string path = (dir / name).string();
        std::ofstream(path, std::ios::binary) << bytes;
        try {
            read_json_file(path);
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error_of("empty.json", ""), "'" + (dir / "empty.json").string() + "' cannot be read: it is empty");
    EXPECT_NE(error_of("image.json", "\x89PNG\r\n\x1a\n....").find("it is a PNG image"), std::string::npos);
    EXPECT_NE(error_of("z.json", std::string("\x1f\x8b\x08\x00", 4)).find("gzip-compressed"), std::string::npos);
    const std::string cut = error_of("cut.json", "{\"a\": [1, 2");
    EXPECT_NE(cut.find("not valid JSON at line 1, column 12: the file ends too early (truncated?)"), std::string::npos)
        << cut;
    const std::string bad = error_of("bad.json", "{\"a\": x}");
    EXPECT_NE(bad.find("not valid JSON at line 1, column 7"), std::string::npos) << bad;
    for (const auto& e : {cut, bad}) EXPECT_EQ(e.find("json.exception"), std::string::npos) << e;
    EXPECT_NE(error_of("../absent-dir/none.json", "").find("cannot open"), std::string::npos);
    std::filesystem::remove_all(dir);
}

// The table of formats: others' told from their first bytes (a trace file, a folder of ranks, a gzipped
// snapshot), ours from the schema each writer puts first, every kind by at least one format, and a
// file opened names the row it was told by.
TEST(ResultsFiles, EachFormatIsToldByItsTable) {
    const std::string fixtures = std::string(AWB_FIXTURE_DIR) + "/";
    EXPECT_EQ(recognised_kind(fixtures + "traces/kineto_gpu_2x.json.gz"), ResultsKind::Trace);
    EXPECT_EQ(recognised_kind(fixtures + "traces/legacy_array.json"), ResultsKind::Trace);
    EXPECT_EQ(recognised_kind(fixtures + "traces/multi_rank"), ResultsKind::Trace);
    EXPECT_EQ(recognised_kind(fixtures + "memory_snapshots/manual.p4.pickle"), ResultsKind::MemorySnapshot);
    EXPECT_EQ(recognised_kind(fixtures + "memory_snapshots/transformer_sdpa.pickle.gz"), ResultsKind::MemorySnapshot);
    ASSERT_TRUE(std::filesystem::is_regular_file(fixtures + "../fuzz/seeds-results/sweep/sweep.json"));
    EXPECT_EQ(recognised_kind(fixtures + "../fuzz/seeds-results/sweep/sweep.json"),
              std::nullopt);  // ours: by its schema
    EXPECT_EQ(recognised_kind(fixtures + "absent.json"), std::nullopt);
    EXPECT_EQ(kind_of_schema(to_json(ProfileReport{}).at("schema").get<std::string>()), ResultsKind::ProfileReport);
    EXPECT_EQ(kind_of_schema(kWorkspaceSchema), ResultsKind::Workspace);
    EXPECT_EQ(kind_of_schema("attention-workbench/rank-summary"), std::nullopt);
    ASSERT_NE(recognised_format(fixtures + "traces/multi_rank"), nullptr);
    EXPECT_STREQ(recognised_format(fixtures + "traces/multi_rank")->name, "chrome trace");
    EXPECT_EQ(schema_format(kSweepSchema),
              &*std::find_if(results_formats().begin(), results_formats().end(),
                             [](const ResultsFormat& f) { return f.kind == ResultsKind::Sweep; }));
    std::vector<ResultsKind> kinds;
    std::vector<std::string> names;
    for (const ResultsFormat& f : results_formats()) {
        EXPECT_NE((f.schema != nullptr), (f.recognises != nullptr))
            << f.name << ": told one way, by its schema or its bytes";
        kinds.push_back(f.kind);
        names.push_back(f.name);
    }
    std::sort(kinds.begin(), kinds.end());
    kinds.erase(std::unique(kinds.begin(), kinds.end()), kinds.end());
    EXPECT_EQ(kinds.size(), size_t(ResultsKind::MemorySnapshot) + 1);  // every kind has a reader
    std::sort(names.begin(), names.end());
    EXPECT_EQ(std::unique(names.begin(), names.end()), names.end());  // each format's name is its own
    const ResultsFile snapshot = open_results_file(fixtures + "memory_snapshots/manual.p4.pickle");
    EXPECT_EQ(snapshot.format, "memory snapshot");
    EXPECT_EQ(to_string(snapshot.kind), "memory snapshot");
}

// Real files of each kind, written by attnwb (the fuzzers' seeds, tests/fuzz/seeds-results): the readers
// take them whole, with their timestamps since the epoch; a damaged copy of one names its file and field.
TEST(ResultsFiles, RealFilesOfEveryKindOpen) {
    const std::string seeds = std::string(AWB_FIXTURE_DIR) + "/../fuzz/seeds-results/";
    for (const char* kind : {"report", "bench", "sweep", "check"}) {
        const std::string path = seeds + kind + "/" + kind + ".json";
        try {
            const ResultsFile f = open_results_file(path);
            EXPECT_EQ(f.format, std::string(kind) == "report"  ? "profile report"
                                : std::string(kind) == "bench" ? "benchmark"
                                : std::string(kind) == "check" ? "correctness check"
                                                               : "sweep");
        } catch (const std::exception& e) {
            ADD_FAILURE() << path << ": " << e.what();
        }
    }
    // Damaged copies (the fuzzers' seeds too): each gives one message naming the file and the field.
    std::vector<std::pair<std::string, std::string>> damaged = {
        {"bench/bench_version9.json", "bench file schema_version 9 is not supported"},
        {"bench/bench_missing.json", "bench file is malformed: field result.timing.repeats is missing"},
        {"bench/bench_string_number.json", "field result.timing.repeats: type must be number, but is string"},
        {"bench/bench_huge.json", "field result.timing.repeats: 1e+300 is not an integer of this field's range"},
        {"bench/bench_deep.json", "field result.timing.repeats: type must be number, but is array"},
        {"sweep/sweep_int64_min.json", "field points[0].bench.timing.repeats: -9223372036854775808 is not an integer"},
        {"report/report_int64_min.json",
         "field operators[0].calls: -9223372036854775808 is out of range (at most 2^50)"},
        {"check/check_missing.json", "field variants[0].tensors[0].max_abs_error is missing"},
    };
    damaged.push_back(
        {"check/finding_number_overflow.json", "cannot be read: it is not valid JSON: number overflow parsing"});
    for (const auto& [file, words] : damaged) {
        const std::string path = seeds + file;
        try {
            open_results_file(path);
            ADD_FAILURE() << "no error for " << path;
        } catch (const std::runtime_error& e) {
            EXPECT_EQ(std::string(e.what()).rfind("'" + path + "'", 0), 0u) << e.what();  // names the file first
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    }
}

// A pipe (`attnwb report <(zcat x.json.gz)`, a FIFO) gives its bytes once: it is read from a copy, so a
// file of any kind opens from one, and a message about it names the pipe, not the copy.
TEST(ResultsFiles, PipesOpenLikeFiles) {
    const std::string dir = test::fresh_dir("pipes").string();
    const std::string fifo = dir + "/fifo";
    const std::string seeds = std::string(AWB_FIXTURE_DIR) + "/../fuzz/seeds-results/";
    auto through_fifo = [&](const std::string& source) {
        std::filesystem::remove(fifo);
        EXPECT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
        std::thread feeder([&] {
            std::ifstream in(source, std::ios::binary);
            std::ofstream out(fifo, std::ios::binary);
            out << in.rdbuf();
        });
        std::optional<ResultsFile> f;
        std::string error;
        try {
            f = open_results_file(fifo);
        } catch (const std::runtime_error& e) {
            error = e.what();
        }
        feeder.join();
        return std::make_pair(std::move(f), error);
    };
    auto [bench, e1] = through_fifo(seeds + "bench/bench.json");
    ASSERT_TRUE(bench) << e1;
    EXPECT_EQ(bench->kind, ResultsKind::Bench);
    EXPECT_EQ(bench->path, fifo);
    auto [trace, e2] = through_fifo(std::string(AWB_FIXTURE_DIR) + "/traces/kineto_gpu_2x.json.gz");
    ASSERT_TRUE(trace) << e2;
    ASSERT_TRUE(trace->run);
    EXPECT_GT(trace->run->trace.events().size(), 0u);
    auto [bad, e3] = through_fifo(seeds + "bench/bench_missing.json");
    EXPECT_FALSE(bad);
    EXPECT_EQ(e3.rfind("'" + fifo + "'", 0), 0u) << e3;
    EXPECT_EQ(e3.find("attnwb-pipe-"), std::string::npos) << e3;
    EXPECT_NE(e3.find("field result.timing.repeats is missing"), std::string::npos) << e3;
    // No temporary folder for the copy: one message naming the pipe.
    const char* tmpdir = std::getenv("TMPDIR");
    const std::string saved = tmpdir ? tmpdir : "";
    ::setenv("TMPDIR", (dir + "/absent").c_str(), 1);
    auto* const pipe_action = std::signal(SIGPIPE, SIG_IGN);  // the reader gives up: the feeder's write fails
    auto [none, e4] = through_fifo(seeds + "bench/bench.json");
    std::signal(SIGPIPE, pipe_action);
    tmpdir ? ::setenv("TMPDIR", saved.c_str(), 1) : ::unsetenv("TMPDIR");
    EXPECT_FALSE(none);
    EXPECT_EQ(e4.rfind("cannot read '" + fifo + "': no temporary folder for its copy", 0), 0u) << e4;
    std::filesystem::remove_all(dir);
}

namespace awb {
namespace {

// Our files say what they are on their second line (the desktop's MIME magic reads it there), and read
// back as they were written.
TEST(RunJson, OurFilesPutTheirSchemaFirst) {
    nlohmann::json j = to_json(ProfileReport{});
    j["zz_last"] = {{"a", 1}};
    const std::string text = our_file_text(j);
    EXPECT_EQ(text.rfind("{\n \"schema\": \"attention-workbench/profile-report\",\n \"schema_version\": 1,\n", 0), 0u)
        << text.substr(0, 120);
    EXPECT_EQ(nlohmann::json::parse(text), j);
    EXPECT_EQ(text.back(), '\n');
    // Only a schema; none at all (written as nlohmann writes it).
    EXPECT_EQ(nlohmann::json::parse(our_file_text({{"schema", "x"}})), nlohmann::json({{"schema", "x"}}));
    const nlohmann::json plain = {{"b", 2}, {"a", 1}};
    EXPECT_EQ(our_file_text(plain), plain.dump(1) + "\n");
    // A workspace as saved.
    const std::filesystem::path dir = test::fresh_dir("schema_first");
    save_workspace(Workspace{}, (dir / "ws.json").string());
    std::ifstream in(dir / "ws.json");
    std::string first, second;
    std::getline(in, first);
    std::getline(in, second);
    EXPECT_EQ(second, " \"schema\": \"attention-workbench/workspace\",");
}

}  // namespace
}  // namespace awb
