// A user's module as a file, without torch: names, metadata, the checks against a spec, identity.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "model/module_file.h"
#include "model/run_observer.h"
#include "results/run_json.h"
#include "test_support.h"

namespace awb {
namespace {

bool has(const std::vector<SpecProblem>& problems, const std::string& field, const std::string& words) {
    for (const auto& p : problems)
        if (p.field == field && p.message.find(words) != std::string::npos) return true;
    return false;
}

ModuleMetadata parse(const std::string& text) {
    std::vector<SpecProblem> problems;
    ModuleMetadata m = parse_module_metadata(text, "mine.pt2", problems);
    EXPECT_TRUE(problems.empty()) << format_problems(problems);
    return m;
}

TEST(ModuleFile, NamesAndFormats) {
    EXPECT_TRUE(is_module_path("./mine.pt2"));
    EXPECT_TRUE(is_module_path("/a/b/mine.pt"));
    EXPECT_FALSE(is_module_path("sdpa"));
    EXPECT_FALSE(is_module_path("mine.pth"));
    EXPECT_EQ(module_format("x.pt2"), ModuleFormat::AOTInductor);
    EXPECT_EQ(module_format("x.pt"), ModuleFormat::TorchScript);
    EXPECT_EQ(module_stem("./dir/soft_cap.pt2"), "soft_cap");
}

TEST(ModuleFile, WithVariantMakesTheStemTheNameAndKeepsTheModule) {
    const RunSpec base = test::small_spec();
    const RunSpec m = with_variant(base, "some/dir/mine.pt2");
    EXPECT_EQ(m.variant, "mine");
    EXPECT_EQ(m.module, absolute_module_path("some/dir/mine.pt2"));
    EXPECT_EQ(m.module.front(), '/');
    // The base's own name keeps its module (a sweep whose base is the module); another name drops it.
    EXPECT_EQ(with_variant(m, "mine").module, m.module);
    EXPECT_TRUE(with_variant(m, "sdpa").module.empty());
    EXPECT_EQ(with_variant(m, "sdpa").variant, "sdpa");
}

TEST(ModuleFile, SpecJsonRoundTripsTheModule) {
    RunSpec s = with_variant(test::small_spec(), "/x/mine.pt");
    s.module_inputs = {"keep_mask"};
    const nlohmann::json j = s;
    EXPECT_EQ(j.at("module"), "/x/mine.pt");
    EXPECT_EQ(j.get<RunSpec>(), s);
    EXPECT_FALSE(nlohmann::json(test::small_spec()).contains("module"));  // built-ins: files as before
}

TEST(ModuleFile, MetadataParsesEveryField) {
    const auto m = parse(R"({"name": "softcap", "torch_version": "2.11.0", "layout": "bnhd", "inputs": ["key_lengths"],
        "semantics": "custom", "mask": "window", "window": 64, "device": "cpu", "dtype": "float32",
        "seq": {"min": 16, "max": 4096}, "static": {"batch": 2, "head_dim": 64}, "reference": "softcap.pt"})");
    EXPECT_TRUE(m.present);
    EXPECT_EQ(m.layout, Layout::BNHD);
    EXPECT_EQ(m.inputs, std::vector<std::string>{"key_lengths"});
    EXPECT_EQ(m.mask, MaskKind::Window);
    EXPECT_EQ(m.window, 64);
    EXPECT_EQ(m.seq_min, 16);
    EXPECT_EQ(m.seq_max, 4096);
    EXPECT_EQ(m.static_sizes.at("head_dim"), 64);
    EXPECT_EQ(m.reference, "softcap.pt");
    std::vector<SpecProblem> problems;
    parse_module_metadata("[1, 2]", "bad.pt", problems);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].message.find("bad.pt"), std::string::npos);
    parse_module_metadata(R"({"layout": "nhbd", "semantics": "other"})", "bad.pt", problems);
    EXPECT_TRUE(has(problems, "variant", "layout 'nhbd'"));
    EXPECT_TRUE(has(problems, "variant", "semantics 'other'"));
}

