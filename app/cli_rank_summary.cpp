// --rank and --summary of attnwb inspect (see the header).
#include "cli_rank_summary.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "analysis/rank_summary.h"
#include "model/units.h"
#include "results/chrome_trace.h"

namespace awb::cli {

namespace {

std::string ranks_list(const std::vector<int32_t>& ranks) {
    std::string out;
    for (int32_t r : ranks) out += (out.empty() ? "" : " ") + std::to_string(r);
    return out;
}

}  // namespace

bool select_rank(ResultsFile& f, int32_t rank, std::string& why) {
    const std::vector<int32_t>& ranks = f.run->trace.meta().ranks;
    if (ranks.size() > 1) {
        if (std::find(ranks.begin(), ranks.end(), rank) == ranks.end()) {
            why = "--rank " + std::to_string(rank) + ": the run holds ranks " + ranks_list(ranks);
            return false;
        }
        f.run = run_of_rank(*f.run, rank);
        f.import->rank = rank;
        return true;
    }
    const int32_t own = ranks.size() == 1 ? ranks.front() : f.import->rank;
    if (own != rank) {
        why = "--rank " + std::to_string(rank) + ": " +
              (own >= 0 ? "the file is rank " + std::to_string(own) : "the file says no rank");
        return false;
    }
    return true;
}

std::string write_rank_summary(const ResultsFile& f, const std::string& path) {
    const ImportedTrace& t = *f.import;
    const std::vector<int32_t>& ranks = f.run->trace.meta().ranks;
    if (ranks.size() > 1)
        throw std::runtime_error("--summary: the run holds ranks " + ranks_list(ranks) +
                                 ": choose the one to summarise with --rank");
    const RankSummary s = summarize_rank(f.run->trace);
    const int32_t rank = ranks.size() == 1 ? ranks.front() : t.rank;
    write_rank_file(s.trace, t, rank, {{"of", f.path}, {"kept", rank_summary_text(s)}}, path);
    return "summary of " + (rank >= 0 ? "rank " + std::to_string(rank) + " of " : std::string()) + f.path +
           " written to " + path + " (" + format_bytes(int64_t(std::filesystem::file_size(path))) +
           "): " + rank_summary_text(s) + "\n";
}

}  // namespace awb::cli
