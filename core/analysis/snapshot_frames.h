// The frames of a memory snapshot's stacks as people read them: a frame's text, the frame that
// allocated a block (the innermost one in the user's code, which names the block and colours it in the
// views), and which stacks pass a frame filter ("attention": every block allocated under it).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/snapshot_timeline.h"
#include "model/memory_snapshot.h"

namespace awb {

// "manual (attn.py:34)"; a profile's frames ("attn.py(34): manual", filename "none") as they are.
std::string frame_text(const SnapshotFrame& frame);

// A frame of the recording's own machinery, hidden from stacks and from the bytes under each frame:
// memory_viz's list (torch's unwinder, the interpreter's eval loop and call helpers, the dispatcher's
// boxing and registration files, libc's entry), the caching allocator's own functions, the
// dispatcher's wrappers (c10::impl::wrap_kernel_functor_unboxed_, c10::Dispatcher) and frames with no
// symbol ("??"). A real CUDA snapshot's every stack starts with six of them.
bool is_machinery_frame(const SnapshotFrame& frame);

// The frames of a stack that its views show, innermost first: up to MAX_FRAMES that are not machinery,
// and how many more there are. Empty for no stack, or one of machinery only.
struct ShownFrames {
    std::vector<int32_t> frames;  // indices into MemorySnapshot::frames
    size_t more = 0;
};
ShownFrames shown_frames(const MemorySnapshot& snapshot, StackId stack, size_t max_frames);

// The frame a block is named by: the innermost frame of its stack that is Python code outside torch
// (the line of the model that asked for the memory), else the innermost Python frame; a C++-only stack
// (LibTorch's own recording) by the innermost ATen operator (at::_ops::NAME::call), else its
// innermost frame that is not machinery, else its innermost. -1: no stack recorded.
int32_t allocating_frame(const MemorySnapshot& snapshot, StackId stack);
// allocating_frame of every stack, by StackId (computed once per snapshot, for the views).
std::vector<int32_t> allocating_frames(const MemorySnapshot& snapshot);

// Which stacks hold a frame whose text contains `text` (case-insensitive), by StackId. A block without
// a stack never matches.
std::vector<bool> stacks_matching(const MemorySnapshot& snapshot, std::string_view text);

// The colours blocks are drawn in, by allocating frame (GUI and HTML report alike): the palette's
// "#rrggbb" in turn to the frames with the most bytes drawn as bands, then at the peak; a frame past
// the palette's end takes its colours again. kNoStackColour: blocks without a stack.
inline constexpr const char* kNoStackColour = "#7b8ca3";
std::vector<std::pair<int32_t, std::string>> allocating_frame_colours(const SnapshotTimeline& timeline,
                                                                      const std::vector<int32_t>& allocating);

}  // namespace awb