TEST(ModuleFile, EachMismatchWithTheSpecIsNamed) {
    const auto m = parse(R"({"semantics": "attention", "layout": "bhnd", "device": "cuda", "dtype": "float16",
        "seq": {"min": 16, "max": 256}, "static": {"batch": 2, "heads": 8, "head_dim": 64}})");
    RunSpec s = test::small_spec();  // cpu float32 [1, 2, 64, 16]
    s.seq_q = s.seq_k = 512;
    s.layout = Layout::BNHD;
    s.mask = MaskKind::Causal;
    const auto problems = check_module_against_spec(m, s, "mine.pt2");
    EXPECT_TRUE(has(problems, "device", "compiled for cuda"));
    EXPECT_TRUE(has(problems, "dtype", "compiled for float16"));
    EXPECT_TRUE(has(problems, "layout", "takes bhnd"));
    EXPECT_TRUE(has(problems, "batch", "batch 2 only"));
    EXPECT_TRUE(has(problems, "heads", "heads 8 only"));
    EXPECT_TRUE(has(problems, "head_dim", "head_dim 64 only"));
    EXPECT_TRUE(has(problems, "seq_q", "from 16 to 256"));
    EXPECT_TRUE(has(problems, "mask", "takes no mask input"));
    for (const auto& p : problems) EXPECT_NE(p.message.find("'mine.pt2'"), std::string::npos) << p.message;

    RunSpec fits = test::small_spec();
    fits.batch = 2, fits.heads = fits.kv_heads = 8, fits.head_dim = 64, fits.device.kind = DeviceKind::CUDA;
    fits.dtype = Dtype::Float16;
    EXPECT_TRUE(check_module_against_spec(m, fits, "mine.pt2").empty())
        << format_problems(check_module_against_spec(m, fits, "mine.pt2"));
}

TEST(ModuleFile, StaticLengthMaskOfItsOwnAndUnknownInputs) {
    RunSpec s = test::small_spec();
    EXPECT_TRUE(has(check_module_against_spec(parse(R"({"seq": {"min": 128, "max": 128}})"), s, "m.pt2"), "seq_q",
                    "static N of 128"));
    const auto windowed = parse(R"({"mask": "window", "window": 32})");
    EXPECT_TRUE(has(check_module_against_spec(windowed, s, "m.pt2"), "mask", "--mask window --window 32"));
    s.mask = MaskKind::Window;
    s.window = 32;
    EXPECT_TRUE(check_module_against_spec(windowed, s, "m.pt2").empty());
    RunSpec cross = test::small_spec();
    cross.seq_k = 2 * cross.seq_q;
    EXPECT_TRUE(has(check_module_against_spec(parse(R"({"seq_equal": true})"), cross, "m.pt2"), "seq_k", "one length"));
    s.module_inputs = {"keep_mask", "attn_bias"};
    EXPECT_TRUE(has(check_module_against_spec(windowed, s, "m.pt2"), "module_inputs", "'attn_bias'"));
    // A module with a mask input applies the spec's mask: no problem.
    RunSpec causal = test::small_spec();
    causal.mask = MaskKind::Causal;
    EXPECT_TRUE(
        check_module_against_spec(parse(R"({"semantics": "attention", "inputs": ["keep_mask"]})"), causal, "m.pt")
            .empty());
}

TEST(ModuleFile, FileProblemsAndValidate) {
    EXPECT_TRUE(has(check_module_file("/nonexistent/mine.pt"), "variant", "cannot read module"));
    const auto dir = test::fresh_dir("module_file");
    const auto clash = (dir / "sdpa.pt").string();
    std::ofstream(clash) << "x";
    EXPECT_TRUE(has(check_module_file(clash), "variant", "built-in variant"));
    const auto pt2 = (dir / "mine.pt2").string();
    std::ofstream(pt2) << "x";
    DeviceCaps torch1;
    torch1.torch_version = "1.13.0";
    torch1.cpu_available_bytes = int64_t(1) << 34;
    EXPECT_TRUE(has(validate(with_variant(test::small_spec(), pt2), torch1), "variant", "needs LibTorch 2.x"));
    DeviceCaps torch2 = torch1;
    torch2.torch_version = "2.11.0";
    EXPECT_FALSE(has(validate(with_variant(test::small_spec(), pt2), torch2), "variant", ""));
}

TEST(ModuleFile, IdentityHashesTheFileAsSha256sumDoes) {
    const auto path = (test::fresh_dir("module_identity") / "mine.pt").string();
    std::ofstream(path) << std::string(3'000'000, 'a') << "tail";  // more than one 1 MiB read
    const ModuleIdentity id = identify_module(path);
    std::string expected(64, ' ');
    std::FILE* p = ::popen(("sha256sum '" + path + "'").c_str(), "r");
    ASSERT_NE(p, nullptr);
    ASSERT_EQ(std::fread(expected.data(), 1, 64, p), 64u);
    ::pclose(p);
    EXPECT_EQ(id.sha256, expected);
    EXPECT_EQ(id.size_bytes, 3'000'004);
    EXPECT_EQ(id.name, "mine");
    EXPECT_EQ(id.format, "torchscript");
    EXPECT_NE(describe_module(id).find("2.9 MiB"), std::string::npos) << describe_module(id);
    EXPECT_THROW(identify_module("/nonexistent/x.pt"), InvalidInput);
}

}  // namespace
}  // namespace awb
