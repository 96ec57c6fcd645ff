#include "cli_graph_replay.h"

#include <iostream>

namespace awb::cli {

CLI::Option* add_capture_option(CLI::App& sub, std::vector<std::string>& captures) {
    return sub.add_option("--capture", captures,
                          "A capture trace of the CUDA/HIP graphs the traces replay (recorded while the graphs were captured; "
                          "a folder: its execution_details.json's files, or its traces): each graph's kernels are attributed "
                          "to the ops that launched them at capture (docs/inspect.md: Graph replays). A folder holding capture_traces/ "
                          "is read so without it");
}

std::optional<ReplayFiles> replay_input(const std::vector<std::string>& files, const std::string& folder,
                                        const std::vector<std::string>& captures) {
    if (captures.empty()) return folder.empty() ? std::nullopt : replay_files_of(folder);
    ReplayFiles out;
    out.replay = files;
    for (const std::string& c : captures) {
        const std::vector<std::string> found = capture_files_of(c, &out.problems);
        if (found.empty()) out.problems.push_back("'" + c + "' holds no capture trace (.json or .json.gz)");
        out.captures.insert(out.captures.end(), found.begin(), found.end());
    }
    return out;
}

ImportedTrace read_inspect_input(const std::vector<std::string>& files, const std::string& folder,
                                 const std::vector<std::string>& captures, RunObserver* progress,
                                 std::optional<GraphReplayReport>& report) {
    const std::optional<ReplayFiles> replay = replay_input(files, folder, captures);
    if (!replay) return import_chrome_traces(files, progress);
    ReplayImport r = import_replay(*replay, progress);
    report = std::move(r.report);
    return std::move(r.imported);
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
