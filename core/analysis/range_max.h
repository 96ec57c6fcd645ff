// The largest value of a curve over any range of it, without walking the range: a chart's column covers
// thousands of a big snapshot's events (7M over 1,500 columns), and is drawn again at every repaint.
// Blocks of 64 values keep their maxima, in levels of pairs above them (about 2/64 of the curve);
// a range is its two partial blocks, walked, and the whole blocks between, a level at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace awb {

class RangeMax {
public:
    RangeMax() = default;  // none built: max() walks the range
    explicit RangeMax(const std::vector<int64_t>& curve);
    // The largest of curve[a, b), a < b <= curve.size(); CURVE is the one this was built from.
    int64_t max(const std::vector<int64_t>& curve, size_t a, size_t b) const;

private:
    static constexpr size_t kBlock = 64;
    std::vector<std::vector<int64_t>> levels_;  // [0][i]: the largest of block i; [k][i]: of [k-1][2i, 2i+2)
};

}  // namespace awb
