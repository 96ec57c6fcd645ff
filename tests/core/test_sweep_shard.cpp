// Sharded sweeps: the split (deterministic, complete, balanced by cost), the shard chosen
// by --shard or by torchrun's / Slurm's environment, output paths per shard, and the merge of shard
// files (missing, duplicated, foreign and mixed-environment shards named), through the JSON files.
#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <set>

#include "model/sweep_merge.h"
#include "model/sweep_shard.h"
#include "results/measurement_json.h"
#include "test_support.h"

using namespace awb;

namespace {

SweepPlan plan_of(std::vector<int64_t> seq, std::vector<std::string> variants = {"manual", "sdpa", "chunked"}) {
    SweepPlan p;
    p.base = test::small_spec();
    p.seq_lengths = std::move(seq);
    p.variants = std::move(variants);
    p.bench.budget_s = 0.05;
    return p;
}

Environment env_on(const std::string& host, const std::string& torch = "2.11.0",
                   const std::string& gpu = "NVIDIA H200") {
    Environment e;
    e.torch_version = torch;
    e.device = "cuda:0";
    e.device_name = gpu;
    e.cuda_version = "13.0";
    e.driver_version = "580.65";
    e.host = host;
    return e;
}

// A shard file as `attnwb sweep` writes it, with made-up timings: each point's median is its index.
ShardFile shard_file(const SweepPlan& plan, int index, int count, const Environment& env, int keep = -1) {
    ShardFile f;
    f.name = "sweep-" + std::to_string(index) + "-of-" + std::to_string(count) + ".json";
    SweepResult& r = f.sweep;
    r.plan = plan;
    r.environment = env;
    r.shard = {index, count, "--shard"};
    const auto specs = expand(plan);
    const auto indices = shard_points(plan, r.shard);
    r.planned_points = int(indices.size());
    for (int i : indices) {
        if (keep >= 0 && int(r.points.size()) >= keep) {
            r.stopped_early = true;
            break;
        }
        SweepPoint p;
        p.index = i;
        p.spec = specs[size_t(i)];
        p.bench.spec = p.spec;
        p.bench.environment = env;
        p.bench.timing.median_ns = 1000.0 * (i + 1);
        p.bench.timing.repeats = 3;
        r.points.push_back(p);
    }
    return f;
}

std::vector<ShardFile> all_shards(const SweepPlan& plan, int count) {
    std::vector<ShardFile> files;
    for (int k = 0; k < count; ++k) files.push_back(shard_file(plan, k, count, env_on("node" + std::to_string(k))));
    return files;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
}

}  // namespace

TEST(SweepShard, SplitCoversEveryPointOnceInRunOrder) {
    const SweepPlan plan = plan_of({64, 128, 256, 512, 1024});
    const size_t total = expand(plan).size();
    for (int count : {1, 2, 3, 4, 7, 15, 20}) {
        const auto shards = split_points(plan, count);
        ASSERT_EQ(shards.size(), size_t(count));
        std::vector<int> seen;
        for (const auto& s : shards) {
            EXPECT_TRUE(std::is_sorted(s.begin(), s.end())) << "a shard runs its points in the sweep's order";
            seen.insert(seen.end(), s.begin(), s.end());
        }
        std::sort(seen.begin(), seen.end());
        std::vector<int> expected(total);
        std::iota(expected.begin(), expected.end(), 0);
        EXPECT_EQ(seen, expected) << count << " shards";
        EXPECT_EQ(split_points(plan, count), shards) << "the same split every time";
    }
    EXPECT_EQ(shard_points(plan, {}).size(), total);
}

