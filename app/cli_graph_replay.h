// attnwb inspect's graph replay: a replay trace read with its capture traces (--capture, or a folder
// holding capture_traces/ as vLLM and SGLang write it), its kernels attributed to the ops recorded at
// capture (results/graph_replay.h), and the attribution report printed before the trace's tables.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "results/graph_replay.h"

namespace awb::cli {

// --capture FILE|FOLDER (repeatable).
CLI::Option* add_capture_option(CLI::App& sub, std::vector<std::string>& captures);

// Prints the report on stdout and each problem on stderr ("attnwb inspect: ..."); true when there
// was none. The report as JSON for --json.
bool print_graph_replay(const GraphReplayReport& report);
nlohmann::json graph_replay_json(const GraphReplayReport& report);

}  // namespace awb::cli
