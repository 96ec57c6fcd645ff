#include "model/sweep_shard.h"

#include <algorithm>
#include <charconv>
#include <numeric>

#include "model/attention_cost.h"

namespace awb {

namespace {

std::optional<long long> parse_integer(const std::string& text) {
    long long v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc{} || p != end || text.empty()) return std::nullopt;
    return v;
}

// Checks index < count, count >= 1; `what` names where the numbers came from.
std::optional<SweepShard> make_shard(long long index, long long count, const std::string& what, std::string& error) {
    if (count < 1 || count > 1'000'000) {
        error = what + ": the number of shards must be 1 to 1000000, not " + std::to_string(count);
        return std::nullopt;
    }
    if (index < 0 || index >= count) {
        error = what + ": shard " + std::to_string(index) + " is not one of 0.." + std::to_string(count - 1) +
                " (shards count from 0)";
        return std::nullopt;
    }
    return SweepShard{int(index), int(count), ""};
}

// Nominal speeds per device kind (FLOP/s by element size, bytes/s, per-iteration overhead). They only
// rank points against each other and against the bench's fixed time budget; they need not be right
// for any one machine, only the same on all of them.
struct NominalSpeed {
    double flops_per_s, bytes_per_s, overhead_s;
};

NominalSpeed nominal_speed(const RunSpec& s) {
    const bool wide = element_size(s.dtype) >= 8;
    if (s.device.kind == DeviceKind::CUDA) return {wide ? 50e12 : 400e12, 3e12, 30e-6};
    return {wide ? 25e9 : 50e9, 20e9, 20e-6};
}

}  // namespace

std::optional<SweepShard> parse_shard(const std::string& text, std::string& error) {
    const auto slash = text.find('/');
    const auto k = slash == std::string::npos ? std::nullopt : parse_integer(text.substr(0, slash));
    const auto n = slash == std::string::npos ? std::nullopt : parse_integer(text.substr(slash + 1));
    if (!k || !n) {
        error = "--shard: '" + text + "' is not K/N (shard K of N, K from 0, e.g. 0/4)";
        return std::nullopt;
    }
    auto shard = make_shard(*k, *n, "--shard " + text, error);
    if (shard) shard->chosen_by = "--shard";
    return shard;
}

std::optional<SweepShard> shard_from_environment(const EnvironmentLookup& get, std::string& error) {
    auto value = [&](const char* name, long long& out) {
        const char* v = get(name);
        if (!v) return false;
        const auto parsed = parse_integer(v);
        if (!parsed) {
            error = std::string("environment variable ") + name + "='" + v + "' is not an integer";
            return false;
        }
        out = *parsed;
        return true;
    };
    long long rank = 0, world = 0;
    if (get("WORLD_SIZE") || get("RANK")) {
        if (!value("RANK", rank) || !value("WORLD_SIZE", world)) {
            if (error.empty()) error = "RANK and WORLD_SIZE must be set together (torchrun sets both)";
            return std::nullopt;
        }
        auto shard =
            make_shard(rank, world, "RANK=" + std::to_string(rank) + " WORLD_SIZE=" + std::to_string(world), error);
        if (shard) shard->chosen_by = "RANK/WORLD_SIZE";
        return shard;
    }
    long long id = 0, count = 0, min = 0, step = 1;
    if (!get("SLURM_ARRAY_TASK_ID")) return std::nullopt;
    if (!value("SLURM_ARRAY_TASK_ID", id)) return std::nullopt;
    if (!get("SLURM_ARRAY_TASK_COUNT")) {
        error = "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not (Slurm 17.11 or later sets both)";
        return std::nullopt;
    }
    if (!value("SLURM_ARRAY_TASK_COUNT", count)) return std::nullopt;
    if (get("SLURM_ARRAY_TASK_MIN") && !value("SLURM_ARRAY_TASK_MIN", min)) return std::nullopt;
    if (get("SLURM_ARRAY_TASK_STEP") && !value("SLURM_ARRAY_TASK_STEP", step)) return std::nullopt;
    if (step < 1) step = 1;
    const std::string what = "SLURM_ARRAY_TASK_ID=" + std::to_string(id) + " (min " + std::to_string(min) + ", step " +
                             std::to_string(step) + ") of SLURM_ARRAY_TASK_COUNT=" + std::to_string(count);
    if ((id - min) % step != 0) {
        error = what + ": the id is not on the array's step";
        return std::nullopt;
    }
    auto shard = make_shard((id - min) / step, count, what, error);
    if (shard) shard->chosen_by = "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT";
    return shard;
}

