#include "results/idle_json.h"

namespace awb {

namespace {

nlohmann::json rows_json(const std::vector<StreamIdle>& rows) {
    nlohmann::json out = nlohmann::json::array();
    for (const StreamIdle& r : rows)
        out.push_back({{"rank", r.rank},
                       {"step", r.step},
                       {"stream", r.stream},
                       {"device", r.device_index},
                       {"gaps", r.gaps},
                       {"host_wait_ns", r.host_wait_ns},
                       {"kernel_wait_ns", r.kernel_wait_ns},
                       {"other_ns", r.other_ns}});
    return out;
}

}  // namespace

nlohmann::json idle_json(const IdleReport& report) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& [rank, covered] : report.hta_steps) steps.push_back({{"rank", rank}, {"steps", covered}});
    nlohmann::json gaps = nlohmann::json::array();
    for (const IdleGap& g : report.longest)
        gaps.push_back({{"rank", g.rank},
                        {"stream", g.stream},
                        {"start_ns", g.start_ns},
                        {"duration_ns", g.duration_ns()},
                        {"cause", to_string(g.cause)},
                        {"held_by", g.held_by},
                        {"python_frame", g.python_frame}});
    return {{"idle", rows_json(report.rows)},
            {"idle_hta", {{"steps", steps}, {"rows", rows_json(report.hta)}}},
            {"idle_gaps", gaps}};
}

}  // namespace awb
