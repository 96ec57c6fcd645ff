#include "analysis/range_max.h"

#include <algorithm>
#include <limits>

namespace awb {

RangeMax::RangeMax(const std::vector<int64_t>& curve) {
    if (curve.size() < 2 * kBlock) return;  // short: walked
    std::vector<int64_t> level((curve.size() + kBlock - 1) / kBlock);
    for (size_t i = 0; i < level.size(); ++i)
        level[i] = *std::max_element(curve.begin() + std::ptrdiff_t(i * kBlock),
                                     curve.begin() + std::ptrdiff_t(std::min(curve.size(), (i + 1) * kBlock)));
    levels_.push_back(std::move(level));
    while (levels_.back().size() > 1) {
        const std::vector<int64_t>& below = levels_.back();
        std::vector<int64_t> up((below.size() + 1) / 2);
        for (size_t i = 0; i < up.size(); ++i)
            up[i] = std::max(below[2 * i], 2 * i + 1 < below.size() ? below[2 * i + 1] : below[2 * i]);
        levels_.push_back(std::move(up));
    }
}

int64_t RangeMax::max(const std::vector<int64_t>& curve, size_t a, size_t b) const {
    const auto walk = [&curve](size_t from, size_t to, int64_t m) {
        for (size_t i = from; i < to; ++i) m = std::max(m, curve[i]);
        return m;
    };
    size_t l = (a + kBlock - 1) / kBlock, r = b / kBlock;  // the whole blocks inside [a, b)
    if (levels_.empty() || l >= r) return walk(a, b, std::numeric_limits<int64_t>::min());
    int64_t m = walk(r * kBlock, b, walk(a, l * kBlock, std::numeric_limits<int64_t>::min()));
    for (size_t k = 0; l < r; ++k, l /= 2, r /= 2) {
        if (l & 1) m = std::max(m, levels_[k][l++]);
        if (r & 1) m = std::max(m, levels_[k][--r]);
    }
    return m;
}

}  // namespace awb
