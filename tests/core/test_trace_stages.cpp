// The trace importer's stages, each on its own: input (plain and gzip), structural scan, field
// reading, conversion, rank merge and file discovery. test_trace_import.cpp and the fixtures test
// the whole importer end to end.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>

#include "io/json_scan.h"
#include "io/trace_convert.h"
#include "io/trace_fields.h"
#include "io/trace_files.h"
#include "io/trace_input.h"
#include "io/trace_ranks.h"

using namespace awb;
using namespace awb::trace_io;

namespace {

namespace fs = std::filesystem;

struct TempDir {
    fs::path path;
    TempDir()
        : path(fs::temp_directory_path() /
               ("awb-stages-" + std::to_string(::getpid()) + "-" + std::to_string(rand()))) {
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
    std::string file(const std::string& name, const std::string& text) const {
        const std::string p = (path / name).string();
        std::ofstream(p, std::ios::binary) << text;
        return p;
    }
    std::string gz(const std::string& name, const std::string& text) const {
        const std::string p = (path / name).string();
        gzFile f = gzopen(p.c_str(), "wb");
        gzwrite(f, text.data(), unsigned(text.size()));
        gzclose(f);
        return p;
    }
};

std::string read_all(TraceInput& in) {
    while (in.fill()) {}
    return std::string(in.data(), in.size());
}

// An event object read into a RawEvent, whose strings point into its parser's buffer: both kept alive.
struct Read {
    simdjson::dom::parser parser;
    RawEvent r;
};
std::unique_ptr<Read> read(const std::string& json) {
    auto out = std::make_unique<Read>();
    simdjson::dom::object object;
    EXPECT_FALSE(out->parser.parse(json).get_object().get(object)) << json;
    read_event(object, out->r);
    return out;
}

}  // namespace

TEST(TraceStages, InputReadsPlainAndGzipAlike) {
    TempDir dir;
    std::string text = "{\"traceEvents\": [";
    for (int i = 0; i < 20000; ++i)
        text += (i ? "," : "") + std::string("{\"ph\": \"X\", \"name\": \"op") + std::to_string(i) + "\"}";
    text += "]}";
    TraceInput plain(dir.file("t.json", text)), zipped(dir.gz("t.json.gz", text));
    ASSERT_TRUE(plain.ok() && zipped.ok());
    EXPECT_EQ(read_all(plain), text);
    EXPECT_EQ(read_all(zipped), text);
    EXPECT_EQ(zipped.consumed(), int64_t(text.size())) << "offsets are of the uncompressed stream";
    EXPECT_LT(zipped.file_size(), int64_t(text.size()));
    EXPECT_FALSE(TraceInput((dir.path / "none.json").string()).ok());
}

TEST(TraceStages, InputNamesADamagedGzipStream) {
    TempDir dir;
    const std::string good = dir.gz("t.json.gz", std::string(100000, 'x'));
    std::string bytes;
    {
        std::ifstream in(good, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    for (size_t i = 20; i < 40; ++i) bytes[i] = char(~bytes[i]);
    TraceInput in(dir.file("bad.json.gz", bytes));
    try {
        read_all(in);
        FAIL() << "a damaged stream was read";
    } catch (const ReadError& e) {
        EXPECT_NE(e.what.find("the gzip stream is damaged"), std::string::npos) << e.what;
        EXPECT_NE(e.what.find("byte offset"), std::string::npos) << e.what;
    }
}

TEST(TraceStages, ScanFindsTheEndOfEachValue) {
    const std::string s = R"({"a": "x\"}", "b": [1, {"c": "]"}]} , 12.5e3, "q\\", true)";
    EXPECT_EQ(scan_value(s.data(), 0, s.size()), s.find(" ,"));  // braces inside strings do not count
    const size_t num = s.find("12.5e3");
    EXPECT_EQ(scan_value(s.data(), num, s.size()), num + 6);
    const size_t str = s.find("\"q");
    EXPECT_EQ(scan_value(s.data(), str, s.size()), str + 5) << "an escaped backslash ends before the quote";
    EXPECT_EQ(scan_value(s.data(), 0, 10), kMore) << "a value past the bytes at hand";
    EXPECT_EQ(string_end("ab\\\"c\"", 0, 6), 6u);
}

namespace {

// A random JSON value whose strings hold what trips a structural scan: quotes, brackets and runs of
// backslashes (escaped), long enough to cross 64-byte blocks.
std::string random_json(std::mt19937& rng, int depth) {
    auto pick = [&rng](int n) { return int(rng() % unsigned(n)); };
    auto string = [&] {
        static const char* const pieces[] = {
            "a", "{", "}", "[", "]", "\\\"", "\\\\", "\\\\\\\"", ",", " ", "xyz0123456789", "\\n"};
        std::string s = "\"";
        for (int i = pick(40); i > 0; --i) s += pieces[pick(12)];
        return s + "\"";
    };
    const int kind = depth > 4 ? pick(3) : pick(5);
    if (kind == 0) return string();
    if (kind == 1) return std::to_string(pick(100000));
    if (kind == 2) return std::string("true");
    std::string s = kind == 3 ? "{" : "[";
    for (int i = pick(6); i > 0; --i) {
        if (s.size() > 1) s += pick(2) ? "," : ", ";
        if (kind == 3) s += string() + ":";
        s += random_json(rng, depth + 1);
    }
    return s + (kind == 3 ? "}" : "]");
}

// The end of a valid JSON object or list, one character at a time: what the block scan must agree with.
size_t reference_end(const std::string& s, size_t from) {
    int depth = 0;
    bool in_string = false, escape = false;
    for (size_t i = from; i < s.size(); ++i) {
        const char c = s[i];
        if (in_string) {
            if (escape)
                escape = false;
            else if (c == '\\')
                escape = true;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            return i + 1;
        }
    }
    return kMore;
}

}  // namespace

TEST(TraceStages, BlockScanAgreesWithACharacterByCharacterScan) {
    std::mt19937 rng(7);
    size_t checked = 0, long_ones = 0;
    for (int round = 0; round < 3000; ++round) {
        std::string value;
        while (value.empty() || (value[0] != '{' && value[0] != '[')) value = random_json(rng, 0);
        const std::string s = std::string(rng() % 70, ' ') + value + std::string(rng() % 3, ' ') + ",{\"next\": 1}";
        const size_t from = s.find_first_not_of(' ');
        const size_t want = reference_end(s, from);
        ASSERT_EQ(want, from + value.size());
        ASSERT_EQ(scan_value(s.data(), from, s.size()), want) << s;
        // Cut anywhere inside: the value runs past the bytes at hand.
        const size_t cut = from + 1 + rng() % (value.size() - 1);
        ASSERT_EQ(scan_value(s.data(), from, cut), kMore) << s.substr(0, cut);
        ++checked;
        long_ones += value.size() > 128;
    }
    EXPECT_EQ(checked, 3000u);
    EXPECT_GT(long_ones, 300u) << "values long enough to span several 64-byte blocks";
}

TEST(TraceStages, ScanFailsOnAValueCutOffByTheEnd) {
    TempDir dir;
    TraceInput in(dir.file("cut.json", "  {\"traceEvents\": [{\"ph\": \"X\""));
    ASSERT_EQ(peek(in), '{');
    EXPECT_EQ(in.pos, 2u) << "peek skips whitespace";
    try {
        value_end(in, "the top-level object");
        FAIL() << "a cut value was accepted";
    } catch (const ReadError& e) {
        EXPECT_NE(e.what.find("the file ends inside the top-level object that starts at byte offset 2 (truncated?)"),
                  std::string::npos)
            << e.what;
    }
}

TEST(TraceStages, FieldsAreReadThroughTheKeyTable) {
    const auto event =
        read(R"({"ph": "X", "cat": "kernel", "name": "gemm", "ts": 1.5, "dur": 2, "pid": 0, "tid": "stream 7",
        "unknown": {"x": 1}, "args": {"external id": 12, "correlation": 34, "grid": [8, 2, 1], "block": [128, 1, 1],
        "registers per thread": 64, "theoretical occupancy %": 50.5, "Input Dims": [[2, 3], []],
        "Input type": ["float", ""],
        "device": 0, "stream": 7}})");
    const RawEvent& r = event->r;
    EXPECT_FALSE(r.bad) << r.bad_field;
    EXPECT_EQ(r.ph, "X");
    EXPECT_EQ(r.cat, "kernel");
    EXPECT_EQ(r.ts, 1500) << "microseconds to nanoseconds, rounded";
    EXPECT_EQ(r.dur, 2000);
    EXPECT_EQ(r.tid, 7u) << "a textual tid's digits";
    EXPECT_EQ(r.tid_text, "stream 7");
    EXPECT_EQ(r.external_id, 12) << "the older spelling of External id";
    EXPECT_EQ(r.correlation, 34);
    EXPECT_TRUE(r.has_launch);
    EXPECT_EQ(r.launch.grid, (std::array<int32_t, 3>{8, 2, 1}));
    EXPECT_EQ(r.launch.registers_per_thread, 64);
    EXPECT_DOUBLE_EQ(r.launch.occupancy_pct, 50.5) << "2021 traces' theoretical occupancy";
    ASSERT_EQ(r.shapes.size(), 2u);
    EXPECT_EQ(r.shapes[0], (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(r.dtypes, (std::vector<std::string>{"float", ""}));
    EXPECT_EQ(r.stream, 7);
}

TEST(TraceStages, AFieldOfTheWrongTypeMarksTheEventBad) {
    const auto event = read(R"({"ph": "X", "name": 5, "ts": "soon"})");
    const RawEvent& r = event->r;
    EXPECT_TRUE(r.bad);
    EXPECT_EQ(r.bad_field, "\"name\" is not a string") << "the first wrong field is named";
    EXPECT_TRUE(read(R"({"ts": 3e15})")->r.bad) << "beyond 2e15 us";
    const auto memory = read(R"({"ph": "i", "name": "[memory]", "ts": 1, "args": {"Bytes": 1e300}})");
    EXPECT_FALSE(memory->r.bad);
    EXPECT_TRUE(memory->r.bad_bytes);
}

TEST(TraceStages, ConversionMakesEventsMemoryAndNames) {
    ImportedTrace out;
    TraceMeta meta;
    EventConverter c(out, meta);
    auto op = read(R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 10, "dur": 5, "pid": 1, "tid": 2})");
    auto kernel = read(R"({"ph": "X", "cat": "kernel", "name": "gemm", "ts": 11, "dur": 3, "pid": 0, "tid": 7,
        "args": {"device": 0, "stream": 7, "correlation": 9, "External id": 4, "grid": [1, 1, 1]}})");
    auto mem = read(
        R"({"ph": "i", "name": "[memory]", "ts": 12, "pid": 1, "tid": 2,
            "args": {"Bytes": 1024, "Device Type": 1, "Device Id": 0}})");
    auto name = read(R"({"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "python"}})");
    auto begin = read(R"({"ph": "B", "cat": "misc", "name": "x", "ts": 1})");
    auto bad = read(R"({"ph": "X", "ts": "x"})");
    for (Read* e : {op.get(), kernel.get(), mem.get(), name.get(), begin.get(), bad.get()}) c.convert(e->r, 100);
    c.finish(1'000'000);
    const Trace& t = out.trace;
    ASSERT_EQ(t.events().size(), 2u);
    ASSERT_EQ(t.memory().size(), 1u);
    const TraceEvent& k = t.events()[0].name == "gemm" ? t.events()[0] : t.events()[1];
    EXPECT_EQ(k.kind, EventKind::Kernel);
    EXPECT_EQ(k.device, DeviceKind::CUDA);
    EXPECT_EQ(k.thread, 7u);
    EXPECT_EQ(k.correlation_id, 9);
    EXPECT_EQ(k.linked_correlation_id, 4);
    EXPECT_EQ(k.start_ns, 1'000'000 + 11'000) << "shifted by baseTimeNanoseconds";
    EXPECT_EQ(t.memory()[0].device, DeviceKind::CUDA);
    EXPECT_EQ(t.memory()[0].bytes, 1024);
    EXPECT_EQ(t.meta().thread_names.at(2), "python");
    EXPECT_EQ(out.categories.at("misc"), 1) << "other phases are counted, not shown";
    EXPECT_EQ(out.metadata_events, 1);
    EXPECT_EQ(out.notes.skipped_events, 1);
    EXPECT_NE(out.notes.warnings.at(0).find("event at byte offset 100 skipped: \"ts\""), std::string::npos)
        << out.notes.warnings.at(0);

    ImportedTrace none;
    TraceMeta none_meta;
    EventConverter empty(none, none_meta);
    EXPECT_THROW(empty.finish(0), ReadError);
}

