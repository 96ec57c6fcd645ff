#include "engine/memory_history.h"

#include <torch/version.h>

#include <cstdlib>
#include <optional>

#include "model/run_observer.h"

#if defined(AWB_WITH_CUDA) && TORCH_VERSION_MAJOR >= 2
#define AWB_MEMORY_HISTORY 1
#include <torch/csrc/cuda/memory_snapshot.h>
#else
#define AWB_MEMORY_HISTORY 0
#endif

namespace awb {

bool memory_history_available() { return AWB_MEMORY_HISTORY; }

std::vector<SpecProblem> memory_history_problems(const RunSpec& spec) {
    if (!memory_history_available()) {
#ifdef AWB_WITH_CUDA
        const std::string build = "LibTorch " TORCH_VERSION " with CUDA";
#else
        const std::string build = "LibTorch " TORCH_VERSION " without CUDA";
#endif
        return {{"memory_snapshot", "--memory-snapshot needs the 2.x build (LibTorch with CUDA); this engine has " +
                                        build + " (scripts/build.sh --torch2)"}};
    }
    if (spec.device.kind != DeviceKind::CUDA)
        return {{"memory_snapshot",
                 "--memory-snapshot records the CUDA caching allocator: use --device cuda (the spec "
                 "runs on " +
                     to_string(spec.device) + ")"}};
    return {};
}

#if AWB_MEMORY_HISTORY

MemoryHistoryRecording::MemoryHistoryRecording(std::size_t max_entries) {
    // LibTorch 2.11 symbolizes with addr2line unless told otherwise: minutes on libtorch_cuda with some
    // binutils. The user's choice, when made, stands (setenv does not overwrite it).
    ::setenv("TORCH_SYMBOLIZE_MODE", "fast", 0);
    // enabled "all" (every event, not only the state), context "all" (stacks of allocations and frees),
    // stacks "all" (C++ frames: there is no Python here), a fresh history.
    torch::cuda::_record_memory_history("all", "all", "all", max_entries, /*clearHistory=*/true);
}

MemoryHistoryRecording::~MemoryHistoryRecording() {
    try {
        torch::cuda::_record_memory_history(std::nullopt);  // _record_memory_history(enabled=None)
    } catch (...) {}
}

std::string MemoryHistoryRecording::snapshot_pickle() const { return memory_snapshot_pickle(); }

std::string memory_snapshot_pickle() { return torch::cuda::_memory_snapshot_pickled(); }

#else

namespace {
[[noreturn]] void not_in_this_build() {
    throw RunFailed("this build has no CUDA allocator history (it needs LibTorch 2.x with CUDA)");
}
}  // namespace

MemoryHistoryRecording::MemoryHistoryRecording(std::size_t) { not_in_this_build(); }
MemoryHistoryRecording::~MemoryHistoryRecording() = default;
std::string MemoryHistoryRecording::snapshot_pickle() const { not_in_this_build(); }
std::string memory_snapshot_pickle() { not_in_this_build(); }

#endif

}  // namespace awb
