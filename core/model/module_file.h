// A user's attention module given as a file, as plain data: TorchScript (.pt, both LibTorch builds) or
// an AOTInductor package (.pt2, LibTorch 2.x). Its identity (path, size, sha256, format, the torch that
// exported it) goes into every result's environment; its metadata (written by
// scripts/export_attention.py) says how to call it and what it was compiled for. No torch here: the
// engine loads the module (engine/module_variant.h), this part reads files and checks specs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/run_spec.h"

namespace awb {

enum class ModuleFormat { TorchScript, AOTInductor };

// A variant string names a module file when it ends in .pt or .pt2; anything else is a built-in name.
bool is_module_path(std::string_view variant);
std::optional<ModuleFormat> module_format(std::string_view path);
std::string to_string(ModuleFormat f);  // "torchscript", "aotinductor"
// The variant's name in tables and charts: the file's stem ("./mine.pt2" -> "mine").
std::string module_stem(std::string_view path);

// The extra inputs a module may take after (q, k, v), in the order its metadata lists them:
//   keep_mask    bool [B, 1, Nq, Nk], true where a query may see a key (the spec's mask; all true without one)
//   key_lengths  int64 [B], the keys each batch entry has (seq_k without a padding mask)
const std::vector<std::string>& module_input_names();

// The metadata scripts/export_attention.py stores in the file (TorchScript: the extra file
// "attnwb.json"; AOTInductor: the package metadata key "attnwb.json"). Absent fields are unknown.
struct ModuleMetadata {
    bool present = false;  // the file had our metadata
    std::string name;      // the function or class exported
    std::string description;
    std::string torch_version;                    // of the torch that exported it
    std::optional<Layout> layout;                 // the layout of q, k, v and the output
    std::vector<std::string> inputs;              // extra inputs after (q, k, v), see module_input_names()
    std::string semantics;                        // "attention": softmax(QK^T/sqrt(D) + mask) V of the spec's mask;
                                                  // "custom": anything else (checked against a reference module)
    std::optional<MaskKind> mask;                 // a mask the module applies itself (the spec must say the same)
    int64_t window = 0;                           // ... its window, with MaskKind::Window
    std::string device;                           // .pt2: what it was compiled for ("cpu", "cuda")
    std::string dtype;                            // .pt2: the dtype its inputs were traced with
    int64_t seq_min = 0, seq_max = 0;             // the sequence lengths it accepts (0: unbounded); equal: static
    bool seq_equal = false;                       // exported with one dim for Nq and Nk: no cross attention
    std::map<std::string, int64_t> static_sizes;  // "batch", "heads", "kv_heads", "head_dim" fixed at export
    std::string reference;  // a sibling file to check it against (the .pt of a .pt2), relative to it
    bool operator==(const ModuleMetadata&) const = default;
};

// Parses the metadata's JSON text; problems name the file and the field.
ModuleMetadata parse_module_metadata(const std::string& json_text, const std::string& path,
                                     std::vector<SpecProblem>& problems);

// What in the spec the module cannot run, by the metadata alone (device, dtype, static sizes, the
// sequence range, the layout, unknown extra inputs, a mask it cannot apply or applies differently);
// each problem names the file. Pure: tested.
std::vector<SpecProblem> check_module_against_spec(const ModuleMetadata& meta, const RunSpec& spec,
                                                   const std::string& path);

// The extra inputs to pass: the spec's command-line list when given, else the metadata's.
std::vector<std::string> module_extra_inputs(const ModuleMetadata& meta, const RunSpec& spec);

struct ModuleIdentity {
    std::string name;    // stem, as in tables
    std::string path;    // absolute
    std::string format;  // to_string(ModuleFormat)
    int64_t size_bytes = -1;
    std::string sha256;       // hex
    std::string exported_by;  // "torch 2.11.0"; empty: unknown (no metadata)
    bool operator==(const ModuleIdentity&) const = default;
};

// "mine: /abs/mine.pt2 (aotinductor, 1.2 MiB, sha256 3f2a9c01d4e5, exported by torch 2.11.0)"
std::string describe_module(const ModuleIdentity& id);

// Size and sha256 of the file (read once); throws InvalidInput on field "variant" when it cannot be read.
ModuleIdentity identify_module(const std::string& path);

// The path made absolute (relative paths resolve against the current directory), so that shards,
// workspaces and the engine process find the same file.
std::string absolute_module_path(const std::string& path);

// Problems with the file itself, without loading it: extension, existence, a stem that names a built-in.
std::vector<SpecProblem> check_module_file(const std::string& path);

}  // namespace awb
