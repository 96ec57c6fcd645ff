// The pieces that make the importer fast and small, each checked on its own and through
// the importer: the two-thread hand-off, interned event names, grouping by thread, the run-merging
// sort of Trace::build, and a trace of many batches whose warnings, errors and cancel must come out
// exactly as from one reader.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "model/handoff.h"
#include "io/trace_import.h"
#include "model/event_name.h"
#include "model/stable_group.h"
#include "model/trace.h"

using namespace awb;

namespace {

namespace fs = std::filesystem;

std::string temp_file(const std::string& name, const std::string& text) {
    const fs::path p = fs::temp_directory_path() / ("awb-pipeline-" + std::to_string(::getpid()) + "-" + name);
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
}

// A Kineto-like trace of n CPU ops on two threads (each thread's ops in time order, the threads one
// after the other: two sorted runs), `extra` spliced in as more events after op number `at`.
std::string ops_trace(int n, int at = -1, const std::string& extra = {}) {
    std::string s = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
    for (int i = 0; i < n; ++i) {
        const int thread = i < n / 2 ? 1 : 2;
        const int k = thread == 1 ? i : i - n / 2;
        s += "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op_" + std::to_string(i % 7) +
             "\", \"pid\": 1, \"tid\": " + std::to_string(thread) + ", \"ts\": " + std::to_string(10 * k) +
             ", \"dur\": 5, \"args\": {\"External id\": " + std::to_string(i + 1) +
             ", \"Input Dims\": [[2, 8, 512, 64]]}},\n";
        if (i == at) s += extra;
    }
    s += "  {\"ph\": \"i\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": 3, \"args\": {\"Bytes\": 64}}\n";
    return s + "], \"baseTimeNanoseconds\": 0}\n";
}

struct CancelAfter : RunObserver {
    explicit CancelAfter(int polls) : left(polls) {}
    mutable std::atomic<int> left;
    bool cancel_requested() const override { return --left < 0; }
};

}  // namespace

TEST(Handoff, ItemsArriveInOrderAndTheProducersErrorAfterThem) {
    Handoff<int> h(2);
    std::thread producer([&h] {
        for (int i = 0; i < 100; ++i) ASSERT_TRUE(h.push(i));
        h.close(std::make_exception_ptr(std::runtime_error("bad byte at 1234")));
    });
    std::vector<int> got;
    try {
        while (auto item = h.pop()) got.push_back(*item);
        ADD_FAILURE() << "the producer's error was not rethrown";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "bad byte at 1234");
    }
    producer.join();
    ASSERT_EQ(got.size(), 100u);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(got[size_t(i)], i);
}

TEST(Handoff, AStoppedConsumerReleasesAWaitingProducer) {
    Handoff<int> h(1);
    std::atomic<bool> refused{false};
    std::thread producer([&] {
        for (int i = 0; i < 1000 && !refused; ++i) refused = !h.push(i);
        h.close();
    });
    EXPECT_EQ(*h.pop(), 0);
    h.stop();  // the producer is blocked on a full hand-off, or will be: it must return
    producer.join();
    EXPECT_TRUE(refused);
    EXPECT_TRUE(h.stopped());
}

TEST(Handoff, GivenBackItemsAreReused) {
    Handoff<std::string> h(2);
    std::string big(1 << 16, 'x');
    h.give_back(std::move(big));
    const std::string again = h.reuse();
    EXPECT_GE(again.capacity(), size_t(1) << 16);
    EXPECT_TRUE(h.reuse().empty());  // none left: a new one
}

TEST(EventName, EqualNamesAreOneCopy) {
    const std::string long_name =
        "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<...>>(int, ...)";
    const EventName a = long_name, b = std::string_view(long_name), c("aten::mm");
    EXPECT_EQ(a.data(), b.data());  // interned: the same characters
    EXPECT_TRUE(a == b);
    EXPECT_FALSE(a == c);
    EXPECT_TRUE(c == "aten::mm");
    EXPECT_TRUE(c == std::string("aten::mm"));
    EXPECT_EQ(c.str(), "aten::mm");
    EXPECT_TRUE(c < EventName("aten::mv"));
    EXPECT_EQ(std::string("x ") + c, "x aten::mm");
    EXPECT_TRUE(EventName().empty());
    EXPECT_EQ(EventName(""), EventName());
    EXPECT_EQ(c.find("::"), 4u);
    EXPECT_TRUE(c.starts_with("aten::"));
}

TEST(EventName, ThreadsInterningTheSameNamesGetTheSamePointers) {
    constexpr int kNames = 500;
    std::vector<std::vector<const char*>> seen(4, std::vector<const char*>(kNames));
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([t, &seen] {
            for (int i = 0; i < kNames; ++i)
                seen[size_t(t)][size_t(i)] = EventName("pipeline_test_kernel_" + std::to_string(i)).data();
        });
    for (auto& th : threads) th.join();
    for (int t = 1; t < 4; ++t) EXPECT_EQ(seen[size_t(t)], seen[0]);
    EXPECT_EQ(std::set<const char*>(seen[0].begin(), seen[0].end()).size(), size_t(kNames));
}