double expected_point_seconds(const RunSpec& s, const SweepPlan& plan) {
    const NominalSpeed speed = nominal_speed(s);
    const double bytes = attention_bytes(s, s.variant == "chunked" ? BytesModel::Chunked : BytesModel::Scores);
    const double iteration =
        std::max(attention_flops(s) / speed.flops_per_s, bytes / speed.bytes_per_s) + speed.overhead_s;
    const BenchOptions& b = plan.bench;
    const double sample = std::max(iteration, b.min_sample_s);
    double seconds = 0.05                                            // inputs, dispatch set-up
                     + iteration * (1 + b.warmup)                    // cold + warm-up
                     + std::max(b.budget_s, sample * b.min_repeats)  // the timed samples
                     + (b.measure_memory ? iteration : 0.0);
    if (plan.profile) seconds += 0.2 + 2.0 * iteration * total_steps(plan.profile_options);
    return seconds;
}

namespace {

// Each point's expected seconds, in expand(plan)'s order.
std::vector<double> point_costs(const SweepPlan& plan) {
    const std::vector<RunSpec> specs = expand(plan);
    std::vector<double> cost(specs.size());
    for (size_t i = 0; i < specs.size(); ++i) cost[i] = expected_point_seconds(specs[i], plan);
    return cost;
}

std::vector<std::vector<int>> split_by_cost(const std::vector<double>& cost, int count) {
    count = std::max(count, 1);
    std::vector<int> order(cost.size());
    std::iota(order.begin(), order.end(), 0);
    // Longest first; equal costs in run order, so the deal is the same everywhere.
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost[size_t(a)] > cost[size_t(b)]; });
    std::vector<std::vector<int>> shards(static_cast<size_t>(count));
    std::vector<double> load(static_cast<size_t>(count), 0.0);
    for (int i : order) {
        const size_t least = size_t(std::min_element(load.begin(), load.end()) - load.begin());  // first of equals
        shards[least].push_back(i);
        load[least] += cost[size_t(i)];
    }
    for (auto& s : shards) std::sort(s.begin(), s.end());
    return shards;
}

}  // namespace

std::vector<std::vector<int>> split_points(const SweepPlan& plan, int count) {
    return split_by_cost(point_costs(plan), count);
}

std::vector<int> shard_points(const SweepPlan& plan, const SweepShard& shard) {
    auto all = split_points(plan, shard.count);
    return shard.index >= 0 && shard.index < int(all.size()) ? all[size_t(shard.index)] : std::vector<int>{};
}

double expected_share(const SweepPlan& plan, const SweepShard& shard) {
    const std::vector<double> cost = point_costs(plan);
    const auto shards = split_by_cost(cost, shard.count);
    const double all = std::accumulate(cost.begin(), cost.end(), 0.0);
    double mine = 0;
    if (shard.index >= 0 && shard.index < int(shards.size()))
        for (int i : shards[size_t(shard.index)]) mine += cost[size_t(i)];
    return all > 0 ? mine / all : 1.0;
}

std::string shard_tag(const SweepShard& shard) {
    return std::to_string(shard.index) + "-of-" + std::to_string(shard.count);
}

std::string shard_output_path(const std::string& path, const SweepShard& shard) {
    if (path.empty() || path == "-") return path;
    const std::string tag = shard_tag(shard);
    if (const auto at = path.find("{shard}"); at != std::string::npos) {
        std::string out = path;
        for (auto p = out.find("{shard}"); p != std::string::npos; p = out.find("{shard}", p + tag.size()))
            out.replace(p, 7, tag);
        return out;
    }
    if (shard.whole()) return path;
    const auto slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    std::string ext;
    if (name.size() > 3 && name.ends_with(".gz")) {
        ext = ".gz";
        name.resize(name.size() - 3);
    }
    if (const auto dot = name.find_last_of('.'); dot != std::string::npos && dot > 0) {
        ext = name.substr(dot) + ext;
        name.resize(dot);
    }
    return dir + name + ".shard-" + tag + ext;
}

}  // namespace awb
