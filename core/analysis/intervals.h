// Unions of time intervals, as the GPU time breakdown and the communication overlap measure them:
// merged (sorted, disjoint; touching intervals joined), their length, and the part of one outside or
// inside another. Pure C++.
#pragma once

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace awb {

using TimeSpan = std::pair<int64_t, int64_t>;  // [start, end) in ns
using Union = std::vector<TimeSpan>;           // sorted, disjoint, non-empty intervals

// The union of the intervals clipped to [lo, hi].
Union merged(const std::vector<TimeSpan>& intervals, int64_t lo = std::numeric_limits<int64_t>::min(),
             int64_t hi = std::numeric_limits<int64_t>::max());
int64_t length(const Union& u);
int64_t length_outside(const Union& a, const Union& b);                                                    // |a \ b|
inline int64_t length_inside(const Union& a, const Union& b) { return length(a) - length_outside(a, b); }  // |a ∩ b|

}  // namespace awb
