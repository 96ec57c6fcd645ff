// Progress on stderr and Ctrl-C for the attnwb subcommands that run the engine.
#pragma once

#include <chrono>
#include <string>

#include "model/sweep.h"

namespace awb::cli {

// Prints "\r[done/total] what" on stderr (nothing when quiet). Ctrl-C cancels between steps; with
// finish_point, the first Ctrl-C lets a sweep finish its current point and the second cancels at once.
class StderrProgress : public SweepObserver {
public:
    explicit StderrProgress(bool quiet, bool finish_point = false);
    ~StderrProgress() override;
    void on_progress(int done, int total, const std::string& what) override;
    bool cancel_requested() const override;
    bool stop_between_points() const override;
    bool interrupted() const;  // Ctrl-C was pressed at least once
    void end_line();           // finishes a pending progress line

private:
    bool quiet_;
    bool finish_point_;
    bool tty_;
    bool line_open_ = false;
    std::chrono::steady_clock::time_point last_{};
};

}  // namespace awb::cli