TEST(SweepShard, BalancedByExpectedCostNotByCount) {
    // Lengths 64..8192 on the CPU: the long points dominate. By count, a round-robin of 12 points into
    // 4 shards would give one shard all three 8192 points.
    SweepPlan plan = plan_of({64, 128, 256, 8192}, {"manual", "sdpa", "chunked"});
    plan.base.mode = Mode::Train;
    const auto specs = expand(plan);
    const auto shards = split_points(plan, 4);
    std::vector<double> load;
    double biggest = 0;
    for (const auto& s : specs) biggest = std::max(biggest, expected_point_seconds(s, plan));
    for (const auto& s : shards) {
        double sum = 0;
        for (int i : s) sum += expected_point_seconds(specs[size_t(i)], plan);
        load.push_back(sum);
    }
    // Each of the three 8192 points lands in its own shard; the fourth takes the small ones.
    int big_shards = 0;
    for (const auto& s : shards) {
        int big = 0;
        for (int i : s) big += specs[size_t(i)].seq_k == 8192 ? 1 : 0;
        EXPECT_LE(big, 1);
        big_shards += big;
    }
    EXPECT_EQ(big_shards, 3);
    // LPT's bound: no shard exceeds the mean by more than the biggest point.
    const double mean = std::accumulate(load.begin(), load.end(), 0.0) / double(load.size());
    for (double l : load) EXPECT_LE(l, mean + biggest);
    // The share each shard prints is its load over the whole; the shares make the whole sweep.
    const double total = std::accumulate(load.begin(), load.end(), 0.0);
    double shares = 0;
    for (int k = 0; k < 4; ++k) {
        const double share = expected_share(plan, SweepShard{k, 4, "--shard"});
        EXPECT_NEAR(share, load[size_t(k)] / total, 1e-12);
        shares += share;
    }
    EXPECT_NEAR(shares, 1.0, 1e-12);
    EXPECT_DOUBLE_EQ(expected_share(plan, SweepShard{}), 1.0);
    // The cost grows with N and with the budget.
    EXPECT_LT(expected_point_seconds(specs[0], plan), expected_point_seconds(specs.back(), plan));
    SweepPlan longer = plan;
    longer.bench.budget_s = 2.0;
    EXPECT_NEAR(expected_point_seconds(specs[0], longer) - expected_point_seconds(specs[0], plan), 1.95, 1e-9);
}

TEST(SweepShard, ParsesShardOptionAndNamesBadOnes) {
    std::string error;
    auto s = parse_shard("2/4", error);
    ASSERT_TRUE(s) << error;
    EXPECT_EQ(s->index, 2);
    EXPECT_EQ(s->count, 4);
    EXPECT_EQ(s->chosen_by, "--shard");
    for (const char* bad : {"4/4", "-1/4", "1/0", "a/4", "1", "1/4x", ""}) {
        error.clear();
        EXPECT_FALSE(parse_shard(bad, error)) << bad;
        EXPECT_NE(error.find("--shard"), std::string::npos) << error;
    }
    error.clear();
    parse_shard("4/4", error);
    EXPECT_NE(error.find("not one of 0..3 (shards count from 0)"), std::string::npos) << error;
}

