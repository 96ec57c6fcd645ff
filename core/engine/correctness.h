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

// Runs every named variant on spec's inputs and compares. tolerance <= 0 takes default_tolerance.
// Throws InvalidInput for a spec validate() refuses, Cancelled between variants.
CheckReport check_variants(const RunSpec& spec, const std::vector<std::string>& variants, double tolerance = 0,
                           RunObserver* observer = nullptr);

}  // namespace awb
