// The run panel's modules in a workspace (panel_modules): saved as given, read back in order, a file
// that has gone still named (the GUI shows it as missing), an older workspace without the field
// opens with none, entries that are not strings are left out.
#include <gtest/gtest.h>

#include <fstream>

#include "results/run_json.h"
#include "results/workspace.h"
#include "test_support.h"

using namespace awb;
namespace fs = std::filesystem;

TEST(PanelModules, WorkspaceKeepsThemInOrderEvenWhenAFileIsGone) {
    const fs::path dir = test::fresh_dir("panel_modules");
    Workspace w;
    w.panel_modules = {(dir / "mine.pt").string(), (dir / "gone.pt2").string()};
    w.panel_spec = with_variant(RunSpec{}, (dir / "mine.pt").string());
    const std::string path = (dir / "ws.json").string();
    save_workspace(w, path);
    const Workspace back = load_workspace(path);
    EXPECT_EQ(back.panel_modules, w.panel_modules);  // neither file exists: the names stay
    EXPECT_EQ(back.panel_spec.variant, "mine");
    EXPECT_EQ(back.panel_spec.module, (dir / "mine.pt").string());
    EXPECT_TRUE(back.problems.empty());
}

TEST(PanelModules, OlderWorkspaceOpensWithNoneAndOddEntriesAreLeftOut) {
    const fs::path dir = test::fresh_dir("panel_modules_old");
    const std::string path = (dir / "ws.json").string();
    save_workspace(Workspace{}, path);
    nlohmann::json j = read_json_file(path);
    EXPECT_FALSE(j.contains("panel_modules"));  // none: the field is not written
    EXPECT_TRUE(load_workspace(path).panel_modules.empty());
    j["panel_modules"] = {"/a/mine.pt", 3, nullptr, "/b/other.pt2"};
    std::ofstream(path) << j.dump();
    EXPECT_EQ(load_workspace(path).panel_modules, (std::vector<std::string>{"/a/mine.pt", "/b/other.pt2"}));
}