TEST(StableGroup, IsStableSortByKeyOfTheSelectedIndices) {
    std::mt19937 rng(7);
    std::vector<int> keys(5000);
    for (int& k : keys) k = int(rng() % 9) - 1;  // -1: left out
    const std::vector<int32_t> got = stable_group<int>(
        keys.size(), [&keys](size_t i) { return keys[i] >= 0 ? std::optional(keys[i]) : std::nullopt; });
    std::vector<int32_t> want;
    for (int32_t i = 0; i < int32_t(keys.size()); ++i)
        if (keys[size_t(i)] >= 0) want.push_back(i);
    std::stable_sort(want.begin(), want.end(),
                     [&keys](int32_t a, int32_t b) { return keys[size_t(a)] < keys[size_t(b)]; });
    EXPECT_EQ(got, want);
}

// Trace::build sorts by (start, -end) keeping the reported order of equal intervals: merging a few
// sorted runs and sorting many short ones must both give std::stable_sort's order.
TEST(TraceBuild, SortIsStableWhetherTheEventsComeInFewRunsOrMany) {
    for (const int runs : {1, 3, 40, 5000}) {
        std::mt19937 rng{uint32_t(runs)};
        std::vector<TraceEvent> events;
        for (int r = 0; r < runs; ++r) {
            int64_t t = int64_t(rng() % 50);
            const int n = 20000 / runs;
            for (int i = 0; i < n; ++i) {
                TraceEvent e;
                e.name = "e" + std::to_string(events.size());  // the reported position
                e.start_ns = t;
                e.end_ns = t + int64_t(rng() % 4);
                e.thread = uint64_t(r + 1);
                events.push_back(e);
                t += int64_t(rng() % 3);  // equal starts on purpose
            }
        }
        std::vector<TraceEvent> want = events;
        std::stable_sort(want.begin(), want.end(), [](const TraceEvent& a, const TraceEvent& b) {
            return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
        });
        const Trace trace = Trace::build(std::move(events), {}, {});
        ASSERT_EQ(trace.events().size(), want.size());
        for (size_t i = 0; i < want.size(); ++i)
            ASSERT_EQ(trace.events()[i].name, want[i].name) << runs << " runs, position " << i;
    }
}

// 30,000 events (about 5 MB): some ten batches. What the one-thread reader gave must not change:
// every event, a skipped one's warning with its own offset, an error naming the broken event.
TEST(ImportPipeline, ManyBatchesGiveEveryEventAndWarnAtTheRightOffsets) {
    const std::string bad =
        "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": 5, \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1},\n  17,\n";
    const std::string text = ops_trace(30000, 25000, bad);
    ASSERT_GT(text.size(), size_t(4) << 20);
    const std::string path = temp_file("many.json", text);
    const ImportedTrace t = import_chrome_trace(path);
    EXPECT_EQ(t.trace.events().size(), 30000u);
    EXPECT_EQ(t.trace.memory().size(), 1u);
    EXPECT_EQ(t.notes.skipped_events, 2);
    ASSERT_EQ(t.notes.warnings.size(), 2u);
    const size_t bad_at = text.find(bad) + 2, number_at = text.find("  17,\n", bad_at) + 2;
    EXPECT_NE(t.notes.warnings[0].find("byte offset " + std::to_string(bad_at) + " "), std::string::npos)
        << t.notes.warnings[0];
    EXPECT_NE(t.notes.warnings[0].find("\"name\""), std::string::npos) << t.notes.warnings[0];
    EXPECT_NE(t.notes.warnings[1].find("byte offset " + std::to_string(number_at) + " "), std::string::npos)
        << t.notes.warnings[1];
    EXPECT_NE(t.notes.warnings[1].find("not an object"), std::string::npos) << t.notes.warnings[1];
    EXPECT_EQ(t.bytes_read, int64_t(text.size()));
    // The two threads' runs come out merged, nested and with their names interned.
    int64_t last = INT64_MIN;
    for (const TraceEvent& e : t.trace.events()) {
        EXPECT_LE(last, e.start_ns);
        last = e.start_ns;
    }
    EXPECT_EQ(t.trace.events().front().name.data(), EventName("aten::op_0").data());
    fs::remove(path);
}

TEST(ImportPipeline, ABrokenEventInALateBatchIsNamedByItsOffset) {
    const std::string broken = "  {\"ph\": \"X\", \"name\": \"oops\" \"ts\": 1},\n";
    const std::string text = ops_trace(30000, 28000, broken);
    const std::string path = temp_file("broken.json", text);
    try {
        import_chrome_trace(path);
        ADD_FAILURE() << "a broken event was accepted";
    } catch (const TraceImportError& e) {
        EXPECT_NE(std::string(e.what()).find("byte offset " + std::to_string(text.find(broken) + 2)), std::string::npos)
            << e.what();
    }
    fs::remove(path);
}

TEST(ImportPipeline, ATruncatedFileFailsAfterTheBatchesBeforeIt) {
    std::string text = ops_trace(30000);
    text.resize(text.size() * 3 / 4);
    const std::string path = temp_file("cut.json", text);
    try {
        import_chrome_trace(path);
        ADD_FAILURE() << "a truncated file was accepted";
    } catch (const TraceImportError& e) {
        EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    }
    fs::remove(path);
}

TEST(ImportPipeline, CancelStopsBothThreads) {
    const std::string path = temp_file("cancel.json", ops_trace(30000));
    CancelAfter observer(2);
    EXPECT_THROW(import_chrome_trace(path, &observer), Cancelled);
    // The reader thread was stopped and joined: the same file opens again at once, whole.
    EXPECT_EQ(import_chrome_trace(path).trace.events().size(), 30000u);
    fs::remove(path);
}
