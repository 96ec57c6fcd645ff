#include "results/workspace.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "io/json_read.h"
#include "io/json_write.h"
#include "model/printf_string.h"
#include "results/chrome_trace.h"
#include "results/measurement_json.h"
#include "results/run_json.h"

namespace awb {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// NAME.json -> NAME.runs (the folder of its traces), next to it.
fs::path runs_folder(const fs::path& workspace) {
    fs::path stem = workspace;
    stem.replace_extension();
    return stem.string() + ".runs";
}

void report(RunObserver* observer, int done, int total, const std::string& what) {
    if (!observer) return;
    observer->on_progress(done, total, what);
    throw_if_cancelled(observer);
}

// Writes a run's trace as one file, or for a distributed run one file per rank (each with its
// distributedInfo, so that the set opens as the ranks of one run); what the workspace file records of it.
json save_run_trace(const ProfileResult& run, const fs::path& folder, const std::string& stem,
                    std::vector<fs::path>& written) {
    ChromeTraceInfo info = run_trace_info(run, "attention-workbench");
    info.exact = true;
    const std::vector<int32_t>& ranks = run.trace.meta().ranks;
    if (ranks.size() <= 1) {
        if (ranks.size() == 1) info.rank = ranks.front();
        written.push_back(folder / (stem + ".trace.json.gz"));
        write_chrome_trace(run.trace, info, written.back().string());
        return (folder.filename() / written.back().filename()).string();
    }
    json files = json::array();
    for (int32_t rank : ranks) {
        info.rank = rank;
        written.push_back(folder / (stem + "-rank" + std::to_string(rank) + ".trace.json.gz"));
        write_chrome_trace(run.trace, info, written.back().string());
        files.push_back((folder.filename() / written.back().filename()).string());
    }
    return files;
}

// The file a workspace names: only one of the workspace's own folder, never /dev/zero, a FIFO or a path out of it.
std::string run_trace_file(const fs::path& base, const std::string& trace) {
    const fs::path rel(trace);
    if (rel.is_absolute() || std::any_of(rel.begin(), rel.end(), [](const fs::path& p) { return p == ".."; }))
        throw std::runtime_error("its trace '" + trace + "' is not in the workspace's folder");
    const fs::path file = base / rel;
    std::error_code fe;
    if (!fs::is_regular_file(file, fe))
        throw std::runtime_error("its trace '" + file.string() + "' is missing or not a file");
    return file.string();
}

// The run a workspace's entry names: its trace, or the traces of its ranks read as one distributed run.
std::shared_ptr<const ProfileResult> load_run(const json& r, const fs::path& base) {
    std::vector<std::string> files;
    const json none;
    const json& trace = r.is_object() && r.contains("trace") ? r["trace"] : none;
    if (trace.is_string()) files.push_back(run_trace_file(base, trace.get<std::string>()));
    if (trace.is_array())
        for (const json& t : trace)
            if (t.is_string()) files.push_back(run_trace_file(base, t.get<std::string>()));
    if (files.empty() || (trace.is_array() && files.size() != trace.size()))
        throw std::runtime_error("no trace file named");
    return std::make_shared<const ProfileResult>(profile_result_from_import(import_chrome_traces(files)));
}

}  // namespace

