// Stage 5 of the trace importer, the rank merge: the traces of one distributed run's ranks as one
// trace whose events carry their own rank, so ranks get their own lanes, nesting and id links.
//
// First the files are checked to be one run: each says its rank, world size, backend and process
// groups (distributedInfo) and has a clock (its events' times). Files that contradict each other (a
// world size or backend of their own, a process group with other ranks, a rank another file holds,
// events an hour apart from the others') are another run, and several runs are refused by name with
// the reason (MixedRunsError), never renumbered; or opened each by itself when the caller asks
// (group_rank_files). What a file lacks is a note, not a refusal (ImportNotes::run): a subset of a
// run's ranks opens as that run, saying which ranks are missing. Only when no file says its rank are
// they numbered by their position, and that is said too.
#pragma once

#include <string>
#include <vector>

#include "io/trace_import.h"

namespace awb::trace_io {

// Ranks whose events lie further apart than this were not recorded together: another clock (epoch
// microseconds beside a trace's own zero) or another time.
inline constexpr int64_t kSameRunClockGapNs = int64_t(600) * 1'000'000'000;  // 10 minutes

// The files of one run, and what it is ("ranks 0, 1 of 128 (nccl)").
struct RankRun {
    std::vector<size_t> files;  // positions in the parts, in the order given
    std::string label;
    std::string why_apart;  // for every run but the first: why its files are not the first run's ranks
    bool ranked = true;     // false: files that say no rank (numbered by position when alone)
};

// The runs the parts make, the first file's first (one run: they are one run's ranks).
std::vector<RankRun> group_rank_files(const std::vector<ImportedTrace>& parts, const std::vector<std::string>& paths);

// The refusal of files that are not one run: what() lists each run with its files and the reason.
std::string mixed_runs_message(const std::vector<RankRun>& runs, const std::vector<std::string>& paths);

// parts[i] was read from paths[i] (named in the notes), and group_rank_files found them one run; at
// least two parts.
ImportedTrace merge_ranks(std::vector<ImportedTrace> parts, const std::vector<std::string>& paths);

}  // namespace awb::trace_io
