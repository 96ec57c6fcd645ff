#include "analysis/intervals.h"

#include <algorithm>

namespace awb {

Union merged(const std::vector<TimeSpan>& intervals, int64_t lo, int64_t hi) {
    Union out;
    for (auto [s, e] : intervals) {
        s = std::max(s, lo);
        e = std::min(e, hi);
        if (e > s) out.emplace_back(s, e);
    }
    std::sort(out.begin(), out.end());
    size_t n = 0;
    for (const TimeSpan& iv : out) {
        if (n > 0 && iv.first <= out[n - 1].second)
            out[n - 1].second = std::max(out[n - 1].second, iv.second);
        else
            out[n++] = iv;
    }
    out.resize(n);
    return out;
}

int64_t length(const Union& u) {
    int64_t total = 0;
    for (const auto& [s, e] : u) total += e - s;
    return total;
}

int64_t length_outside(const Union& a, const Union& b) {
    int64_t total = 0;
    size_t j = 0;
    for (const auto& [s, e] : a) {
        while (j < b.size() && b[j].second <= s) ++j;
        int64_t covered = 0;
        for (size_t k = j; k < b.size() && b[k].first < e; ++k)
            covered += std::min(e, b[k].second) - std::max(s, b[k].first);
        total += (e - s) - covered;
    }
    return total;
}

}  // namespace awb
