// The article's checklist before trusting a measurement, evaluated on what was measured: each item
// passes, fails or does not apply, with the reason in words (what was recorded, or what to run).
// Pure C++: no torch, no Qt.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/measurements.h"

namespace awb {

enum class ItemState { Pass, Fail, NotApplicable };
std::string to_string(ItemState s);  // "pass", "fail", "n/a"

struct ChecklistItem {
    std::string id;     // "environment", "scope", "warm-up", "collected", "lengths", "profiler-off", "numerical"
    std::string label;  // the article's wording
    ItemState state = ItemState::NotApplicable;
    std::string reason;  // what was recorded, or what is missing and how to get it
    bool operator==(const ChecklistItem&) const = default;
};

// The seven items in the article's order. The sweep and the check count for the run or benchmark when
// they cover its spec: a sweep's points of the same shape but N, a check of the same variant and dtype.
std::vector<ChecklistItem> measurement_checklist(const Measurements& m);

// How many finished points of the sweep lie on spec's curve (the same spec but for N): what decides
// whether a sweep counts for a run, and which of several sweeps does.
size_t points_on_curve(const SweepResult& sweep, const RunSpec& spec);

// "Checklist: 5 of 7 pass, 1 fails, 1 n/a\n  [pass] ...: reason" for the CLI.
std::string format_checklist(const std::vector<ChecklistItem>& items);
// [{"id", "label", "state", "reason"}]
nlohmann::json checklist_json(const std::vector<ChecklistItem>& items);
std::vector<ChecklistItem> checklist_from_json(const nlohmann::json& j);  // throws nlohmann's exceptions

}  // namespace awb
