// The formats the workbench opens, in one table: how each is recognised and the kind of results it
// yields. Others' formats are told by the file's first bytes (a chrome trace: '[' or "traceEvents"; a
// CUDA memory snapshot: a pickle's header; a folder holds the traces of one run), our own files by the
// "schema" they write first. Each row names its reader, which fills a ResultsFile; open_results_file
// finds the row and calls it, and the CLI and the GUI ask the table rather than check formats of their
// own. A new format is its reader (results/results_readers.h), its row here and its fuzz target.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace awb {

class RunObserver;
struct ResultsFile;
struct SnapshotOptions;

enum class ResultsKind { Trace, ProfileReport, Bench, Sweep, Check, Workspace, MemorySnapshot };

// What a reader is given: the file, the caller's observer (progress, cancel), the replay of a memory
// snapshot asked for (may be null), and for our own formats the JSON already parsed to read its schema.
struct ResultsRead {
    const std::string& path;
    RunObserver* observer = nullptr;
    const SnapshotOptions* snapshot_replay = nullptr;
    const nlohmann::json* json = nullptr;
};

struct ResultsFormat {
    ResultsKind kind;
    const char* name;    // in messages: "chrome trace", "profile report", ...
    const char* schema;  // ours: the "schema" it writes ("attention-workbench/sweep"); nullptr for others'
    bool (*recognises)(const std::string& path);  // others': from the file's first bytes; nullptr for ours
    // Fills the file's content (the path and kind are set); its messages name the file.
    void (*read)(const ResultsRead& request, ResultsFile& out);
};

// Every format, in the order they are tried (others' first: a trace is never parsed whole to find a schema).
// Several formats may yield one kind (another trace format would be a second Trace row): callers act on
// the kind, so such a format needs no change outside its reader, its row and its fuzz target.
const std::vector<ResultsFormat>& results_formats();

// The kind's name in messages, its first format's: "chrome trace", "profile report", "benchmark", "sweep",
// "correctness check", "workspace", "memory snapshot"
std::string to_string(ResultsKind kind);

// The row of others' format that path holds, told from its first bytes without reading it (a folder:
// traces); null for a JSON file of ours (told by its schema once read) and for anything unknown. Reads
// nothing from a pipe (its bytes are its reader's).
const ResultsFormat* recognised_format(const std::string& path);
std::optional<ResultsKind> recognised_kind(const std::string& path);  // recognised_format's kind

// The row of our format that writes this "schema" ("attention-workbench/sweep"); null when none does.
const ResultsFormat* schema_format(const std::string& schema);
std::optional<ResultsKind> kind_of_schema(const std::string& schema);  // schema_format's kind

}  // namespace awb
