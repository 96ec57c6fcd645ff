// The values a window's session holds: a run with its label and analysis, a sweep with its label.
// Shared by the session, the comparison and the sweep chart.
#pragma once

#include <QString>

#include <memory>

#include "analysis/run_analysis.h"
#include "model/profile_result.h"
#include "model/sweep.h"

namespace awb::ui {

struct NamedRun {
    QString label;  // "#2 sdpa 2x8x512x64 float32"
    std::shared_ptr<const ProfileResult> result;
    std::shared_ptr<const RunAnalysis> analysis;  // the run's, computed once; null: the comparison computes it
};

struct LabelledSweep {
    QString label;  // the file name, or "this run" for the sweep run in this window
    std::shared_ptr<const SweepResult> sweep;
};

}  // namespace awb::ui
