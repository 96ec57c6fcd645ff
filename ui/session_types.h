// The values a window's session holds: a run with its label and analysis, a sweep with its label.
// Shared by the session, the comparison and the sweep chart.
#pragma once

#include <QString>

#include <memory>

#include "analysis/run_analysis.h"
#include "analysis/sweep_analysis.h"
#include "model/profile_result.h"
#include "model/sweep.h"

namespace awb::ui {

struct NamedRun {
    QString label;  // "#2 sdpa 2x8x512x64 float32"
    std::shared_ptr<const ProfileResult> result;
    std::shared_ptr<const RunAnalysis> analysis;  // the run's, computed once; null: the comparison computes it
};

struct LabelledSweep {
    QString label;  // the file name, or for a sweep run in this window its spec and the time it started
    std::shared_ptr<const SweepResult> sweep;
    bool shown = true;  // on the chart (the session keeps the others, unchecked in the list)
    QString tag = {};   // short name on the chart's legend when several are shown ("S2"); empty: the label
    std::shared_ptr<const SweepAnalysis> analysis = {};  // analyze_sweep(*sweep), computed once (labelled_sweep)
};

// A sweep with its analysis, kept beside it as a run's RunAnalysis is: the chart, the findings and the
// files read this one value.
inline LabelledSweep labelled_sweep(QString label, std::shared_ptr<const SweepResult> sweep, bool shown = true,
                                    QString tag = {}) {
    auto analysis = std::make_shared<const SweepAnalysis>(analyze_sweep(*sweep));
    return {std::move(label), std::move(sweep), shown, std::move(tag), std::move(analysis)};
}

}  // namespace awb::ui
