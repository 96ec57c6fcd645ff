// attnwb inspect's graph replay: a replay trace read with its capture traces (--capture, or a folder
// holding capture_traces/ as vLLM and SGLang write it), its kernels attributed to the ops recorded at
// capture (io/graph_replay.h), and the attribution report printed before the trace's tables.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "io/graph_replay_import.h"

namespace awb::cli {

// --capture FILE|FOLDER (repeatable).
CLI::Option* add_capture_option(CLI::App& sub, std::vector<std::string>& captures);

// What one input of inspect attaches: the --capture files to every input, else a folder's
// capture_traces/ (nullopt: a plain trace). folder: the path given when it is a folder, else "".
std::optional<ReplayFiles> replay_input(const std::vector<std::string>& files, const std::string& folder,
                                        const std::vector<std::string>& captures);

// Reads one input of inspect: its trace, or (replay_input) the replay with its captures attached, the
// report in report. Throws TraceImportError when the trace (the replay) cannot be read.
ImportedTrace read_inspect_input(const std::vector<std::string>& files, const std::string& folder,
                                 const std::vector<std::string>& captures, RunObserver* progress,
                                 std::optional<GraphReplayReport>& report);

// Prints the report on stdout and each problem on stderr ("attnwb inspect: ..."); true when there
// was none. The report as JSON for --json.
bool print_graph_replay(const GraphReplayReport& report);
nlohmann::json graph_replay_json(const GraphReplayReport& report);

}  // namespace awb::cli
