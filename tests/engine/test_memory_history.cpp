// attnwb profile --memory-snapshot: the CUDA caching allocator's history recorded over a profiled run
// (engine/memory_history). Here, without a GPU: which build has it, and the refusals before anything
// runs, each naming the option. With a GPU (CudaGpu.*, run by scripts/gpu-check.sh): the snapshot of
// the article's workload, read back by attnwb's own snapshot reader.
#include <gtest/gtest.h>

#include <torch/version.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "engine/cuda_support.h"
#include "engine/memory_history.h"
#include "engine/profiler_session.h"
#include "io/memory_snapshot_read.h"
#include "test_support.h"

using namespace awb;

namespace {

constexpr bool kTorch2 = TORCH_VERSION_MAJOR >= 2;

RunSpec cuda_spec() {
    RunSpec s = article_spec(DeviceKind::CUDA);  // fp16, (2, 8, 512, 64), train
    s.device.index = 0;
    return s;
}

// Counts the observer's steps: a refusal comes before the first.
struct StepCounter : RunObserver {
    int steps = 0;
    void on_progress(int, int, const std::string&) override { ++steps; }
};

}  // namespace

TEST(MemoryHistory, OnlyTheTorch2CudaBuildHasIt) { EXPECT_EQ(memory_history_available(), cuda::kBuilt && kTorch2); }

TEST(MemoryHistory, ACpuSpecIsRefusedNamingTheOption) {
    const auto problems = memory_history_problems(test::small_spec());
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0].field, "memory_snapshot");
    const std::string expected = memory_history_available()
                                     ? "--memory-snapshot records the CUDA caching allocator: use --device cuda"
                                     : "--memory-snapshot needs the 2.x build (LibTorch with CUDA)";
    EXPECT_NE(problems[0].message.find(expected), std::string::npos) << problems[0].message;
}

TEST(MemoryHistory, ACudaSpecIsRefusedOnlyByABuildWithoutIt) {
    const auto problems = memory_history_problems(cuda_spec());
    if (memory_history_available()) {
        EXPECT_TRUE(problems.empty()) << problems[0].message;
        return;
    }
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].message.find("needs the 2.x build"), std::string::npos) << problems[0].message;
    EXPECT_NE(problems[0].message.find(TORCH_VERSION), std::string::npos) << "says which LibTorch this is";
}

// profile_run itself refuses before its first step (the GUI or another caller gets the same answer).
TEST(MemoryHistory, ProfileRunRefusesBeforeTheFirstStep) {
    StepCounter counter;
    try {
        profile_run(test::small_spec(), ProfileOptions{}, &counter, {}, kMemoryHistoryEntries);
        FAIL() << "a CPU run recorded the CUDA allocator's history";
    } catch (const InvalidInput& e) {
        ASSERT_EQ(e.problems().size(), 1u) << e.what();
        EXPECT_EQ(e.problems()[0].field, "memory_snapshot");
    }
    EXPECT_EQ(counter.steps, 0);
}

TEST(MemoryHistory, WithoutTheRequestARunHasNoSnapshot) {
    ProfileOptions o;
    o.wait = 0;
    o.warmup = 0;
    o.active = 1;
    EXPECT_TRUE(profile_run(test::small_spec(), o).memory_snapshot.empty());
}

// LibTorch's own pickle of the allocator's state, read by attnwb's snapshot reader: without a GPU the
// allocator has no device, so the snapshot is its settings and no segments or traces.
TEST(MemoryHistory, LibTorchsPickleReadsBack) {
    if (!memory_history_available()) {
        EXPECT_THROW(memory_snapshot_pickle(), RunFailed);
        return;
    }
    if (cuda::available()) GTEST_SKIP() << "a GPU is visible: CudaGpu.MemorySnapshotOfTheArticleWorkload covers it";
    const std::string pickle = memory_snapshot_pickle();
    ASSERT_GT(pickle.size(), 2u);
    EXPECT_EQ(pickle.substr(0, 2), std::string("\x80\x02", 2)) << "pickle protocol 2";
    const auto path = std::filesystem::temp_directory_path() / "awb_test_memory_history_empty.pickle";
    std::ofstream(path, std::ios::binary) << pickle;
    const MemorySnapshot snap = read_memory_snapshot(path.string());
    std::filesystem::remove(path);
    EXPECT_EQ(snap.pickle_protocol, 2);
    EXPECT_TRUE(snap.segments.empty());
    EXPECT_FALSE(snap.allocator_settings.empty()) << "PYTORCH_CUDA_ALLOC_CONF, max_split_size, ...";
}

// ---- GPU only --------------------------------------------------------------------------------------

// The article's workload recorded: a protocol-2 pickle (LibTorch's own pickler) that attnwb's reader
// takes, whose trace holds the steps' allocations with C++ stacks, among them the manual variant's
// [2, 8, 512, 512] fp16 score-sized blocks (8 MiB each).
TEST(CudaGpu, MemorySnapshotOfTheArticleWorkload) {
    if (!cuda::available()) GTEST_SKIP() << "GPU only (no CUDA GPU visible)";
    ASSERT_TRUE(memory_history_available());
    const ProfileResult r = profile_run(cuda_spec(), ProfileOptions{}, nullptr, {}, kMemoryHistoryEntries);
    ASSERT_GT(r.memory_snapshot.size(), 2u);
    EXPECT_EQ(r.memory_snapshot.substr(0, 2), std::string("\x80\x02", 2)) << "pickle protocol 2";
    const auto path = std::filesystem::temp_directory_path() / "awb_test_memory_history.pickle";
    std::ofstream(path, std::ios::binary) << r.memory_snapshot;
    const MemorySnapshot snap = read_memory_snapshot(path.string());
    std::filesystem::remove(path);
    ASSERT_GE(snap.device_traces.size(), 1u);
    const auto& trace = snap.device_traces[0];
    const auto allocs = std::count_if(trace.begin(), trace.end(),
                                      [](const SnapshotEvent& e) { return e.action == SnapshotAction::Alloc; });
    EXPECT_GT(allocs, 5 * 10) << "five steps of forward and backward";
    EXPECT_FALSE(snap.frames.empty()) << "C++ stacks recorded";
    const auto with_stack = std::count_if(trace.begin(), trace.end(), [](const SnapshotEvent& e) {
        return e.action == SnapshotAction::Alloc && e.stack != kNoStack;
    });
    EXPECT_GT(with_stack, allocs / 2) << "context 'all': allocations come with their stacks";
    const auto scores = std::count_if(trace.begin(), trace.end(), [](const SnapshotEvent& e) {
        return e.action == SnapshotAction::Alloc && e.size == (int64_t(8) << 20);
    });
    EXPECT_GE(scores, 3) << "the manual variant's [2, 8, 512, 512] fp16 scores, 8 MiB each";
    std::printf(
        "snapshot: %zu bytes, %zu events on device 0 (%td allocations, %td with a stack), %zu frames, %td "
        "score-sized allocations\n",
        r.memory_snapshot.size(), trace.size(), allocs, with_stack, snap.frames.size(), scores);
}
