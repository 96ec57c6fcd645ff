// How a long core job reports progress and learns it should stop, without knowing about threads or
// signals: the CLI prints, the GUI's worker forwards to the GUI thread.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "model/run_spec.h"

namespace awb {

class RunObserver {
public:
    virtual ~RunObserver() = default;
    // done of total units finished; what: a short label ("step 3/5 (record)").
    virtual void on_progress(int done, int total, const std::string& what) { (void)done, (void)total, (void)what; }
    // Polled between steps; returning true stops the job with Cancelled.
    virtual bool cancel_requested() const { return false; }
    // Polled where a job can end early and keep what it finished (a sweep between points, a benchmark
    // between samples, a check between variants, a profile between steps once one was recorded): true
    // ends it there, marked interrupted. Ctrl-C once in the CLI; cancel_requested() stops at once.
    virtual bool finish_requested() const { return cancel_requested(); }
};

// A spec or option the engine refuses; problems names each field.
class InvalidInput : public std::runtime_error {
public:
    explicit InvalidInput(std::vector<SpecProblem> problems)
        : std::runtime_error(format_problems(problems)), problems_(std::move(problems)) {}
    const std::vector<SpecProblem>& problems() const { return problems_; }

private:
    std::vector<SpecProblem> problems_;
};

class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

// The one cancel poll of every long job: throws Cancelled when the observer (may be null) asks.
inline void throw_if_cancelled(const RunObserver* observer) {
    if (observer && observer->cancel_requested()) throw Cancelled();
}

// LibTorch (or the system) failed while running a valid spec; what() carries its message.
class RunFailed : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace awb
