#include "model/sweep_merge.h"

#include <algorithm>
#include <map>
#include <set>

#include "model/sweep_shard.h"

namespace awb {

namespace {

std::string quoted(const std::string& name) { return "'" + name + "'"; }

std::string point_label(int index, const RunSpec& s) {
    return std::to_string(index) + " (" + s.variant + " " + shape_string(s) + " " + to_string(s.dtype) + ")";
}

// Up to `limit` labels, then "and K more".
std::string list_points(const std::vector<int>& indices, const std::vector<RunSpec>& specs, size_t limit = 8) {
    std::string out;
    for (size_t i = 0; i < indices.size() && i < limit; ++i)
        out += (i ? ", " : "") + point_label(indices[i], specs[size_t(indices[i])]);
    if (indices.size() > limit) out += " and " + std::to_string(indices.size() - limit) + " more";
    return out;
}

// The first plan field two shards disagree on, or empty.
std::string differing_field(const SweepPlan& a, const SweepPlan& b) {
    if (a.base != b.base) return "base";
    if (a.seq_lengths != b.seq_lengths) return "seq_lengths";
    if (a.batches != b.batches) return "batches";
    if (a.heads != b.heads) return "heads";
    if (a.head_dims != b.head_dims) return "head_dims";
    if (a.variants != b.variants) return "variants";
    if (a.dtypes != b.dtypes) return "dtypes";
    if (a.bench != b.bench) return "bench";
    if (a.profile != b.profile) return "profile";
    if (a.profile_options != b.profile_options) return "profile_options";
    return "";
}

// The shards' environment: each field's distinct values, in shard order, joined by " | " (one value
// when they agree, as on a cluster of one kind of node for all but the host).
Environment joined_environment(const std::vector<const ShardFile*>& files) {
    Environment e = files.front()->sweep.environment;
    for (auto field :
         {&Environment::torch_version, &Environment::device, &Environment::device_name, &Environment::cuda_version,
          &Environment::driver_version, &Environment::blas, &Environment::allocator, &Environment::build_type,
          &Environment::compiler, &Environment::host, &Environment::os}) {
        std::vector<std::string> seen;
        for (const auto& f : files) {
            const std::string& v = f->sweep.environment.*field;
            if (!v.empty() && std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
        }
        std::string joined;
        for (const auto& v : seen) joined += (joined.empty() ? "" : " | ") + v;
        e.*field = joined;
    }
    return e;
}

std::string shard_text(const SweepShard& s) { return std::to_string(s.index) + " of " + std::to_string(s.count); }

std::string device_kind(const std::string& device) { return device.substr(0, device.find(':')); }

}  // namespace

std::string environment_key(const Environment& e) {
    std::string key = "torch " + (e.torch_version.empty() ? std::string("?") : e.torch_version) + ", " +
                      device_kind(e.device) + (e.device_name.empty() ? "" : " " + e.device_name);
    if (!e.cuda_version.empty()) key += ", CUDA " + e.cuda_version;
    if (!e.driver_version.empty()) key += ", driver " + e.driver_version;
    // A module exported again between shards is another variant under the same name.
    for (const auto& m : e.modules) key += ", " + m.name + " sha256 " + m.sha256.substr(0, 12);
    return key;
}

const Environment& where_ran(const SweepResult& sweep, const SweepPoint& point) {
    return point.ran_on ? *point.ran_on : sweep.environment;
}

namespace {

// Files named twice, or shards of another sweep or of another split than the first file's.
void check_same_sweep(const std::vector<ShardFile>& files, MergeOutcome& out) {
    const ShardFile& first = files.front();
    std::set<std::string> names;
    for (const auto& f : files)
        if (!names.insert(f.name).second) out.problems.push_back(quoted(f.name) + " is given twice");
    if (!out.problems.empty()) return;
    for (const auto& f : files) {
        if (const auto field = differing_field(first.sweep.plan, f.sweep.plan); !field.empty())
            out.problems.push_back(quoted(f.name) + " is a shard of another sweep than " + quoted(first.name) +
                                   " (their plans differ in '" + field + "')");
        else if (f.sweep.shard.count != first.sweep.shard.count)
            out.problems.push_back(quoted(f.name) + " is shard " + shard_text(f.sweep.shard) + " but " +
                                   quoted(first.name) + " is shard " + shard_text(first.sweep.shard) +
                                   " (the sweep was split two ways)");
    }
}

// The files' points placed on the plan: holder[i] is the file holding point i (-1: none); a point twice,
// or one that is not the plan's, is named. Returns (file, point) of each placed point.
std::vector<std::pair<int, const SweepPoint*>> place_points(const std::vector<ShardFile>& files,
                                                            const std::vector<RunSpec>& specs, std::vector<int>& holder,
                                                            MergeOutcome& out) {
    holder.assign(specs.size(), -1);
    std::vector<std::pair<int, const SweepPoint*>> points;
    for (size_t fi = 0; fi < files.size(); ++fi) {
        for (const auto& p : files[fi].sweep.points) {
            const bool in_plan = p.index >= 0 && size_t(p.index) < specs.size();
            if (!in_plan || specs[size_t(p.index)] != p.spec) {
                out.problems.push_back(
                    quoted(files[fi].name) + ": point " + std::to_string(p.index) + " (" + p.spec.variant + " " +
                    shape_string(p.spec) + ") is not " +
                    (in_plan ? "point " + std::to_string(p.index) + " of the sweep's plan"
                             : "in the sweep's plan (points 0.." + std::to_string(int(specs.size()) - 1) + ")"));
                continue;
            }
            int& h = holder[size_t(p.index)];
            if (h >= 0) {
                out.problems.push_back("point " + point_label(p.index, p.spec) + " is in both " +
                                       quoted(files[size_t(h)].name) + " and " + quoted(files[fi].name));
                continue;
            }
            h = int(fi);
            points.emplace_back(int(fi), &p);
        }
    }
    return points;
}

// Missing points: whole shards first (no file for that shard), then points of shards that stopped early;
// problems, or notes when allowed.
void say_missing(const std::vector<ShardFile>& files, const std::vector<RunSpec>& specs, const std::vector<int>& holder,
                 const MergeOptions& options, MergeOutcome& out) {
    const SweepResult& first = files.front().sweep;
    const int count = first.shard.count;
    std::set<int> present_shards;
    for (const auto& f : files) present_shards.insert(f.sweep.shard.index);
    const auto split = count > 1 ? split_points(first.plan, count) : std::vector<std::vector<int>>{};
    std::vector<std::string> missing_lines;
    std::set<int> explained;
    for (int s = 0; s < count && count > 1; ++s) {
        if (present_shards.count(s)) continue;
        std::vector<int> lost;
        for (int i : split[size_t(s)])
            if (holder[size_t(i)] < 0) lost.push_back(i), explained.insert(i);
        if (!lost.empty())
            missing_lines.push_back("shard " + shard_text({s, count, ""}) + " is missing (no file for it): " +
                                    std::to_string(lost.size()) + " points: " + list_points(lost, specs));
    }
    std::vector<int> other;
    for (size_t i = 0; i < specs.size(); ++i)
        if (holder[i] < 0) {
            out.missing.push_back(int(i));
            if (!explained.count(int(i))) other.push_back(int(i));
        }
    if (!other.empty())
        missing_lines.push_back(std::to_string(other.size()) + (other.size() == 1 ? " point is" : " points are") +
                                " in no file (a shard stopped early?): " + list_points(other, specs));
    if (missing_lines.empty()) return;
    for (auto& line : missing_lines) (options.allow_missing ? out.notes : out.problems).push_back(line);
    if (!options.allow_missing) out.problems.back() += " (--allow-missing merges what there is)";
}

// Environments: torch, device, CUDA and driver must agree unless allowed. True when they differ.
bool check_environments(const std::vector<ShardFile>& files, const MergeOptions& options, MergeOutcome& out) {
    std::map<std::string, std::vector<std::string>> by_env;
    std::vector<std::string> order;
    for (const auto& f : files) {
        const std::string key = environment_key(f.sweep.environment);
        if (!by_env.count(key)) order.push_back(key);
        by_env[key].push_back(quoted(f.name));
    }
    if (order.size() <= 1) return false;
    std::string line = "the shards ran on different environments:";
    for (const auto& key : order) {
        line += " " + key + " (";
        for (size_t i = 0; i < by_env[key].size(); ++i) line += (i ? ", " : "") + by_env[key][i];
        line += ");";
    }
    line.pop_back();
    if (options.allow_mixed)
        out.notes.push_back(line + "; merged as allowed, each point keeps where it ran");
    else
        out.problems.push_back(line + " (--allow-mixed merges them, each point keeping where it ran)");
    return true;
}

}  // namespace

MergeOutcome merge_shards(const std::vector<ShardFile>& files, const MergeOptions& options) {
    MergeOutcome out;
    if (files.empty()) {
        out.problems.push_back("no shard files to merge");
        return out;
    }
    check_same_sweep(files, out);
    if (!out.problems.empty()) return out;
    const ShardFile& first = files.front();
    const std::vector<RunSpec> specs = expand(first.sweep.plan);
    std::vector<int> holder;
    auto points = place_points(files, specs, holder, out);
    say_missing(files, specs, holder, options, out);
    const bool mixed = check_environments(files, options, out);
    if (!out.problems.empty()) return out;

    std::vector<const ShardFile*> by_shard;
    for (const auto& f : files) by_shard.push_back(&f);
    std::stable_sort(by_shard.begin(), by_shard.end(), [](const ShardFile* a, const ShardFile* b) {
        return a->sweep.shard.index < b->sweep.shard.index;
    });
    SweepResult& m = out.merged;
    m.plan = first.sweep.plan;
    m.environment = joined_environment(by_shard);
    m.planned_points = int(specs.size());
    m.shard = SweepShard{};
    m.mixed_environments = mixed;
    m.stopped_early = !out.missing.empty();
    for (const ShardFile* f : by_shard) m.merged_from.push_back(f->name);
    std::sort(points.begin(), points.end(),
              [](const auto& a, const auto& b) { return a.second->index < b.second->index; });
    for (const auto& [fi, p] : points) {
        SweepPoint copy = *p;
        if (!copy.ran_on) copy.ran_on = files[size_t(fi)].sweep.environment;
        m.points.push_back(std::move(copy));
    }
    return out;
}

}  // namespace awb
