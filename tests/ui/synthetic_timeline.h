// Synthetic timelines for the UI tests and the paint benchmark: lanes of nested spans (a parent of
// 1000 ns with 2 children with 2 children each), as dense as a long profile.
#pragma once

#include "timeline_data.h"

namespace awb::ui::test {

inline TimelineData synthetic_timeline(size_t spans, int lanes = 8) {
    TimelineData d;
    d.names = {"aten::linear", "aten::matmul", "aten::softmax", "aten::mm", "aten::add_", "aten::copy_", "aten::bmm"};
    const size_t parents = std::max<size_t>(1, spans / 7 / size_t(lanes));
    for (int l = 0; l < lanes; ++l) {
        TimelineLane lane;
        lane.title = "CPU thread " + std::to_string(l);
        lane.levels.resize(3);
        for (auto& level : lane.levels) level.spans.reserve(parents * 4);
        for (size_t p = 0; p < parents; ++p) {
            const int64_t t = int64_t(p) * 1100 + l * 7;
            const auto name = int32_t(p % 3);
            lane.levels[0].spans.push_back({t, t + 1000, name, -1});
            for (int c = 0; c < 2; ++c) {
                const int64_t ct = t + 50 + c * 480;
                lane.levels[1].spans.push_back({ct, ct + 400, int32_t(3 + c), -1});
                for (int g = 0; g < 2; ++g) {
                    const int64_t gt = ct + 20 + g * 190;
                    lane.levels[2].spans.push_back({gt, gt + 150, int32_t(5 + g), -1});
                }
            }
        }
        d.lanes.push_back(std::move(lane));
    }
    d.start_ns = 0;
    d.end_ns = int64_t(parents) * 1100 + 100;
    return d;
}

}  // namespace awb::ui::test
