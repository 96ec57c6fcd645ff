// Reading chrome-trace JSON into a Trace: PyTorch 2.x Kineto traces (torch.profiler's
// export_chrome_trace and tensorboard_trace_handler), the 2021 Kineto layout, ROCm traces, the legacy
// profiler's plain array of events, and our own exports; .json or .json.gz.
//
// How, on two threads: a producer reads the file through zlib in 2 MiB chunks (never inflated whole),
// finds the top-level keys with a small structural scanner and cuts "traceEvents" into batches of
// about 512 KiB of event objects; the calling thread parses each batch with simdjson and converts its
// events straight into TraceEvents (no DOM kept). At most two batches wait between them, so memory
// stays bounded; equal kernel launch configurations and input shapes are shared. Pure C++
// (simdjson + nlohmann + zlib), no torch.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/trace_files.h"
#include "model/device_properties.h"
#include "model/import_notes.h"
#include "model/run_observer.h"
#include "model/trace.h"

namespace awb {

// A file that is not a readable trace; what() names the file, the problem and the byte offset.
class TraceImportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Traces given as one run that are several (io/trace_ranks.h): what() names each run, its files and
// why they are apart; runs() has the files of each, to open them separately.
class MixedRunsError : public TraceImportError {
public:
    MixedRunsError(const std::string& what, std::vector<std::vector<std::string>> runs)
        : TraceImportError(what), runs_(std::move(runs)) {}
    const std::vector<std::vector<std::string>>& runs() const { return runs_; }

private:
    std::vector<std::vector<std::string>> runs_;
};

struct ImportedTrace {
    Trace trace;
    std::string trace_name;                 // "traceName", when present
    nlohmann::json extra;                   // top-level "attention_workbench" object (spec, environment), when present
    std::vector<DeviceProperties> devices;  // "deviceProperties": the GPUs it ran on (name, memory, compute capability)
    nlohmann::json header = nlohmann::json::object();  // the versions and options Kineto records: schemaVersion,
        // cupti_version, cuda_runtime_version, cuda_driver_version, record_shapes, ...
    int rank = -1;  // "distributedInfo": rank, world size, backend, process groups (pg_config)
    int world_size = -1;
    std::string backend;
    std::vector<ProcessGroup> process_groups;
    bool has_base_time = false;                 // "baseTimeNanoseconds" given: the events' clock is the epoch's
    std::map<std::string, int64_t> categories;  // events by "cat" (phase letter for events without one)
    int64_t flow_events = 0;                    // "s"/"f"/"t" (ac2g, fwdbwd, async)
    int64_t counter_events = 0;                 // "C"
    int64_t metadata_events = 0;                // "M"
    int64_t instant_events = 0;                 // "i"/"I" other than [memory]
    ImportNotes notes;       // events skipped (with the first reasons and their byte offsets), negative durations
    int64_t bytes_read = 0;  // uncompressed JSON bytes
};

// Progress is reported in MiB of the file read (compressed bytes for .gz), against the file's size;
// cancel is polled after each batch of events (about 512 KiB).
ImportedTrace import_chrome_trace(const std::string& path, RunObserver* observer = nullptr);

// The files of one distributed run (several paths, or the *.json / *.json.gz of a folder): one trace
// whose events carry their file's rank (distributedInfo.rank; by position only when no file says its
// rank), so ranks get their own lanes, nesting and id links. The files are checked to be one run
// (io/trace_ranks.h). Throws TraceImportError naming the first file that cannot be read, MixedRunsError
// when the files are several runs.
ImportedTrace import_chrome_traces(const std::vector<std::string>& paths, RunObserver* observer = nullptr);

// Several traces each by itself, read two at a time (each file's progress said with its place). Throws
// as import_chrome_trace does, once both readers have stopped.
std::vector<ImportedTrace> import_chrome_trace_files(const std::vector<std::string>& paths,
                                                     RunObserver* observer = nullptr);

// The same files opened as the runs they make (one trace per run: a file, or the ranks of one run),
// in the order of their first files; one run gives one trace.
std::vector<ImportedTrace> import_chrome_trace_runs(const std::vector<std::string>& paths,
                                                    RunObserver* observer = nullptr);

// Traces already read from paths (parts[i] from paths[i]) as the one run they are; MixedRunsError when not.
ImportedTrace merge_rank_traces(std::vector<ImportedTrace> parts, const std::vector<std::string>& paths);

}  // namespace awb
