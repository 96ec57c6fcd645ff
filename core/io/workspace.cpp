#include "io/workspace.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "io/chrome_trace.h"
#include "io/json_fields.h"
#include "io/json_io.h"
#include "io/results_json.h"
#include "model/printf_string.h"

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

// A trace's "cuda_runtime_version": 12010 -> "12.1"; "" when absent.
std::string cuda_version_of(const json& v) { return v.is_number_integer() ? cuda_version_text(v.get<int>()) : ""; }

}  // namespace

Environment environment_of_import(const ImportedTrace& t) {
    Environment e;
    std::map<std::string, int> gpus;  // "NVIDIA H100 80GB HBM3 (79.1 GiB, compute 9.0, 132 SMs)" -> count
    if (t.device_properties.is_array())
        for (const auto& d : t.device_properties) {
            if (!d.is_object() || !d.contains("name") || !d["name"].is_string()) continue;
            std::string text = d["name"].get<std::string>();
            std::vector<std::string> facts;
            if (d.contains("totalGlobalMem") && d["totalGlobalMem"].is_number()) {
                facts.push_back(printf_string("%.1f GiB", d["totalGlobalMem"].get<double>() / double(1 << 30)));
                const int64_t bytes = int64_t(d["totalGlobalMem"].get<double>());  // the smallest GPU's, when they differ
                e.memory_bytes = e.memory_bytes < 0 ? bytes : std::min(e.memory_bytes, bytes);
            }
            if (d.contains("computeMajor") && d["computeMajor"].is_number_integer())
                facts.push_back("compute " + std::to_string(d["computeMajor"].get<int>()) + "." +
                                std::to_string(int_or<int>(d, "computeMinor", 0)));
            if (d.contains("numSms") && d["numSms"].is_number_integer()) facts.push_back(std::to_string(d["numSms"].get<int>()) + " SMs");
            for (size_t i = 0; i < facts.size(); ++i) text += (i ? ", " : " (") + facts[i] + (i + 1 == facts.size() ? ")" : "");
            ++gpus[text];
        }
    for (const auto& [name, n] : gpus)
        e.device_name += (e.device_name.empty() ? "" : "; ") + (n > 1 ? std::to_string(n) + " x " : std::string()) + name;
    e.device = gpus.empty() ? "" : "cuda";
    const json& h = t.header;
    e.cuda_version = cuda_version_of(h.value("cuda_runtime_version", json()));
    e.driver_version = cuda_version_of(h.value("cuda_driver_version", json()));
    if (t.world_size > 0 || t.trace.meta().ranks.size() > 1) {
        e.host = t.trace.meta().ranks.size() > 1 ? std::to_string(t.trace.meta().ranks.size()) + " ranks"
                                                 : "rank " + std::to_string(t.rank);
        e.host += " of " + std::to_string(t.world_size) + (t.backend.empty() ? "" : " (" + t.backend + ")");
    }
    std::vector<std::string> recorded;
    if (h.contains("schemaVersion")) recorded.push_back("schema " + h["schemaVersion"].dump());
    if (h.contains("cupti_version")) recorded.push_back("CUPTI " + h["cupti_version"].dump());
    if (h.contains("hip_runtime_version")) recorded.push_back("HIP " + h["hip_runtime_version"].dump());
    if (h.contains("nccl_version") && h["nccl_version"].is_string()) recorded.push_back("NCCL " + h["nccl_version"].get<std::string>());
    std::vector<std::string> options;
    for (const char* o : {"record_shapes", "profile_memory", "with_stack", "with_flops", "with_modules"})
        if (h.contains(o) && ((h[o].is_number() && h[o].get<double>() != 0) || (h[o].is_boolean() && h[o].get<bool>())))
            options.push_back(o);
    if (!h.empty() || !t.trace_name.empty()) {
        e.recorded_by = "chrome trace";
        if (!recorded.empty()) e.recorded_by = "Kineto trace (" + join(recorded, ", ") + ")";
        if (!options.empty()) e.recorded_by += "; " + join(options, ", ");
    }
    return e;
}

