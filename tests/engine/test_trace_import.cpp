// Reading chrome traces back: our own export round-trips (events, shapes, memory, and the operator
// table computed from them), .json.gz streams the same, and bad files give one message with a byte offset.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>

#include "engine/profiler_session.h"
#include "io/trace_import.h"
#include "results/chrome_trace.h"
#include "results/run_json.h"
#include "test_support.h"

using namespace awb;

namespace {

std::string temp_path(const std::string& name) { return ::testing::TempDir() + "awb_import_" + name; }

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

void write_gz(const std::string& path, const std::string& text) {
    gzFile f = gzopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(gzwrite(f, text.data(), unsigned(text.size())), int(text.size()));
    gzclose(f);
}

using test::import_error;

}  // namespace

TEST(TraceImport, OwnExportRoundTrips) {
    const ProfileResult r = profile_run(test::small_spec(), ProfileOptions{});
    ChromeTraceInfo info;
    info.trace_name = "round trip";
    info.metadata = nlohmann::json{{"attention_workbench", {{"spec", r.spec}}}};
    const std::string text = chrome_trace_text(r.trace, info);
    const std::string path = temp_path("rt.json");
    write_file(path, text);
    ASSERT_TRUE(looks_like_chrome_trace(path));
    const ImportedTrace back = import_chrome_trace(path);
    EXPECT_EQ(back.trace_name, "round trip");
    EXPECT_EQ(back.extra.at("spec").get<RunSpec>(), r.spec);
    ASSERT_EQ(back.trace.events().size(), r.trace.events().size());
    for (size_t i = 0; i < r.trace.events().size(); ++i) {
        const auto& a = r.trace.events()[i];
        const auto& b = back.trace.events()[i];
        ASSERT_EQ(a.name, b.name) << i;
        EXPECT_EQ(a.start_ns, b.start_ns) << a.name;
        EXPECT_EQ(a.end_ns, b.end_ns) << a.name;
        EXPECT_EQ(a.thread, b.thread);
        EXPECT_EQ(a.shapes(), b.shapes()) << a.name;
        EXPECT_EQ(a.dtypes(), b.dtypes()) << a.name;
        EXPECT_EQ(a.depth, b.depth) << a.name;
        EXPECT_EQ(a.kind, b.kind) << a.name;
    }
    ASSERT_EQ(back.trace.memory().size(), r.trace.memory().size());
    for (size_t i = 0; i < r.trace.memory().size(); ++i)
        EXPECT_EQ(back.trace.memory()[i].bytes, r.trace.memory()[i].bytes);
    // The operator table from the file equals the one from the run.
    EXPECT_EQ(key_averages(back.trace), key_averages(r.trace));
    EXPECT_EQ(key_averages(back.trace, {true}), key_averages(r.trace, {true}));

    const std::string gz = temp_path("rt.json.gz");
    write_gz(gz, text);
    const ImportedTrace from_gz = import_chrome_trace(gz);
    EXPECT_EQ(key_averages(from_gz.trace), key_averages(r.trace));
    EXPECT_EQ(from_gz.bytes_read, int64_t(text.size()));
}

TEST(TraceImport, LegacyArrayAndStringIds) {
    const std::string path = temp_path("legacy.json");
    write_file(path,
               R"([{"ph": "X", "name": "aten::mm", "cat": "Operator", "ts": 10.5, "dur": 2, "pid": "1", "tid": "7"},
                         {"ph": "X", "name": "aten::add", "ts": 20, "dur": 1, "pid": 1, "tid": 7,
                          "args": {"Input dims": [[2, 3]]}},
                         {"ph": "M", "name": "thread_name", "pid": 1, "tid": 7, "args": {"name": "main"}}])");
    const ImportedTrace t = import_chrome_trace(path);
    ASSERT_EQ(t.trace.events().size(), 2u);
    EXPECT_EQ(t.trace.events()[0].start_ns, 10500);
    EXPECT_EQ(t.trace.events()[0].end_ns, 12500);
    EXPECT_EQ(t.trace.events()[0].thread, 7u);
    EXPECT_EQ(t.trace.events()[1].shapes(), (std::vector<std::vector<int64_t>>{{2, 3}}));
}

TEST(TraceImport, BadFilesGiveOneMessage) {
    const ProfileResult r = profile_run(test::small_spec(), ProfileOptions{});
    const std::string full = chrome_trace_text(r.trace, {});
    const std::string truncated = temp_path("truncated.json");
    // Cut inside an event (in its "name" key) near the middle: halving the file could land between two
    // events, depending on the profiled run's lengths, which gives another (also correct) message.
    const size_t cut = full.find("\"name\"", full.size() / 2);
    ASSERT_NE(cut, std::string::npos);
    write_file(truncated, full.substr(0, cut + 3));
    const std::string msg = import_error(truncated);
    EXPECT_NE(msg.find("the file ends inside an event that starts at byte offset"), std::string::npos) << msg;

    const std::string empty = temp_path("empty.json");
    write_file(empty, "");
    EXPECT_NE(import_error(empty).find("the file is empty"), std::string::npos) << import_error(empty);

    const std::string binary = temp_path("binary.json");
    write_file(binary, std::string("\x00\xff\x13\x37garbage", 11));
    EXPECT_NE(import_error(binary).find("byte offset"), std::string::npos) << import_error(binary);

    const std::string no_events = temp_path("noevents.json");
    write_file(no_events, R"({"schemaVersion": 1, "traceEvents": []})");
    EXPECT_NE(import_error(no_events).find("holds no trace events"), std::string::npos);

    const std::string corrupt_gz = temp_path("corrupt.json.gz");
    write_gz(corrupt_gz, full);
    {
        std::fstream f(corrupt_gz, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(40);
        f.write("XXXXXXXXXXXXXXXX", 16);
    }
    const std::string gz_msg = import_error(corrupt_gz);
    EXPECT_NE(gz_msg, "no error");
    EXPECT_NE(import_error(temp_path("missing.json")).find("cannot open"), std::string::npos);
    EXPECT_FALSE(looks_like_chrome_trace(empty));
}
