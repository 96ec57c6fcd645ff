// A user's attention module as a variant, on the fixtures tests/modules/make_module_fixtures.sh made
// with the Python torch of this LibTorch (torch1/: Debian's 1.13, torch2/: the wheel's 2.11; each
// folder's README says what every file is).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "analysis/attention.h"
#include "analysis/op_table.h"
#include "engine/correctness.h"
#include "engine/module_variant.h"
#include "engine/profiler_session.h"
#include "engine/sweep_runner.h"
#include "model/run_observer.h"
#include "test_support.h"

namespace awb {
namespace {

const bool kTorch2 = std::string(AWB_TORCH_MAJOR_MINOR).front() != '1';

std::string fixture(const std::string& name) {
    return std::string(AWB_FIXTURE_DIR) + "/modules/" + (kTorch2 ? "torch2/" : "torch1/") + name;
}

std::string problems_of(const std::function<void()>& run) {
    try {
        run();
    } catch (const InvalidInput& e) {
        return format_problems(e.problems());
    }
    return "no problem";
}

// Calls per operator name: the aten ops of one profiled run.
std::map<std::string, int64_t> aten_calls(const ProfileResult& r) {
    std::map<std::string, int64_t> out;
    for (const auto& row : key_averages(r.trace))
        if (row.name.rfind("aten::", 0) == 0) out[row.name] = row.calls;
    return out;
}

// The FLOPs of a whole forward and a whole backward attention call (the largest of each). Not the window's total: the
// recorded window's edges cut into the steps before and after it by a varying amount (CI once found 10.5 forward
// calls' worth with manual and 9.5 with the module, both right).
std::pair<double, double> attention_flops_of(const ProfileResult& r) {
    std::pair<double, double> out{0, 0};
    for (const auto& call : attention_instances(r.trace, &r.spec)) {
        double& f = call.backward ? out.second : out.first;
        f = std::max(f, call.flops);
    }
    return out;
}

TEST(ModuleVariant, EqualToManualGivesManualsOpsFlopsAndOutput) {
    const RunSpec manual = test::small_spec();
    const RunSpec module = with_variant(manual, fixture("manual_like.pt"));
    ProfileOptions options;
    const ProfileResult a = profile_run(manual, options), b = profile_run(module, options);
    auto ops_a = aten_calls(a), ops_b = aten_calls(b);
    // Every op of the attention itself is called as often as in the manual variant. (Not compared: the
    // loss's ops at the edges of the recorded steps - mean, div, mul of PowBackward - whose counts move
    // by one from run to run with either variant, and TorchScript's aten::lift_fresh of its constants.)
    for (const char* op : {"aten::matmul", "aten::bmm", "aten::softmax", "aten::_softmax", "aten::transpose",
                           "aten::_softmax_backward_data", "aten::expand", "aten::reshape"})
        EXPECT_EQ(ops_b[op], ops_a[op]) << op;
    EXPECT_GT(ops_b["aten::bmm"], 0);
    const auto [forward_a, backward_a] = attention_flops_of(a);
    const auto [forward_b, backward_b] = attention_flops_of(b);
    EXPECT_DOUBLE_EQ(forward_b, forward_a);
    EXPECT_DOUBLE_EQ(backward_b, backward_a);
    EXPECT_GT(forward_b, 0);
    EXPECT_GT(backward_b, 0);
    const auto calls = attention_instances(b.trace, &b.spec);
    ASSERT_FALSE(calls.empty());
    EXPECT_EQ(to_string(calls.front().backend), "manual");  // the pattern inside the module is found
    // The region of a step is named after the module's stem; its identity is in the environment.
    const auto rows = key_averages(b.trace);
    EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.name == "manual_like"; }));
    ASSERT_EQ(b.environment.modules.size(), 1u);
    EXPECT_EQ(b.environment.modules[0].name, "manual_like");
    EXPECT_EQ(b.environment.modules[0].sha256.size(), 64u);
    EXPECT_EQ(b.environment.modules[0].exported_by.rfind("torch " + std::string(kTorch2 ? "2.11" : "1.13"), 0), 0u);

    auto v = make_variant(module), m = make_variant(manual);
    v->prepare(module);
    m->prepare(manual);
    const AttentionInputs in = make_inputs(module);
    EXPECT_TRUE(at::allclose(v->forward_inputs(in), m->forward_inputs(in), 1e-6, 1e-6));
}

TEST(ModuleVariant, BnhdLayoutIsPassedAsItIsAndChecked) {
    RunSpec s = with_variant(test::small_spec(), fixture("manual_like.pt"));
    s.layout = Layout::BNHD;  // the module's metadata says bhnd
    EXPECT_NE(problems_of([&] { make_variant(s)->prepare(s); }).find("takes bhnd tensors"), std::string::npos);
}

TEST(ModuleVariant, MaskedModuleGetsTheSpecsMask) {
    RunSpec s = with_variant(test::small_spec(), fixture("manual_masked.pt"));
    s.mask = MaskKind::Causal;
    const RunSpec manual = with_variant(s, "manual");
    auto v = make_variant(s), m = make_variant(manual);
    v->prepare(s);
    m->prepare(manual);
    const AttentionInputs in = make_inputs(s);
    EXPECT_TRUE(at::allclose(v->forward_inputs(in), m->forward_inputs(in), 1e-6, 1e-6));
    // Without its mask input it cannot apply the mask: refused before running.
    RunSpec unmasked_module = with_variant(s, fixture("manual_like.pt"));
    EXPECT_NE(problems_of([&] { make_variant(unmasked_module)->prepare(unmasked_module); }).find("takes no mask input"),
              std::string::npos);
}