ProfileResult run_of_metadata(const json& meta) {
    ProfileResult result;
    result.spec_known = false;
    if (meta.is_object()) {
        try {  // metadata of another version: the events still show
            if (meta.contains("spec")) {
                result.spec = meta.at("spec").get<RunSpec>();
                result.spec_known = true;
            }
            if (meta.contains("options")) result.options = meta.at("options").get<ProfileOptions>();
            if (meta.contains("environment")) result.environment = meta.at("environment").get<Environment>();
            if (meta.contains("steps")) result.steps = meta.at("steps").get<std::vector<StepRecord>>();
            result.device_peak_bytes = int_or<int64_t>(meta, "device_peak_bytes", -1);
            if (meta.contains("roof")) result.roof = meta.at("roof").get<Roof>();
            result.interrupted = meta.value("interrupted", false);
        } catch (const std::exception&) {
        }
    }
    return result;
}

ProfileResult profile_result_from_import(ImportedTrace imported) {
    ProfileResult result = run_of_metadata(imported.extra);
    // A foreign trace (no environment of ours): what the trace itself records (GPUs, CUDA, ranks).
    if (result.environment == Environment{}) result.environment = environment_of_import(imported);
    result.trace = std::move(imported.trace);
    return result;
}

void save_workspace(const Workspace& workspace, const std::string& path, RunObserver* observer) {
    const fs::path folder = runs_folder(path);
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw std::runtime_error("cannot write '" + folder.string() + "': " + ec.message());

    // Each save writes its traces under names of its own (run-N.SAVE.trace.json.gz) and only then, atomically,
    // the workspace file that names them: until that rename the previous workspace and all its traces stay
    // whole, whatever stops this save (a kill, a full disk, cancel). The previous save's traces go afterwards.
    const std::string save = printf_string("%lx%x", long(std::chrono::system_clock::now().time_since_epoch().count()),
                                           unsigned(::getpid()));
    std::vector<fs::path> written;
    json runs = json::array();
    const int total = int(workspace.runs.size());
    try {
        for (int i = 0; i < total; ++i) {
            const WorkspaceRun& run = workspace.runs[size_t(i)];
            report(observer, i, total, "saving run " + std::to_string(i + 1) + " of " + std::to_string(total));
            const std::string file = "run-" + std::to_string(i + 1) + "." + save + ".trace.json.gz";
            written.push_back(folder / file);
            write_chrome_trace(run.result->trace, run_trace_info(*run.result, "attention-workbench"), written.back().string());
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
        if (name.rfind("run-", 0) == 0 && name.size() > 14 && name.compare(name.size() - 14, 14, ".trace.json.gz") == 0 &&
            !kept.count(name))
            stale.push_back(it->path());
    }
    for (const fs::path& p : stale) fs::remove(p, ec);
    if (observer) observer->on_progress(total, total, "saved " + path);  // saved: too late to cancel
}

Workspace load_workspace(const std::string& path, RunObserver* observer) {
    const json j = read_json_file(path);  // names the file itself
    Workspace w;
    json runs;
    try {
        check_schema(j, kWorkspaceSchema, kWorkspaceVersion, "workspace");
        read_or_throw("workspace", [&] {
            w.panel_spec = j.at("panel_spec").get<RunSpec>();
            w.shown = int_or<int>(j, "shown", -1);
            for (const auto& s : j.at("sweeps")) {
                const bool named = s.is_object() && s.contains("label") && s["label"].is_string();
                w.sweeps.push_back({named ? s["label"].get<std::string>() : std::string(), sweep_from_file_json(s.at("sweep"))});
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
        const std::string trace = text("trace");
        try {
            if (trace.empty()) throw std::runtime_error("no trace file named");
            // Only a file of the workspace's own folder: never /dev/zero, a FIFO or a path out of it.
            const fs::path rel(trace);
            if (rel.is_absolute() || std::any_of(rel.begin(), rel.end(), [](const fs::path& p) { return p == ".."; }))
                throw std::runtime_error("its trace '" + trace + "' is not in the workspace's folder");
            const fs::path file = base / rel;
            std::error_code fe;
            if (!fs::is_regular_file(file, fe)) throw std::runtime_error("its trace '" + file.string() + "' is missing or not a file");
            auto result = std::make_shared<const ProfileResult>(profile_result_from_import(import_chrome_trace(file.string())));
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