TEST(TraceStages, RankMergeGivesEachFileItsRank) {
    auto part = [](int rank, const char* name) {
        ImportedTrace p;
        p.rank = rank;
        TraceEvent e;
        e.name = name;
        e.start_ns = 10;
        e.end_ns = 20;
        TraceMeta meta;
        meta.ranks = {rank};
        p.trace = Trace::build({e}, {}, meta);
        p.world_size = 2;
        p.notes.warnings = {"w"};
        return p;
    };
    const ImportedTrace merged = merge_ranks({part(1, "b"), part(0, "a")}, {"r1.json", "r0.json"});
    EXPECT_EQ(merged.trace.meta().ranks, (std::vector<int32_t>{0, 1}));
    for (const auto& e : merged.trace.events()) EXPECT_EQ(e.rank, e.name == "a" ? 0 : 1);
    EXPECT_EQ(merged.world_size, 2);
    EXPECT_EQ(merged.notes.warnings, (std::vector<std::string>{"r1.json: w", "r0.json: w"}));
    // Two files claiming one rank are two runs, never renumbered.
    EXPECT_THROW(merge_rank_traces({part(0, "a"), part(0, "b")}, {"x.json", "y.json"}), MixedRunsError);
}

TEST(TraceStages, DiscoveryFindsTheTracesOfAFolder) {
    TempDir dir;
    dir.file("rank1.json", "{\"traceEvents\": []}");
    dir.gz("rank0.json.gz", "[]");
    dir.file("notes.txt", "x");
    const auto files = trace_files_of(dir.path.string());
    ASSERT_EQ(files.size(), 2u);
    EXPECT_EQ(fs::path(files[0]).filename(), "rank0.json.gz") << "sorted";
    EXPECT_EQ(trace_files_of(files[1]), std::vector<std::string>{files[1]}) << "a file opens itself";
    EXPECT_TRUE(looks_like_chrome_trace(files[0])) << "a gzipped legacy array";
    EXPECT_TRUE(looks_like_chrome_trace(files[1]));
    EXPECT_FALSE(looks_like_chrome_trace(dir.file("r.json", "{\"schema\": \"attention-workbench/sweep\"}")));
    EXPECT_FALSE(looks_like_chrome_trace((dir.path / "none.json").string()));
    TempDir empty;
    EXPECT_THROW(trace_files_of(empty.path.string()), TraceImportError);
}
