// Grouping indices by a small key while keeping their order: what std::stable_sort by that key gives,
// as a counting sort in O(n + k log k) for k distinct keys (a trace's threads and streams: a handful).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace awb {

// The indices i in [0, n) for which key_of(i) (a std::optional<Key>) holds a key, ordered by that key
// ascending and, within a key, by i.
template <class Key, class KeyOf>
std::vector<int32_t> stable_group(size_t n, KeyOf key_of) {
    std::vector<Key> keys;
    for (size_t i = 0; i < n; ++i)
        if (const std::optional<Key> k = key_of(i); k && (keys.empty() || keys.back() != *k)) keys.push_back(*k);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    constexpr uint32_t kNone = UINT32_MAX;
    std::vector<uint32_t> group(n, kNone);
    std::vector<size_t> next(keys.size() + 1, 0);
    for (size_t i = 0; i < n; ++i)
        if (const std::optional<Key> k = key_of(i)) {
            group[i] = uint32_t(std::lower_bound(keys.begin(), keys.end(), *k) - keys.begin());
            ++next[group[i] + 1];
        }
    for (size_t g = 0; g < keys.size(); ++g) next[g + 1] += next[g];
    std::vector<int32_t> order(next.back());
    for (size_t i = 0; i < n; ++i)
        if (group[i] != kNone) order[next[group[i]]++] = int32_t(i);
    return order;
}

}  // namespace awb
