// What reading a trace file left out or found odd, kept with the run it became (model/profile_result.h)
// so that every view of the run can say it: the events skipped (a field of the wrong type) with the
// first reasons and their byte offsets, the durations that were negative (drawn as 0), and what the
// files of a run of several ranks say of each other. Empty for a run of our own. Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace awb {

struct ImportNotes {
    int64_t skipped_events = 0;         // events left out
    std::vector<std::string> warnings;  // the first few reasons, "event at byte offset N skipped: ..."
    int64_t negative_durations = 0;     // complete events with "dur" < 0: a clock that went back
    // What the files of a run of several ranks say of each other: ranks of the run not in the files,
    // metadata a file lacks, ranks numbered by position, clocks aligned (io/trace_ranks.h).
    std::vector<std::string> run;
    bool operator==(const ImportNotes&) const = default;
};

}  // namespace awb