TEST(SweepShard, EnvironmentOfTorchrunAndSlurmChoosesTheShard) {
    std::map<std::string, std::string> env;
    auto get = [&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    };
    std::string error;
    EXPECT_FALSE(shard_from_environment(get, error));
    EXPECT_TRUE(error.empty()) << "no scheduler: the whole sweep, no error";

    env = {{"RANK", "3"}, {"WORLD_SIZE", "4"}};
    auto s = shard_from_environment(get, error);
    ASSERT_TRUE(s) << error;
    EXPECT_EQ(std::make_pair(s->index, s->count), std::make_pair(3, 4));
    EXPECT_EQ(s->chosen_by, "RANK/WORLD_SIZE");

    // Slurm array --array=1-4 (ids from 1) and --array=0-6:2 (a step).
    env = {{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_MIN", "1"}};
    s = shard_from_environment(get, error);
    ASSERT_TRUE(s) << error;
    EXPECT_EQ(std::make_pair(s->index, s->count), std::make_pair(2, 4));
    env = {{"SLURM_ARRAY_TASK_ID", "6"},
           {"SLURM_ARRAY_TASK_COUNT", "4"},
           {"SLURM_ARRAY_TASK_MIN", "0"},
           {"SLURM_ARRAY_TASK_STEP", "2"}};
    s = shard_from_environment(get, error);
    ASSERT_TRUE(s) << error;
    EXPECT_EQ(std::make_pair(s->index, s->count), std::make_pair(3, 4));
    EXPECT_EQ(s->chosen_by, "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT");

    // torchrun inside a Slurm job: RANK/WORLD_SIZE win.
    env["RANK"] = "0";
    env["WORLD_SIZE"] = "2";
    s = shard_from_environment(get, error);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->chosen_by, "RANK/WORLD_SIZE");

    auto fails = [&](std::map<std::string, std::string> e, const std::string& expected) {
        env = std::move(e);
        error.clear();
        EXPECT_FALSE(shard_from_environment(get, error));
        EXPECT_NE(error.find(expected), std::string::npos) << error;
    };
    fails({{"RANK", "1"}}, "RANK and WORLD_SIZE must be set together");
    fails({{"RANK", "x"}, {"WORLD_SIZE", "2"}}, "RANK='x' is not an integer");
    fails({{"RANK", "2"}, {"WORLD_SIZE", "2"}}, "RANK=2 WORLD_SIZE=2: shard 2 is not one of 0..1");
    fails({{"SLURM_ARRAY_TASK_ID", "1"}}, "SLURM_ARRAY_TASK_COUNT is not");
    fails({{"SLURM_ARRAY_TASK_ID", "3"},
           {"SLURM_ARRAY_TASK_COUNT", "2"},
           {"SLURM_ARRAY_TASK_MIN", "0"},
           {"SLURM_ARRAY_TASK_STEP", "2"}},
          "not on the array's step");
}

TEST(SweepShard, OutputPathsPerShard) {
    const SweepShard s{2, 4, "--shard"};
    EXPECT_EQ(shard_output_path("out/sweep-{shard}.json", s), "out/sweep-2-of-4.json");
    EXPECT_EQ(shard_output_path("out/sweep.json", s), "out/sweep.shard-2-of-4.json");
    EXPECT_EQ(shard_output_path("out/sweep.json.gz", s), "out/sweep.shard-2-of-4.json.gz");
    EXPECT_EQ(shard_output_path("a.b/report", s), "a.b/report.shard-2-of-4");
    EXPECT_EQ(shard_output_path("-", s), "-");
    EXPECT_EQ(shard_output_path("", s), "");
    EXPECT_EQ(shard_output_path("sweep.json", SweepShard{}), "sweep.json") << "a whole sweep keeps its path";
    EXPECT_EQ(shard_output_path("sweep-{shard}.json", SweepShard{}), "sweep-0-of-1.json");
}

TEST(SweepMerge, ShardsJoinIntoTheWholeSweepThroughTheirFiles) {
    const SweepPlan plan = plan_of({64, 128, 256, 512});
    auto files = all_shards(plan, 3);
    // Through JSON, as `attnwb merge` reads them.
    for (auto& f : files)
        f.sweep = sweep_from_file_json(nlohmann::json::parse(sweep_file_json(f.sweep, analyze_sweep(f.sweep)).dump()));
    std::swap(files[0], files[2]);  // any order on the command line
    const MergeOutcome m = merge_shards(files);
    ASSERT_TRUE(m.problems.empty()) << joined(m.problems);
    EXPECT_TRUE(m.notes.empty()) << joined(m.notes);
    const auto specs = expand(plan);
    ASSERT_EQ(m.merged.points.size(), specs.size());
    for (size_t i = 0; i < specs.size(); ++i) {
        EXPECT_EQ(m.merged.points[i].index, int(i));
        EXPECT_EQ(m.merged.points[i].spec, specs[i]);
        EXPECT_EQ(m.merged.points[i].bench.timing.median_ns, 1000.0 * double(i + 1));
        ASSERT_TRUE(m.merged.points[i].ran_on);
    }
    EXPECT_EQ(m.merged.planned_points, int(specs.size()));
    EXPECT_TRUE(m.merged.shard.whole());
    EXPECT_FALSE(m.merged.stopped_early);
    EXPECT_FALSE(m.merged.mixed_environments) << "hosts differ on a cluster; that is not a mixed environment";
    EXPECT_EQ(m.merged.merged_from,
              (std::vector<std::string>{"sweep-0-of-3.json", "sweep-1-of-3.json", "sweep-2-of-3.json"}));
    EXPECT_EQ(m.merged.environment.host, "node0 | node1 | node2");
    EXPECT_EQ(m.merged.environment.device_name, "NVIDIA H200");
    // Each point names the node of its shard.
    const auto shard1 = shard_points(plan, {1, 3, ""});
    EXPECT_EQ(where_ran(m.merged, m.merged.points[size_t(shard1.front())]).host, "node1");

    // The merged file round-trips, keeping where each point ran.
    const SweepResult back =
        sweep_from_file_json(nlohmann::json::parse(sweep_file_json(m.merged, analyze_sweep(m.merged)).dump()));
    EXPECT_EQ(back, m.merged);
}

TEST(SweepMerge, MissingShardOrPointsAreNamedAndRefusedUnlessAllowed) {
    const SweepPlan plan = plan_of({64, 128, 256, 512});
    auto files = all_shards(plan, 4);
    const auto lost = files[2].sweep.points;
    files.erase(files.begin() + 2);
    files[0] = shard_file(plan, 0, 4, env_on("node0"), /*keep=*/1);  // stopped after one point
    MergeOutcome m = merge_shards(files);
    ASSERT_EQ(m.problems.size(), 2u) << joined(m.problems);
    EXPECT_NE(m.problems[0].find("shard 2 of 4 is missing (no file for it): " + std::to_string(lost.size()) +
                                 " points: " + std::to_string(lost[0].index) + " (" + lost[0].spec.variant),
              std::string::npos)
        << m.problems[0];
    EXPECT_NE(m.problems[1].find("points are in no file (a shard stopped early?)"), std::string::npos) << m.problems[1];
    EXPECT_NE(m.problems[1].find("--allow-missing"), std::string::npos);

    m = merge_shards(files, {.allow_missing = true});
    ASSERT_TRUE(m.problems.empty()) << joined(m.problems);
    EXPECT_EQ(m.notes.size(), 2u);
    EXPECT_TRUE(m.merged.stopped_early);
    EXPECT_EQ(m.merged.points.size() + m.missing.size(), expand(plan).size());
    EXPECT_EQ(m.merged.planned_points, int(expand(plan).size()));
}

TEST(SweepMerge, DuplicatedForeignAndMismatchedShardsAreRefused) {
    const SweepPlan plan = plan_of({64, 128});
    auto files = all_shards(plan, 2);
    files.push_back(files[1]);
    files.back().name = "copy.json";
    MergeOutcome m = merge_shards(files);
    ASSERT_FALSE(m.problems.empty());
    EXPECT_NE(m.problems[0].find("is in both 'sweep-1-of-2.json' and 'copy.json'"), std::string::npos) << m.problems[0];

    files = all_shards(plan, 2);
    files[1].sweep.plan.seq_lengths = {64, 256};
    m = merge_shards(files);
    ASSERT_EQ(m.problems.size(), 1u);
    EXPECT_EQ(m.problems[0],
              "'sweep-1-of-2.json' is a shard of another sweep than 'sweep-0-of-2.json' (their plans differ in "
              "'seq_lengths')");

    files = all_shards(plan, 2);
    files[1] = shard_file(plan, 1, 3, env_on("node1"));
    m = merge_shards(files);
    ASSERT_EQ(m.problems.size(), 1u);
    EXPECT_NE(m.problems[0].find("is shard 1 of 3 but 'sweep-0-of-2.json' is shard 0 of 2"), std::string::npos);

    files = all_shards(plan, 2);
    files[1].sweep.points[0].spec.head_dim = 32;
    m = merge_shards(files);
    ASSERT_FALSE(m.problems.empty());
    EXPECT_NE(
        m.problems[0].find("is not point " + std::to_string(files[1].sweep.points[0].index) + " of the sweep's plan"),
        std::string::npos)
        << m.problems[0];

    files = all_shards(plan, 2);
    files[1].sweep.points[0].index = 1000;  // past the plan's points
    m = merge_shards(files);
    ASSERT_FALSE(m.problems.empty());
    EXPECT_NE(m.problems[0].find(": point 1000 (" + files[1].sweep.points[0].spec.variant + " "), std::string::npos)
        << m.problems[0];
    EXPECT_NE(
        m.problems[0].find(") is not in the sweep's plan (points 0.." + std::to_string(expand(plan).size() - 1) + ")"),
        std::string::npos)
        << m.problems[0];
    EXPECT_NE(joined(m.problems).find("1 point is in no file (a shard stopped early?)"), std::string::npos)
        << joined(m.problems);

    EXPECT_EQ(merge_shards({}).problems, std::vector<std::string>{"no shard files to merge"});
}

TEST(SweepMerge, MixedEnvironmentsRefusedUnlessAllowedThenEachPointKeepsWhereItRan) {
    const SweepPlan plan = plan_of({64, 128, 256});
    std::vector<ShardFile> files{shard_file(plan, 0, 2, env_on("a100-node", "2.11.0", "NVIDIA A100-SXM4-80GB")),
                                 shard_file(plan, 1, 2, env_on("h200-node"))};
    MergeOutcome m = merge_shards(files);
    ASSERT_EQ(m.problems.size(), 1u);
    EXPECT_EQ(
        m.problems[0],
        "the shards ran on different environments: torch 2.11.0, cuda NVIDIA A100-SXM4-80GB, CUDA 13.0, driver 580.65 "
        "('sweep-0-of-2.json'); torch 2.11.0, cuda NVIDIA H200, CUDA 13.0, driver 580.65 ('sweep-1-of-2.json') "
        "(--allow-mixed merges them, each point keeping where it ran)");
    files[1].sweep.environment.torch_version = "2.10.0";
    EXPECT_EQ(merge_shards(files).problems.size(), 1u);

    m = merge_shards(files, {.allow_mixed = true});
    ASSERT_TRUE(m.problems.empty()) << joined(m.problems);
    ASSERT_EQ(m.notes.size(), 1u);
    EXPECT_TRUE(m.merged.mixed_environments);
    EXPECT_EQ(m.merged.environment.device_name, "NVIDIA A100-SXM4-80GB | NVIDIA H200");
    std::set<std::string> names;
    for (const auto& p : m.merged.points) {
        const Environment& e = where_ran(m.merged, p);
        names.insert(e.host + " " + e.device_name + " " + e.torch_version);
    }
    EXPECT_EQ(names, (std::set<std::string>{"a100-node NVIDIA A100-SXM4-80GB 2.11.0", "h200-node NVIDIA H200 2.10.0"}));
}

TEST(SweepMerge, FilesFromBeforeShardsReadAsWholeSweepsIndexedByPosition) {
    const SweepPlan plan = plan_of({64, 128});
    ShardFile f = shard_file(plan, 0, 1, env_on("host"));
    nlohmann::json j = sweep_file_json(f.sweep, analyze_sweep(f.sweep));
    j.erase("shard");
    for (auto& p : j["points"]) p.erase("index");
    const SweepResult r = sweep_from_file_json(j);
    EXPECT_TRUE(r.shard.whole());
    for (size_t i = 0; i < r.points.size(); ++i) EXPECT_EQ(r.points[i].index, int(i));
    const MergeOutcome m = merge_shards({{"old.json", r}});
    EXPECT_TRUE(m.problems.empty()) << joined(m.problems);

    j = sweep_file_json(f.sweep, analyze_sweep(f.sweep));
    j["shard"]["index"] = 5;
    try {
        sweep_from_file_json(j);
        FAIL() << "a shard index past its count must be refused";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("shard 5 of 1 is not a shard"), std::string::npos) << e.what();
    }
}

