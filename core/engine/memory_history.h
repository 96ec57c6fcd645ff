// The CUDA caching allocator's history over a run, as torch.cuda.memory._record_memory_history() and
// _dump_snapshot() record it in Python: every allocation, free and segment event with the C++ stack
// that made it (there is no Python here), then the allocator's snapshot pickled exactly as LibTorch's
// torch::cuda::_memory_snapshot_pickled() writes it, which attnwb inspect and PyTorch's memory_viz
// read. Only the 2.x build with CUDA has it (torch/csrc/cuda/memory_snapshot.h, in libtorch_cuda).
// No torch in this header: the CLI includes it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/run_spec.h"

namespace awb {

// The most allocator events one recording keeps (the oldest are dropped past it), as
// torch.cuda.memory._record_memory_history(max_entries=100000) in PyTorch's guide.
inline constexpr std::size_t kMemoryHistoryEntries = 100000;

// True in the 2.x build with CUDA (the recording and its pickle are in libtorch_cuda).
bool memory_history_available();

// Why a run of spec cannot record the allocator's history, on the field "memory_snapshot", each message
// naming the option (--memory-snapshot): the build, then the device. Empty when it can.
std::vector<SpecProblem> memory_history_problems(const RunSpec& spec);

// Records the history of every CUDA device's caching allocator while alive: on in the constructor
// (context "all", stacks "all": C++ frames; max_entries events kept), off in the destructor, also when
// a run is left by an exception. Symbolizing the stacks uses TORCH_SYMBOLIZE_MODE when it is set, else
// LibTorch's in-process symbolizer ("fast"; the addr2line default can take minutes on a large library).
// Throws RunFailed where memory_history_available() is false.
class MemoryHistoryRecording {
public:
    explicit MemoryHistoryRecording(std::size_t max_entries = kMemoryHistoryEntries);
    ~MemoryHistoryRecording();
    MemoryHistoryRecording(const MemoryHistoryRecording&) = delete;
    MemoryHistoryRecording& operator=(const MemoryHistoryRecording&) = delete;

    // The snapshot so far: memory_snapshot_pickle() while recording.
    std::string snapshot_pickle() const;
};

// The caching allocator's snapshot now (segments, device_traces, allocator_settings) as the pickle bytes
// torch.cuda.memory._dump_snapshot writes; its traces hold what a recording has kept. Throws RunFailed
// where memory_history_available() is false.
std::string memory_snapshot_pickle();

}  // namespace awb
