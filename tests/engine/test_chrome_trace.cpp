// A profiled run exported as a chrome trace parses back with the events it was made of.
#include <gtest/gtest.h>

#include <algorithm>

#include <cstdio>
#include <fstream>
#include <map>

#include "engine/profiler_session.h"
#include "results/chrome_trace.h"
#include "test_support.h"

using namespace awb;
using nlohmann::json;

TEST(ChromeTrace, ExportedRunParsesBackWithItsEvents) {
    const ProfileResult r = profile_run(test::small_spec(), ProfileOptions{});
    ChromeTraceInfo info;
    info.trace_name = "test";
    info.pid = 4242;
    info.metadata = json{{"attention_workbench", {{"note", "x"}}}};
    const std::string path = ::testing::TempDir() + "/awb_trace_test.json";
    write_chrome_trace(r.trace, info, path);

    std::ifstream in(path);
    const json j = json::parse(in);
    EXPECT_EQ(j["schemaVersion"], 1);
    EXPECT_EQ(j["traceName"], "test");
    EXPECT_EQ(j["attention_workbench"]["note"], "x");
    EXPECT_EQ(j["baseTimeNanoseconds"], r.trace.meta().origin_ns);

    size_t complete = 0, memory = 0, with_totals = 0;
    int64_t bytes = 0;
    std::map<std::string, int> names;
    bool bmm_dims = false, thread_named = false;
    for (const auto& e : j["traceEvents"]) {
        const std::string ph = e["ph"];
        if (ph == "X") {
            ++complete;
            ++names[e["name"].get<std::string>()];
            EXPECT_EQ(e["pid"], 4242);
            EXPECT_GE(e["dur"].get<double>(), 0.0);
            if (e["name"] == "aten::bmm" && e["args"]["Input Dims"] == json::parse("[[2, 64, 16], [2, 16, 64]]")) {
                bmm_dims = true;
                EXPECT_EQ(e["args"]["Input type"][0], "float");
                EXPECT_EQ(e["cat"], "cpu_op");
            }
        } else if (ph == "i") {
            EXPECT_EQ(e["name"], "[memory]");
            ++memory;
            bytes += e["args"]["Bytes"].get<int64_t>();
            with_totals += e["args"].contains("Total Allocated") ? 1 : 0;
        } else if (ph == "M" && e["name"] == "thread_name") {
            thread_named = true;
        }
    }
    EXPECT_EQ(complete, r.trace.events().size());
    EXPECT_EQ(memory, r.trace.memory().size());
    // The allocator's totals only where the run had them: a running sum would read back as absolute memory.
    EXPECT_EQ(with_totals, size_t(std::count_if(r.trace.memory().begin(), r.trace.memory().end(),
                                                [](const MemoryEvent& m) { return m.total_allocated >= 0; })));
    int64_t expected_bytes = 0;
    for (const auto& m : r.trace.memory()) expected_bytes += m.bytes;
    EXPECT_EQ(bytes, expected_bytes);
    EXPECT_EQ(names["ProfilerStep#2"], 1);
    EXPECT_EQ(names["manual"], 3);
    EXPECT_TRUE(bmm_dims);
    EXPECT_TRUE(thread_named);
    std::remove(path.c_str());
}

TEST(ChromeTrace, UnwritablePathIsAClearError) {
    const Trace t = Trace::build({}, {}, {});
    try {
        write_chrome_trace(t, {}, "/nonexistent-dir/x.json");
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.json"), std::string::npos);
    }
}
