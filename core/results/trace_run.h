// From an imported trace to the run it describes: the one route every opener takes (attnwb inspect,
// diff and report, the workbench's File > Open, workspaces). For our own traces the spec, options,
// environment, steps, device peak and roof written with it; for other traces the events with what the
// trace records of where it ran (its GPUs, CUDA, ranks, the Kineto that wrote it). Pure C++.
#pragma once

#include <nlohmann/json.hpp>

#include "io/trace_import.h"
#include "model/profile_result.h"

namespace awb {

// The run, its events taken out of imported (whose trace is left empty): the import's other facts
// (event counts by category, skipped events, warnings, devices) stay there for the caller to show.
ProfileResult take_run(ImportedTrace& imported);
// The same for an import the caller no longer needs.
ProfileResult profile_result_from_import(ImportedTrace imported);
// The run our metadata in a trace describes (spec, options, environment, steps, device peak, roof),
// without its events; spec_known false when there is none. Metadata of another version, or fields of
// the wrong type, leave the rest at their defaults (the events still show).
ProfileResult run_of_metadata(const nlohmann::json& metadata);
// What a trace without our metadata records of where it ran: its GPUs (deviceProperties), CUDA runtime
// and driver, ranks (distributedInfo) and the Kineto versions and options it was written with.
Environment environment_of_import(const ImportedTrace& imported);

}  // namespace awb
