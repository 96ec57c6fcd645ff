// The formats the workbench opens, in one table: how each is recognised and the kind of results it
// yields. Others' formats are told by the file's first bytes (a chrome trace: '[' or "traceEvents"; a
// CUDA memory snapshot: a pickle's header; a folder holds the traces of one run), our own files by the
// "schema" they write first. open_results_file reads by it; the CLI and the GUI ask it rather than
// check formats of their own. A new format is its row here and its reader in open_results_file.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace awb {

enum class ResultsKind { Trace, ProfileReport, Bench, Sweep, Check, Workspace, MemorySnapshot };

struct ResultsFormat {
    ResultsKind kind;
    const char* name;    // in messages: "chrome trace", "profile report", ...
    const char* schema;  // ours: the "schema" it writes ("attention-workbench/sweep"); nullptr for others'
    bool (*recognises)(const std::string& path);  // others': from the file's first bytes; nullptr for ours
};

// Every format, in the order they are tried (others' first: a trace is never parsed whole to find a schema).
const std::vector<ResultsFormat>& results_formats();

// "chrome trace", "profile report", "benchmark", "sweep", "correctness check", "workspace",
// "memory snapshot"
std::string to_string(ResultsKind kind);

// The kind of others' format that path holds, from its first bytes without reading it (a folder: traces);
// nullopt for a JSON file of ours (told by its schema once read) and for anything unknown. Reads
// nothing from a pipe (its bytes are its reader's).
std::optional<ResultsKind> recognised_kind(const std::string& path);

// Our file's kind from its "schema" ("attention-workbench/sweep"); nullopt when no format writes it.
std::optional<ResultsKind> kind_of_schema(const std::string& schema);

}  // namespace awb
