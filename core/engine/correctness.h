// Correctness of the attention variants: each one against a float64 evaluation of the manual formula
// (the article's three lines) on the same inputs, for the output and the q/k/v gradients, plus the
// mask semantics (padded keys get no gradient; rows that see no key). No torch in this header.
#pragma once

#include <string>
#include <vector>

#include "model/check_report.h"
#include "model/run_observer.h"
#include "model/run_spec.h"

namespace awb {

// Runs every named variant (a built-in's name or a module file) on spec's inputs and compares.
// tolerance <= 0 takes default_tolerance. A module whose metadata says semantics "attention" is compared
// with the float64 manual formula of the spec's mask; any other with a TorchScript module run in
// float64: reference_module when given, else itself (.pt) or the TorchScript export its metadata
// names (.pt2). Each VariantCheck says which. Throws InvalidInput for a spec validate() refuses,
// Cancelled between variants.
CheckReport check_variants(const RunSpec& spec, const std::vector<std::string>& variants, double tolerance = 0,
                           RunObserver* observer = nullptr, const std::string& reference_module = "");

}  // namespace awb
