// Runs every registered Qt test class (ui_test_registry.h) in one QApplication, offscreen; a class
// fails the run when any of its functions fails. AWB_UI_TEST_CLASS=A,B runs only those classes.
// Settings (the saved window layout, recent files) live in a folder of this run's own, so that no
// earlier run, concurrent test or the user's workbench changes the layout a test starts from.
#include <QApplication>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "ui_test_registry.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const QTemporaryDir settings;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings.path());
    std::vector<std::string> only;
    if (const char* env = std::getenv("AWB_UI_TEST_CLASS")) {
        std::stringstream list(env);
        for (std::string name; std::getline(list, name, ',');)
            if (!name.empty()) only.push_back(name);
    }
    auto classes = awb::ui::test::ui_test_classes();
    std::sort(classes.begin(), classes.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    int failed = 0;
    int run = 0;
    for (const auto& c : classes) {
        if (!only.empty() && std::find(only.begin(), only.end(), c.name) == only.end()) continue;
        ++run;
        auto object = c.make();
        if (QTest::qExec(object.get(), argc, argv) != 0) {
            std::fprintf(stderr, "ui tests: %s failed\n", c.name.c_str());
            ++failed;
        }
    }
    if (run == 0) {
        std::fprintf(stderr, "ui tests: no test class matches AWB_UI_TEST_CLASS\n");
        return 1;
    }
    std::printf("ui tests: %d of %d classes passed\n", run - failed, run);
    return failed == 0 ? 0 : 1;
}
