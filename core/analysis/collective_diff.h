// Two runs' collectives side by side (attnwb diff): per kind of collective (name and process group)
// how many, how big, how long the transfer, the bus bandwidth, the skew and the waiting in A and B; the
// straggler of each; per rank the communication and the part exposed. Pure C++.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "analysis/collectives.h"
#include "analysis/comm_overlap.h"

namespace awb {

struct CollectiveDiffRow {
    std::string name, group;
    CollectiveKindSum a, b;
    bool operator==(const CollectiveDiffRow&) const = default;
};

struct RankCommDiff {
    int32_t rank = -1;
    int64_t comm_a_ns = 0, exposed_a_ns = 0, comm_b_ns = 0, exposed_b_ns = 0;
    bool in_a = false, in_b = false;
    bool operator==(const RankCommDiff&) const = default;
};

struct CollectiveDiff {
    std::vector<CollectiveDiffRow> rows;  // by |wait B - wait A| + |transfer B - transfer A|, largest first
    std::vector<RankCommDiff> ranks;
    int32_t straggler_a = -1, straggler_b = -1;
    bool empty() const { return rows.empty() && ranks.empty(); }
    bool operator==(const CollectiveDiff&) const = default;
};

CollectiveDiff diff_collectives(const CollectiveReport& a, const OverlapReport& oa, const CollectiveReport& b,
                                const OverlapReport& ob);
std::string format_collective_diff(const CollectiveDiff& d, size_t rows);
nlohmann::json collective_diff_json(const CollectiveDiff& d);

}  // namespace awb
