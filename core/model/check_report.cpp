#include "model/check_report.h"

#include <algorithm>

namespace awb {

double default_tolerance(Dtype dtype) {
    switch (dtype) {
        case Dtype::Float64: return 1e-10;
        case Dtype::Float32: return 1e-5;
        case Dtype::BFloat16: return 4e-2;
        case Dtype::Float16: return 5e-3;
    }
    return 1e-5;
}

bool CheckReport::all_passed() const {
    return !variants.empty() && std::all_of(variants.begin(), variants.end(), [](auto& v) { return v.passed; });
}

}  // namespace awb
