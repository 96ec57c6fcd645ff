// A hash of 64-bit keys with their bits mixed (murmur3's finaliser), for the open-addressing maps of
// the analysis (tsl::robin_map, power-of-two tables that index by the low bits): a caching allocator's
// addresses are multiples of 512, and a link key's rank sits in its top bits, so their low bits alone
// would crowd a few buckets.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tsl/robin_map.h>

namespace awb {

struct MixedHash {
    size_t operator()(int64_t key) const {
        uint64_t h = uint64_t(key);
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdull;
        return size_t(h ^ (h >> 33));
    }
};

// An open-addressing map by 64-bit key (an address, a link key).
template <class V>
using MixedMap = tsl::robin_map<int64_t, V, MixedHash>;

}  // namespace awb
