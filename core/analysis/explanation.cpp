#include "analysis/explanation.h"

namespace awb {

Explanation explain(const Measurements& m) { return {advise(m), measurement_checklist(m)}; }

}  // namespace awb
