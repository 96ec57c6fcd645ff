// A user's attention module as a variant: TorchScript (.pt, torch::jit::load) or an AOTInductor
// package (.pt2, torch::inductor::AOTIModelPackageLoader, LibTorch 2.x). Loaded once per process and
// device, checked against the spec before it runs (metadata, arity, then the first output's shape),
// called as forward(q, k, v[, keep_mask][, key_lengths]) in the spec's layout. Includes ATen.
#pragma once

#include <memory>
#include <string>

#include "engine/variants.h"
#include "model/environment.h"
#include "model/module_file.h"

namespace awb {

// The variant for spec.module; throws InvalidInput (field "variant") when the file cannot be loaded.
std::unique_ptr<AttentionVariant> make_module_variant(const RunSpec& spec);

// The module's metadata (loading it, once per process); problems name the file.
ModuleMetadata module_metadata(const RunSpec& spec);

// Identity of the file, hashed once per process (per path, size and modification time), with the
// exporting torch from its metadata when it loads.
ModuleIdentity module_identity(const std::string& path);

// Whether the module's forward can be differentiated: TorchScript yes, AOTInductor's compiled code no.
bool module_has_backward(const RunSpec& spec);

// The module run as a float64 reference: the same TorchScript module (or the one named by
// reference_path, or the metadata's "reference" sibling of a .pt2). Throws InvalidInput when there is
// none. describe receives the words the check report shows.
std::unique_ptr<AttentionVariant> make_module_reference(const RunSpec& spec, const std::string& reference_path,
                                                        std::string& describe);

}  // namespace awb
