// Reading a graph replay together with its capture traces (graph_replay.h): the files of a folder as
// vLLM's and SGLang's profiling write them, a replay and capture files named on the command line, or a
// File > Open selection of both. Every file that cannot serve (unreadable, no graph capture, captures
// none of which matches the replay's graphs, a replay without graph launches) gets one line naming it in
// the report's problems, and the replay is still returned as it is.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/trace_import.h"
#include "results/graph_replay.h"

namespace awb {

struct ReplayFiles {
    std::vector<std::string> replay;    // one trace, or the ranks of one run
    std::vector<std::string> captures;  // capture traces, in order
    std::vector<std::string> problems;  // found while listing them (a named capture file that is not there)
};

// A folder holding the replay's trace(s) and a capture_traces/ folder, whose execution_details.json
// names the capture files ([{"file": ..., "batch_size": ..., "mode": ...}]; without it, every .json /
// .json.gz there); nullopt for a folder without capture_traces/.
std::optional<ReplayFiles> replay_files_of(const std::string& folder);

// The capture files a path names: a folder's (as above, or its traces), or the file.
std::vector<std::string> capture_files_of(const std::string& path, std::vector<std::string>* problems = nullptr);

struct ReplayImport {
    ImportedTrace imported;    // the replay, its graphs' kernels attributed
    GraphReplayReport report;  // with capture_files and problems filled in
};

// Reads the replay (throws TraceImportError when it cannot be read) and the captures, and attaches them.
ReplayImport import_replay(const ReplayFiles& files, RunObserver* observer = nullptr);

// A selection of files: those holding graph captures are the captures, the others the replay (one
// trace, or the ranks of one run). When no file holds a capture, they are the ranks of one run (or one
// trace), read into *ranks, and nullopt is returned. Each file is read once. Throws TraceImportError
// when every file holds captures, MixedRunsError when the others are not one run.
std::optional<ReplayImport> import_replay_selection(const std::vector<std::string>& paths, RunObserver* observer,
                                                    ImportedTrace* ranks);

}  // namespace awb