TEST(ModuleVariant, EachRefusalNamesTheFileAndWhatDoesNotFit) {
    const RunSpec base = test::small_spec();
    auto refused = [&](const std::string& file, RunSpec s) {
        s = with_variant(s, fixture(file));
        return problems_of([&] {
            auto v = make_variant(s);
            v->prepare(s);
            at::Tensor out;
            run_step(*v, make_inputs(s), s.mode, out);
        });
    };
    const std::string arity = refused("wrong_arity.pt", base);
    EXPECT_NE(arity.find("wrong_arity.pt'"), std::string::npos) << arity;
    EXPECT_NE(arity.find("forward takes 2 inputs, the workbench passes 3"), std::string::npos) << arity;
    const std::string shape = refused("wrong_shape.pt", base);
    EXPECT_NE(shape.find("returned [1, 2, 64, 8] for q [1, 2, 64, 16]"), std::string::npos) << shape;
    RunSpec extra = base;
    extra.module_inputs = {"keep_mask"};
    EXPECT_NE(refused("manual_like.pt", extra).find("the workbench passes 4 (q, k, v, keep_mask)"), std::string::npos);
    const std::string missing = problems_of([&] {
        RunSpec s = with_variant(base, "/nonexistent/mine.pt");
        make_variant(s)->prepare(s);
    });
    EXPECT_NE(missing.find("cannot load module '/nonexistent/mine.pt'"), std::string::npos) << missing;
    if (!kTorch2) {
        RunSpec s = with_variant(base, "/any/where/mine.pt2");
        EXPECT_NE(problems_of([&] { make_variant(s)->prepare(s); }).find("needs LibTorch 2.x"), std::string::npos);
        return;
    }
    RunSpec forward = base;  // compiled code runs forward only (the train refusal below)
    forward.mode = Mode::Forward;
    const std::string static_n = refused("static_n.pt2", forward);  // N = 64 only
    EXPECT_EQ(static_n, "no problem");
    RunSpec longer = forward;
    longer.seq_q = longer.seq_k = 128;
    EXPECT_NE(refused("static_n.pt2", longer).find("static N of 64, the spec has 128"), std::string::npos);
    RunSpec half = forward;
    half.dtype = Dtype::Float64;
    EXPECT_NE(refused("manual_like.pt2", half).find("compiled for float32, the spec asks for float64"),
              std::string::npos);
    RunSpec train = base;
    train.mode = Mode::Train;
    EXPECT_NE(refused("manual_like.pt2", train).find("no backward"), std::string::npos);
}

TEST(ModuleVariant, SweepRecordsRefusedPointsAndGoesOn) {
    SweepPlan plan;
    plan.base = test::small_spec();
    plan.base.mode = Mode::Forward;
    plan.seq_lengths = {64, 128};
    const std::string module = kTorch2 ? fixture("static_n.pt2") : fixture("wrong_shape.pt");
    plan.variants = {"sdpa", module};
    plan.bench =
        BenchOptions{.warmup = 1, .budget_s = 0.01, .min_repeats = 2, .measure_memory = false, .measure_roof = false};
    const SweepResult r = run_sweep(plan);
    ASSERT_EQ(r.points.size(), 4u);
    const std::string stem = kTorch2 ? "static_n" : "wrong_shape";
    for (const auto& p : r.points) {
        const bool mine = p.spec.variant == stem;
        // static_n runs at N = 64 only; wrong_shape at no N
        const bool runs = !mine || (kTorch2 && p.spec.seq_q == 64);
        EXPECT_EQ(p.status, runs ? PointStatus::Ok : PointStatus::Refused)
            << p.spec.variant << " " << p.spec.seq_q << " " << p.reason;
        if (runs) {
            EXPECT_GT(p.bench.timing.median_ns, 0);
        } else {
            EXPECT_NE(p.reason.find(stem), std::string::npos) << p.reason;
        }
    }
    ASSERT_EQ(r.environment.modules.size(), 1u);
    EXPECT_EQ(r.environment.modules[0].name, stem);
}

TEST(ModuleVariant, CheckSaysWhichReferenceItUsed) {
    const RunSpec s = test::small_spec();
    std::vector<std::string> variants{fixture("manual_like.pt"), fixture("softcap.pt")};
    if (kTorch2) variants.push_back(fixture("softcap.pt2"));
    const CheckReport r = check_variants(s, variants);
    ASSERT_EQ(r.variants.size(), variants.size());
    EXPECT_EQ(r.variants[0].variant, "manual_like");
    EXPECT_TRUE(r.variants[0].passed);
    EXPECT_EQ(r.variants[0].reference, "the float64 manual formula with the spec's mask");
    EXPECT_EQ(r.variants[0].tensors.size(), 4u);
    EXPECT_TRUE(r.variants[1].passed) << r.variants[1].failure;
    EXPECT_NE(r.variants[1].reference.find("the module itself in float64"), std::string::npos);
    if (kTorch2) {
        EXPECT_TRUE(r.variants[2].passed) << r.variants[2].failure;
        EXPECT_NE(r.variants[2].reference.find("its TorchScript export 'softcap.pt'"), std::string::npos);
        EXPECT_EQ(r.variants[2].tensors.size(), 1u);  // compiled code: the output only
        EXPECT_NE(r.variants[2].note.find("no backward"), std::string::npos);
    }
    // softcap differs from plain attention: against the manual formula given as reference it fails.
    const CheckReport against_manual =
        check_variants(s, {fixture("softcap.pt")}, 0, nullptr, fixture("manual_like.pt"));
    EXPECT_FALSE(against_manual.variants[0].passed);
    EXPECT_NE(against_manual.variants[0].reference.find("manual_like.pt' in float64"), std::string::npos);
    EXPECT_EQ(against_manual.environment.modules.size(), 2u);
}

}  // namespace
}  // namespace awb
