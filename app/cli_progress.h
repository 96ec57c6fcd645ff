// Progress on stderr and Ctrl-C for the attnwb subcommands that run the engine.
#pragma once

#include <chrono>
#include <string>

#include "model/sweep.h"

namespace awb::cli {

// Prints "\r[done/total] what" on stderr (nothing when quiet) and handles Ctrl-C.
// A command that runs the engine (keep_finished): the first Ctrl-C finishes the current step and keeps
// what finished (a sweep's points, a benchmark's samples, a check's variants, a profile's recorded
// steps), which the command still prints and writes, exiting 130; the second stops at the next step or
// batch, still writing what finished; a third ends the process at once (a single step can run long).
// A command that reads files: the first Ctrl-C stops the read in progress (what was printed stays).
// SIGTERM (a scheduler's scancel, time limit or preemption) acts as the second Ctrl-C: stop at the
// next step, still writing what finished (exit 130); a repeated SIGTERM changes nothing.
class StderrProgress : public SweepObserver {
public:
    explicit StderrProgress(bool quiet, bool keep_finished = false);
    ~StderrProgress() override;
    void on_progress(int done, int total, const std::string& what) override;
    bool cancel_requested() const override;
    bool finish_requested() const override;
    bool interrupted() const;  // Ctrl-C was pressed at least once
    void end_line();           // finishes a pending progress line

private:
    bool quiet_;
    bool keep_finished_;
    bool tty_;
    bool line_open_ = false;
    std::chrono::steady_clock::time_point last_{};
};

}  // namespace awb::cli
