#include "analysis/snapshot_frames.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace awb {

namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// The file a frame is in: its filename, or for a profile's frames the "file.py" of "file.py(34): name".
std::string_view file_of(const SnapshotFrame& f) {
    if (!f.filename.empty() && f.filename != "none") return f.filename;
    const std::string_view name = f.name;
    const size_t paren = name.find(".py(");
    return paren == std::string_view::npos ? std::string_view{} : name.substr(0, paren + 3);
}

bool is_python(const SnapshotFrame& f) {
    const std::string_view file = file_of(f);
    return file.size() > 3 && file.substr(file.size() - 3) == ".py";
}

// Python code of torch itself (torch/nn/functional.py, torch/_tensor.py, torch/autograd/...): the
// model's line that called it is the one to name.
bool is_torch_python(const SnapshotFrame& f) {
    const std::string_view file = file_of(f);
    return file.rfind("torch/", 0) == 0 || contains(file, "/torch/") || contains(file, "/site-packages/torch") ||
           contains(file, "/dist-packages/torch");
}

// The ATen operator's entry a C++ stack passes through: "at::_ops::bmm::call(at::Tensor const&, ...)".
bool is_aten_op(const SnapshotFrame& f) {
    const std::string_view name = f.name;
    return name.rfind("at::_ops::", 0) == 0 && contains(name, "::call(");
}

std::string lowered(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

}  // namespace

std::string frame_text(const SnapshotFrame& f) {
    if (f.filename.empty() || f.filename == "none") return f.name;
    return f.name + " (" + f.filename + ":" + std::to_string(f.line) + ")";
}

bool is_machinery_frame(const SnapshotFrame& f) {
    static constexpr std::string_view kNames[] = {"unwind::unwind",
                                                  "CapturedTraceback::gather",
                                                  "gather_with_cpp",
                                                  "__libc_start_main",
                                                  "PyEval_",
                                                  "PyObject_",
                                                  "PyFunction_",
                                                  "CUDACachingAllocator::",
                                                  "c10::impl::wrap_kernel_functor_unboxed_",
                                                  "c10::Dispatcher::"};
    static constexpr std::string_view kFiles[] = {"core/boxing",
                                                  "/Register",
                                                  "/Redispatch",
                                                  "pythonrun.c",
                                                  "Modules/main.c",
                                                  "Objects/call.c",
                                                  "Objects/methodobject.c",
                                                  "pycore_ceval.h",
                                                  "ceval.c",
                                                  "cpython/abstract.h"};
    if (f.name == "??" || f.name == "_start") return true;
    for (const std::string_view n : kNames)
        if (contains(f.name, n)) return true;
    for (const std::string_view n : kFiles)
        if (contains(f.filename, n)) return true;
    return false;
}

ShownFrames shown_frames(const MemorySnapshot& snapshot, StackId stack, size_t max_frames) {
    ShownFrames out;
    if (stack == kNoStack || size_t(stack) >= snapshot.stacks.size()) return out;
    for (const int32_t i : snapshot.stacks[size_t(stack)]) {
        if (is_machinery_frame(snapshot.frames[size_t(i)])) continue;
        if (out.frames.size() == max_frames)
            ++out.more;
        else
            out.frames.push_back(i);
    }
    return out;
}

int32_t allocating_frame(const MemorySnapshot& snapshot, StackId stack) {
    if (stack == kNoStack || size_t(stack) >= snapshot.stacks.size()) return -1;
    const std::vector<int32_t>& frames = snapshot.stacks[size_t(stack)];
    if (frames.empty()) return -1;
    int32_t python = -1, op = -1, shown = -1;
    for (const int32_t i : frames) {
        const SnapshotFrame& f = snapshot.frames[size_t(i)];
        if (is_python(f)) {
            if (!is_torch_python(f)) return i;
            if (python < 0) python = i;
        } else if (op < 0 && is_aten_op(f)) {
            op = i;
        } else if (shown < 0 && !is_machinery_frame(f)) {
            shown = i;
        }
    }
    return python >= 0 ? python : op >= 0 ? op : shown >= 0 ? shown : frames.front();
}

std::vector<int32_t> allocating_frames(const MemorySnapshot& snapshot) {
    std::vector<int32_t> out(snapshot.stacks.size());
    for (size_t s = 0; s < out.size(); ++s) out[s] = allocating_frame(snapshot, StackId(s));
    return out;
}

std::vector<std::pair<int32_t, std::string>> allocating_frame_colours(const SnapshotTimeline& timeline,
                                                                      const std::vector<int32_t>& allocating) {
    // A qualitative palette (Tableau 20's darker half first): neighbouring bands stay apart.
    static const char* const kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                           "#e377c2", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a",
                                           "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5"};
    auto frame_of = [&](StackId stack) { return stack == kNoStack ? -1 : allocating[size_t(stack)]; };
    std::map<int32_t, int64_t> bytes;
    for (const DeviceMemoryTimeline& t : timeline.devices) {
        for (const BlockBand& b : t.bands) bytes[frame_of(b.block.stack)] += b.block.size;
        for (const LiveBlock& b : t.at_peak) bytes[frame_of(b.stack)] += b.size;
    }
    std::vector<std::pair<int64_t, int32_t>> order;
    for (const auto& [frame, n] : bytes)
        if (frame >= 0) order.push_back({-n, frame});
    std::sort(order.begin(), order.end());
    std::vector<std::pair<int32_t, std::string>> out;
    for (size_t i = 0; i < order.size(); ++i) out.push_back({order[i].second, kPalette[i % std::size(kPalette)]});
    return out;
}

std::vector<bool> stacks_matching(const MemorySnapshot& snapshot, std::string_view text) {
    const std::string needle = lowered(text);
    std::vector<bool> frame_matches(snapshot.frames.size());
    for (size_t i = 0; i < snapshot.frames.size(); ++i)
        frame_matches[i] = contains(lowered(frame_text(snapshot.frames[i])), needle);
    std::vector<bool> out(snapshot.stacks.size());
    for (size_t s = 0; s < out.size(); ++s)
        out[s] = std::any_of(snapshot.stacks[s].begin(), snapshot.stacks[s].end(),
                             [&](int32_t f) { return frame_matches[size_t(f)]; });
    return out;
}

}  // namespace awb
