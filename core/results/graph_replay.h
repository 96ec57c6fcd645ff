// Kernels replayed from CUDA/HIP graphs, attributed to the ops recorded while the graphs were captured.
//
// Inference engines (vLLM, SGLang) and torch.compile's CUDA graphs run their steps as graph replays: in
// a replay trace the kernels sit under cudaGraphLaunch / hipGraphLaunch runtime calls (they share the
// graph launch's correlation id) with no op above them, so every table names them "unattributed". A
// capture trace, recorded while the graphs were captured, holds the ops and their launch calls
// (cudaLaunchKernel, hipModuleLaunchKernel, cudaMemcpyAsync, ...) between cudaStreamBeginCapture and
// cudaStreamEndCapture (hip* on ROCm) on one thread: one captured graph per such region.
//
// attach_capture pairs each graph launch of the replay with a captured graph, in this order of
// preference, searching from the graph after the last one matched and wrapping around (so a sequence
// of pieces matches piece by piece, and one graph replayed again and again matches each time):
//   1. the same kernels: equal counts per kind (kernel, copy, set) and, where the capture names the
//      kernels (ROCm's launch calls carry "kernel" in their args; CUDA's do not), equal names;
//   2. a named capture that holds every replayed kernel and more (launches the replay did not record).
// The i-th replayed kernel of a name (or of a kind, unnamed) is the i-th captured launch of it. Each
// kernel then links to a copy of the op that launched it at capture time (its External id, else the
// op around the launch), with the op's ancestors inside the capture region (vllm::... > aten::...),
// their recorded inputs shared. The copies are marked TraceEvent::replayed (they did not run on the
// CPU here: the operator table gives them no CPU time), one set per graph launch (calls count per
// replay), and sit on a lane of their own per rank, each spanning the replayed kernels it launched
// (a parent spans its children). A kernel that cannot be attributed keeps its links and is counted,
// with the reason, in the report.
//
// Limits: an op's span covers its kernels on every stream, so on a graph whose streams overlap two
// sibling ops can nest; on CUDA (no names) a multi-stream graph's kernels are paired with launches
// in order of start. Pure C++, no torch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.h"

namespace awb {

struct GraphReplayReport {
    int64_t graph_launches = 0;              // cudaGraphLaunch / hipGraphLaunch calls in the replay
    int64_t matched = 0;                     // of them, paired with a captured graph
    int64_t captured_graphs = 0;             // capture regions (BeginCapture .. EndCapture) in the capture traces
    int64_t kernels = 0;                     // kernels, copies and sets under the graph launches
    int64_t attributed = 0;                  // of them, linked to an op recorded at capture time
    int64_t ops_added = 0;                   // replayed op copies added to the trace
    int64_t captured_not_replayed = 0;       // launches of matched graphs with no kernel in the replay
    std::vector<std::string> capture_files;  // the files the captures came from (graph_replay_import.h)
    // Why kernels stayed as they were, one line each ("3 graph launches (45 kernels): no captured graph
    // has 15 kernels (captured: 4, 12)").
    std::vector<std::string> unattributed;
    // Files that could not be used (unreadable, no graph capture, no graph launch): one line each.
    std::vector<std::string> problems;
    int64_t unattributed_kernels() const { return kernels - attributed; }
    bool operator==(const GraphReplayReport&) const = default;
};

// The report as lines: a summary, then the reasons and (with_problems) the problems ("CUDA graph replay: ...").
std::vector<std::string> graph_replay_lines(const GraphReplayReport& report, bool with_problems = true);
// One line for a status bar: "CUDA graph replay: 361 of 361 kernels attributed to capture-time ops
// (25 of 25 graph launches matched)".
std::string graph_replay_summary(const GraphReplayReport& report);

struct AttachedTrace {
    Trace trace;
    GraphReplayReport report;
};

// The replay with its graphs' kernels attributed to the ops of the capture(s) (in capture order, file
// after file). Never drops an event; a capture without graph capture regions, or a replay without graph
// launches, gives the replay as it is with a line in report.problems.
AttachedTrace attach_capture(const Trace& replay, const Trace& capture);
AttachedTrace attach_captures(const Trace& replay, const std::vector<const Trace*>& captures);

// The lane of the replayed ops (a CPU thread id of its own, in every rank) and its name.
inline constexpr uint64_t kGraphReplayLane = 0x67726170685f6f70ull;  // "graph_op"
inline constexpr const char* kGraphReplayLaneName = "CUDA graph replay: ops from capture";

bool is_graph_launch(const TraceEvent& e);  // a cudaGraphLaunch / hipGraphLaunch / cuGraphLaunch runtime call
int64_t graph_launch_count(const Trace& trace);
int64_t graph_capture_count(const Trace& trace);  // BeginCapture .. EndCapture regions

}  // namespace awb
