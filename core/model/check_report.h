// The result of a correctness check as a value: per variant, the normwise error of the output and
// the q/k/v gradients against a float64 reference, and the mask checks; the tolerance per dtype.
#pragma once

#include <string>
#include <vector>

#include "model/environment.h"
#include "model/run_spec.h"

namespace awb {

// The error measure is normwise: max|x - ref| / max|ref| over a tensor, so that the loss's 1/numel
// scale of the gradients does not matter. Tolerances per dtype: float64 1e-10, float32 1e-5,
// bfloat16 4e-2, float16 5e-3 (a few units of the format's epsilon times sqrt of the reduction).
double default_tolerance(Dtype dtype);

struct TensorError {
    std::string name;          // "output", "grad_q", "grad_k", "grad_v"
    double max_abs_error = 0;  // max |x - ref|
    double max_rel_error = 0;  // max |x - ref| / |ref| over entries with |ref| >= 1e-3 max|ref|
    double ref_max_abs = 0;    // max |ref|
    double error = 0;          // max_abs_error / ref_max_abs: the number compared to the tolerance
    bool finite = true;        // no NaN/inf where the reference is finite
    bool passed = false;
    bool operator==(const TensorError&) const = default;
};

struct MaskCheck {
    std::string name;  // "padded keys get no gradient", "rows that see no key"
    bool passed = false;
    std::string detail;  // what was observed
    bool operator==(const MaskCheck&) const = default;
};

struct VariantCheck {
    std::string variant;
    std::string failure;  // non-empty when the variant could not run
    std::vector<TensorError> tensors;
    std::vector<MaskCheck> mask_checks;
    bool passed = false;
    std::string reference;  // what it was compared with ("the float64 manual formula with the spec's mask", a module)
    std::string note;       // what was not compared, and why (an AOTInductor module has no backward)
    bool operator==(const VariantCheck&) const = default;
};

struct CheckReport {
    RunSpec spec;  // the spec checked (always in train mode: gradients are compared too)
    Environment environment;
    double tolerance = 0;
    std::vector<VariantCheck> variants;
    bool interrupted = false;  // stopped early: the variants checked so far
    bool all_passed() const;
    bool operator==(const CheckReport&) const = default;
};

}  // namespace awb
