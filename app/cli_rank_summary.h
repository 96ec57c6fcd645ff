// attnwb inspect's --rank (one rank of a run shown by itself) and --summary (a rank's summary written
// where the rank's trace lies, to be opened with the other ranks' summaries: analysis/rank_summary.h).
#pragma once

#include <string>

#include "results/results_file.h"

namespace awb::cli {

// f's run narrowed to rank (of a run of several, or the one rank a file says it is). False with why
// when the run does not hold that rank.
bool select_rank(ResultsFile& f, int32_t rank, std::string& why);

// Writes the summary of f (one rank: a file of one rank, or a run narrowed by --rank) to path (.gz:
// compressed) and returns what to print; throws std::runtime_error naming what is wrong (a run of
// several ranks, a file that cannot be written).
std::string write_rank_summary(const ResultsFile& f, const std::string& path);

}  // namespace awb::cli
