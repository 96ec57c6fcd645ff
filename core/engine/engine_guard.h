// What every engine entry point does around its work: refuse invalid input with every problem at
// once, and turn LibTorch's (or any) failure into RunFailed naming what was being done. For the
// core's torch translation units.
#pragma once

#include <c10/util/Exception.h>

#include <string>
#include <utility>

#include "engine/device_caps.h"
#include "model/run_observer.h"

namespace awb {

// Throws InvalidInput listing the spec's and the options' problems together.
template <typename Options>
void validate_or_throw(const RunSpec& spec, const Options& options) {
    auto problems = validate(spec, query_device_caps());
    for (auto& p : validate(options)) problems.push_back(std::move(p));
    if (!problems.empty()) throw InvalidInput(std::move(problems));
}

// Runs work(); Cancelled and InvalidInput pass through, anything else becomes RunFailed("<doing>: <message>").
template <typename Work>
void translate_failures(const std::string& doing, Work&& work) {
    try {
        std::forward<Work>(work)();
    } catch (const Cancelled&) {
        throw;
    } catch (const InvalidInput&) {  // found only when running (an SDPA backend with no kernel for the spec)
        throw;
    } catch (const c10::Error& e) {
        throw RunFailed("LibTorch error while " + doing + ": " + e.what_without_backtrace());
    } catch (const std::exception& e) {
        throw RunFailed("error while " + doing + ": " + e.what());
    }
}

}  // namespace awb
