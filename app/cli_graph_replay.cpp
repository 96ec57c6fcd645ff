#include "cli_graph_replay.h"

#include <iostream>

namespace awb::cli {

CLI::Option* add_capture_option(CLI::App& sub, std::vector<std::string>& captures) {
    return sub.add_option(
        "--capture", captures,
        "A capture trace of the CUDA/HIP graphs the traces replay (recorded while the graphs were captured; "
        "a folder: its execution_details.json's files, or its traces): each graph's kernels are attributed "
        "to the ops that launched them at capture (docs/inspect.md: Graph replays). A folder holding capture_traces/ "
        "is read so without it");
}

bool print_graph_replay(const GraphReplayReport& report) {
    for (const std::string& line : graph_replay_lines(report, /*with_problems=*/false)) std::cout << line << "\n";
    for (const std::string& p : report.problems) std::cerr << "attnwb inspect: " << p << "\n";
    return report.problems.empty();
}

nlohmann::json graph_replay_json(const GraphReplayReport& r) {
    return {{"graph_launches", r.graph_launches},
            {"matched", r.matched},
            {"captured_graphs", r.captured_graphs},
            {"kernels", r.kernels},
            {"attributed", r.attributed},
            {"unattributed", r.unattributed_kernels()},
            {"ops_added", r.ops_added},
            {"captured_not_replayed", r.captured_not_replayed},
            {"capture_files", r.capture_files},
            {"unattributed_reasons", r.unattributed},
            {"problems", r.problems}};
}

}  // namespace awb::cli