void save_workspace(const Workspace& workspace, const std::string& path, RunObserver* observer) {
    const fs::path folder = runs_folder(path);
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw std::runtime_error("cannot write '" + folder.string() + "': " + ec.message());

    // Each save writes its traces under names of its own (run-N.SAVE.trace.json.gz) and only then, atomically,
    // the workspace file that names them: until that rename the previous workspace and all its traces stay
    // whole, whatever stops this save (a kill, a full disk, cancel). The previous save's traces go afterwards.
    const std::string save =
        printf_string("%lx%x", long(std::chrono::system_clock::now().time_since_epoch().count()), unsigned(::getpid()));
    std::vector<fs::path> written;
    json runs = json::array();
    const int total = int(workspace.runs.size());
    try {
        for (int i = 0; i < total; ++i) {
            const WorkspaceRun& run = workspace.runs[size_t(i)];
            report(observer, i, total, "saving run " + std::to_string(i + 1) + " of " + std::to_string(total));
            const std::string stem = "run-" + std::to_string(i + 1) + "." + save;
            runs.push_back({{"label", run.label}, {"trace", save_run_trace(*run.result, folder, stem, written)}});
        }
        json sweeps = json::array();
        for (const WorkspaceSweep& s : workspace.sweeps)
            sweeps.push_back(
                {{"label", s.label}, {"shown", s.shown}, {"sweep", sweep_file_json(s.sweep, analyze_sweep(s.sweep))}});
        json j{{"schema", kWorkspaceSchema},
               {"schema_version", kWorkspaceVersion},
               {"panel_spec", workspace.panel_spec},
               {"shown", workspace.shown},
               {"runs", runs},
               {"sweeps", sweeps}};
        if (!workspace.panel_modules.empty()) j["panel_modules"] = workspace.panel_modules;
        if (workspace.bench) j["bench"] = bench_file_json(*workspace.bench);
        if (workspace.check) j["check"] = check_file_json(*workspace.check);
        write_text_file(path, our_file_text(j));
    } catch (...) {
        for (const fs::path& p : written) fs::remove(p, ec);
        throw;
    }
    // The traces no workspace file names any more: the previous save's.
    std::set<std::string> kept;
    for (const fs::path& p : written) kept.insert(p.filename().string());
    std::vector<fs::path> stale;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("run-", 0) == 0 && name.size() > 14 &&
            name.compare(name.size() - 14, 14, ".trace.json.gz") == 0 && !kept.count(name))
            stale.push_back(it->path());
    }
    for (const fs::path& p : stale) fs::remove(p, ec);
    if (observer) observer->on_progress(total, total, "saved " + path);  // saved: too late to cancel
}

Workspace load_workspace(const std::string& path, RunObserver* observer) {
    return workspace_from_json(read_json_file(path), path, observer);  // read_json_file names the file itself
}

Workspace workspace_from_json(const json& j, const std::string& path, RunObserver* observer) {
    Workspace w;
    json runs;
    try {
        check_schema(j, kWorkspaceSchema, kWorkspaceVersion, "workspace");
        read_or_throw("workspace", [&] {
            w.panel_spec = j.at("panel_spec").get<RunSpec>();
            w.shown = int_or<int>(j, "shown", -1);
            if (j.contains("panel_modules"))  // a module file that has gone stays named: the panel shows it as missing
                for (const auto& m : j.at("panel_modules"))
                    if (m.is_string()) w.panel_modules.push_back(m.get<std::string>());
            for (const auto& s : j.at("sweeps")) {
                const bool named = s.is_object() && s.contains("label") && s["label"].is_string();
                const bool shown =
                    !s.is_object() || !s.contains("shown") || !s["shown"].is_boolean() || s["shown"].get<bool>();
                w.sweeps.push_back({named ? s["label"].get<std::string>() : std::string(),
                                    sweep_from_file_json(s.at("sweep")), shown});
            }
            if (j.contains("bench")) w.bench = std::make_shared<const BenchResult>(bench_from_file_json(j.at("bench")));
            if (j.contains("check")) w.check = std::make_shared<const CheckReport>(check_from_file_json(j.at("check")));
            runs = j.at("runs");
            if (!runs.is_array()) throw std::runtime_error("workspace field runs is not a list");
            return 0;
        });
    } catch (const std::exception& e) {
        throw std::runtime_error("'" + path + "': " + e.what());
    }
    const fs::path base = fs::path(path).parent_path();
    const int total = int(runs.size());
    int shown = -1;
    for (int i = 0; i < total; ++i) {
        const json& r = runs[size_t(i)];
        report(observer, i, total, "reading run " + std::to_string(i + 1) + " of " + std::to_string(total));
        auto text = [&r](const char* key) {
            return r.is_object() && r.contains(key) && r[key].is_string() ? r[key].get<std::string>() : std::string();
        };
        std::string label = text("label");
        if (label.empty()) label = "run " + std::to_string(i + 1);
        try {
            auto result = load_run(r, base);
            if (i == w.shown) shown = int(w.runs.size());
            w.runs.push_back({label, std::move(result)});
        } catch (const Cancelled&) {
            throw;
        } catch (const std::exception& e) {
            w.problems.push_back("run '" + label + "' left out: " + e.what());
        }
    }
    w.shown = shown;
    return w;
}

}  // namespace awb
