#include "model/profile_result.h"

#include "model/bench_stats.h"

namespace awb {

std::string kineto_cycle_path(const std::string& path, int cycle) {
    if (cycle == 0) return path;
    const std::string suffix = ".cycle" + std::to_string(cycle + 1);
    const std::string ext = ".json";
    if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0)
        return path.substr(0, path.size() - ext.size()) + suffix + ext;
    return path + suffix;
}

double median_recorded_step_ns(const ProfileResult& r) {
    std::vector<double> times;
    for (const auto& st : r.steps)
        if (st.action == ScheduleAction::Record || st.action == ScheduleAction::RecordAndSave)
            times.push_back(double(st.wall_ns));
    return times.empty() ? -1 : quantile(times, 0.5);
}

}  // namespace awb