namespace awb {
namespace {

TEST(SweepMerge, AModuleExportedAgainBetweenShardsIsAnotherEnvironment) {
    const SweepPlan plan = plan_of({64, 128}, {"sdpa", "/w/mine.pt2"});
    Environment first = env_on("h200-node"), second = first;
    first.modules = {{"mine", "/w/mine.pt2", "aotinductor", 4096, std::string(64, 'a'), "torch 2.11.0"}};
    second.modules = {{"mine", "/w/mine.pt2", "aotinductor", 4096, std::string(64, 'b'), "torch 2.11.0"}};
    std::vector<ShardFile> files{shard_file(plan, 0, 2, first), shard_file(plan, 1, 2, second)};
    const MergeOutcome m = merge_shards(files);
    ASSERT_EQ(m.problems.size(), 1u);
    EXPECT_NE(m.problems[0].find("mine sha256 aaaaaaaaaaaa"), std::string::npos) << m.problems[0];
    EXPECT_NE(m.problems[0].find("mine sha256 bbbbbbbbbbbb"), std::string::npos) << m.problems[0];
    files[1] = shard_file(plan, 1, 2, first);
    EXPECT_TRUE(merge_shards(files).problems.empty()) << joined(merge_shards(files).problems);
}

}  // namespace
}  // namespace awb
