// What the workbench says about a measurement, wherever it says it (attnwb's commands, the GUI's
// Findings dock, the HTML report): the advisor's findings and the measurement checklist, made together
// from the same Measurements. Pure C++: no torch, no Qt.
#pragma once

#include <vector>

#include "analysis/advisor.h"
#include "analysis/checklist.h"

namespace awb {

struct Explanation {
    std::vector<Finding> findings;         // advise(m): heaviest first
    std::vector<ChecklistItem> checklist;  // measurement_checklist(m): the seven items in the article's order
    bool operator==(const Explanation&) const = default;
};

Explanation explain(const Measurements& m);

}  // namespace awb
