#include "results/graph_replay_import.h"

#include <algorithm>
#include <filesystem>

#include "results/run_json.h"

namespace awb {

namespace {

namespace fs = std::filesystem;

constexpr const char* kCaptureFolder = "capture_traces";
constexpr const char* kDetails = "execution_details.json";  // vLLM's and SGLang's list of capture files

bool is_trace_file(const fs::path& p) {
    const std::string name = p.filename().string();
    auto ends = [&name](std::string_view suffix) { return name.size() >= suffix.size() && name.ends_with(suffix); };
    return name != kDetails && (ends(".json") || ends(".json.gz"));
}

std::vector<std::string> traces_in(const fs::path& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.is_regular_file(ec) && is_trace_file(entry.path())) out.push_back(entry.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

// The files execution_details.json names that are there (each one missing is a problem); empty when
// it cannot be read or names none (the folder's traces are used then).
std::vector<std::string> named_in_details(const fs::path& dir, std::vector<std::string>& problems) {
    const fs::path details = dir / kDetails;
    std::vector<std::string> out;
    nlohmann::json j;
    try {
        j = read_json_file(details.string());
    } catch (const std::exception& e) {
        problems.push_back(std::string(e.what()) + ": the folder's traces are used instead");
        return out;
    }
    for (const auto& entry : j.is_array() ? j : nlohmann::json::array()) {
        if (!entry.is_object() || !entry.contains("file") || !entry["file"].is_string()) continue;
        const fs::path file = dir / entry["file"].get<std::string>();
        if (fs::is_regular_file(file))
            out.push_back(file.string());
        else
            problems.push_back("'" + details.string() + "' names '" + entry["file"].get<std::string>() +
                               "', which is not there");
    }
    return out;
}

// The captures that can serve: readable, with at least one graph capture. The others are problems.
std::vector<std::pair<std::string, ImportedTrace>> read_captures(const std::vector<std::string>& paths,
                                                                 RunObserver* observer, GraphReplayReport& report) {
    std::vector<std::pair<std::string, ImportedTrace>> out;
    for (const std::string& path : paths) {
        try {
            ImportedTrace t = import_chrome_trace(path, observer);
            if (graph_capture_count(t.trace) > 0) {
                out.emplace_back(path, std::move(t));
                continue;
            }
            report.problems.push_back("'" + path +
                                      "' holds no graph capture (no cudaStreamBeginCapture / hipStreamBeginCapture .. "
                                      "EndCapture): not used as a capture");
        } catch (const TraceImportError& e) {
            report.problems.push_back(std::string(e.what()) + " (not used as a capture)");
        }
    }
    return out;
}

// The replay's kernels attributed to the captures' ops; the report keeps the problems found so far.
void attach_into(ReplayImport& out, const std::string& replay_name,
                 const std::vector<std::pair<std::string, ImportedTrace>>& captures) {
    std::vector<std::string> problems = std::move(out.report.problems);
    std::vector<const Trace*> traces;
    for (const auto& [path, t] : captures) traces.push_back(&t.trace);
    if (graph_launch_count(out.imported.trace) == 0) {
        problems.push_back(
            "'" + replay_name +
            "' holds no graph launch (cudaGraphLaunch / hipGraphLaunch): its kernels are shown as they are");
        traces.clear();
    } else {
        AttachedTrace attached = attach_captures(out.imported.trace, traces);
        out.report = std::move(attached.report);
        out.imported.trace = std::move(attached.trace);
        if (!captures.empty() && out.report.matched == 0)
            problems.push_back("no graph captured in " +
                               (captures.size() == 1 ? "'" + captures.front().first + "'"
                                                     : "the " + std::to_string(captures.size()) + " capture files") +
                               " matches a graph launch of '" + replay_name +
                               "' (another run's capture?): its kernels are shown as they are");
    }
    for (const auto& [path, t] : captures) out.report.capture_files.push_back(path);
    out.report.problems.insert(out.report.problems.begin(), problems.begin(), problems.end());
}

std::string replay_name(const std::vector<std::string>& files) {
    return files.size() == 1 ? files.front() : files.front() + " (+" + std::to_string(files.size() - 1) + " more)";
}

}  // namespace

std::vector<std::string> capture_files_of(const std::string& path, std::vector<std::string>* problems) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) return {path};
    fs::path dir = path;
    if (fs::is_directory(dir / kCaptureFolder, ec)) dir /= kCaptureFolder;
    std::vector<std::string> ignored;
    if (fs::exists(dir / kDetails, ec)) {
        std::vector<std::string> named = named_in_details(dir, problems ? *problems : ignored);
        if (!named.empty()) return named;
    }
    return traces_in(dir);
}

std::optional<ReplayFiles> replay_files_of(const std::string& folder) {
    std::error_code ec;
    if (!fs::is_directory(fs::path(folder) / kCaptureFolder, ec)) return std::nullopt;
    ReplayFiles files;
    files.replay = traces_in(folder);
    if (files.replay.empty())
        throw TraceImportError("'" + folder + "' holds " + kCaptureFolder +
                               "/ but no replay trace (.json or .json.gz) beside it");
    files.captures = capture_files_of(folder, &files.problems);
    if (files.captures.empty())
        files.problems.push_back("'" + (fs::path(folder) / kCaptureFolder).string() +
                                 "' holds no capture trace (.json or .json.gz)");
    return files;
}

ReplayImport import_replay(const ReplayFiles& files, RunObserver* observer) {
    ReplayImport out;
    out.imported = import_chrome_traces(files.replay, observer);
    out.report.problems = files.problems;
    const auto captures = read_captures(files.captures, observer, out.report);
    attach_into(out, replay_name(files.replay), captures);
    return out;
}

std::optional<ReplayImport> import_replay_selection(const std::vector<std::string>& paths, RunObserver* observer,
                                                    ImportedTrace* ranks) {
    std::vector<std::pair<std::string, ImportedTrace>> captures;
    std::vector<ImportedTrace> replays;
    std::vector<std::string> replay_paths;
    std::vector<ImportedTrace> read = import_chrome_trace_files(paths, observer);
    for (size_t i = 0; i < paths.size(); ++i) {
        if (graph_capture_count(read[i].trace) > 0) {
            captures.emplace_back(paths[i], std::move(read[i]));
        } else {
            replays.push_back(std::move(read[i]));
            replay_paths.push_back(paths[i]);
        }
    }
    const std::string n = std::to_string(paths.size());
    if (captures.empty()) {  // no graph capture among them: the ranks of one run (or one trace)
        *ranks = merge_rank_traces(std::move(replays), replay_paths);
        return std::nullopt;
    }
    if (replays.empty())
        throw TraceImportError("each of the " + n +
                               " files holds a graph capture: select the replay trace (the one with "
                               "cudaGraphLaunch / hipGraphLaunch calls) with its capture");
    ReplayImport out;
    out.imported = merge_rank_traces(std::move(replays), replay_paths);
    attach_into(out, replay_name(replay_paths), captures);
    return out;
}

}  // namespace awb
