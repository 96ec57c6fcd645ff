#include "workspace.h"

#include <filesystem>

#include "chrome_trace.h"
#include "json_io.h"
#include "results_json.h"

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
    if (observer->cancel_requested()) throw Cancelled();
}

}  // namespace

ProfileResult profile_result_from_import(ImportedTrace imported) {
    ProfileResult result;
    result.spec_known = false;
    const json& meta = imported.extra;
    if (meta.is_object()) {
        try {  // metadata of another version: the events still show
            if (meta.contains("spec")) {
                result.spec = meta.at("spec").get<RunSpec>();
                result.spec_known = true;
            }
            if (meta.contains("options")) result.options = meta.at("options").get<ProfileOptions>();
            if (meta.contains("environment")) result.environment = meta.at("environment").get<Environment>();
            if (meta.contains("steps")) result.steps = meta.at("steps").get<std::vector<StepRecord>>();
            result.device_peak_bytes = meta.value("device_peak_bytes", int64_t(-1));
        } catch (const std::exception&) {
        }
    }
    result.trace = std::move(imported.trace);
    return result;
}

void save_workspace(const Workspace& workspace, const std::string& path, RunObserver* observer) {
    const fs::path folder = runs_folder(path);
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw std::runtime_error("cannot write '" + folder.string() + "': " + ec.message());

    json runs = json::array();
    const int total = int(workspace.runs.size());
    for (int i = 0; i < total; ++i) {
        const WorkspaceRun& run = workspace.runs[size_t(i)];
        report(observer, i, total, "saving run " + std::to_string(i + 1) + " of " + std::to_string(total));
        const std::string file = "run-" + std::to_string(i + 1) + ".trace.json.gz";
        write_chrome_trace(run.result->trace, run_trace_info(*run.result, "attention-workbench"), (folder / file).string());
        runs.push_back({{"label", run.label}, {"trace", (folder.filename() / file).string()}});
    }
    json sweeps = json::array();
    for (const WorkspaceSweep& s : workspace.sweeps) sweeps.push_back({{"label", s.label}, {"sweep", sweep_file_json(s.sweep)}});
    json j{{"schema", kWorkspaceSchema},
           {"schema_version", kWorkspaceVersion},
           {"panel_spec", workspace.panel_spec},
           {"shown", workspace.shown},
           {"runs", runs},
           {"sweeps", sweeps}};
    if (workspace.bench) j["bench"] = bench_file_json(*workspace.bench);
    if (workspace.check) j["check"] = check_file_json(*workspace.check);
    write_text_file(path, j.dump(1) + "\n");
    report(observer, total, total, "saved " + path);
}

Workspace load_workspace(const std::string& path, RunObserver* observer) {
    const json j = read_json_file(path);
    check_schema(j, kWorkspaceSchema, kWorkspaceVersion, "workspace");
    Workspace w;
    const fs::path base = fs::path(path).parent_path();
    json runs;
    read_or_throw("workspace", [&] {
        w.panel_spec = j.at("panel_spec").get<RunSpec>();
        w.shown = j.value("shown", -1);
        for (const auto& s : j.at("sweeps")) w.sweeps.push_back({s.value("label", std::string()), sweep_from_file_json(s.at("sweep"))});
        if (j.contains("bench")) w.bench = std::make_shared<const BenchResult>(bench_from_file_json(j.at("bench")));
        if (j.contains("check")) w.check = std::make_shared<const CheckReport>(check_from_file_json(j.at("check")));
        runs = j.at("runs");
        if (!runs.is_array()) throw std::runtime_error("workspace 'runs' is not a list");
        return 0;
    });
    const int total = int(runs.size());
    int shown = -1;
    for (int i = 0; i < total; ++i) {
        const json& r = runs[size_t(i)];
        report(observer, i, total, "reading run " + std::to_string(i + 1) + " of " + std::to_string(total));
        const std::string label = r.value("label", "run " + std::to_string(i + 1));
        const std::string trace = r.value("trace", std::string());
        try {
            if (trace.empty()) throw std::runtime_error("no trace file named");
            auto result = std::make_shared<const ProfileResult>(profile_result_from_import(import_chrome_trace((base / trace).string())));
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
