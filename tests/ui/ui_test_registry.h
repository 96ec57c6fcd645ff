// The Qt test classes register themselves here (AWB_UI_TEST(Class) after the class), one file per view
// of the GUI; ui_tests_main.cpp runs them all in one QApplication, or those named in AWB_UI_TEST_CLASS
// (comma-separated). Arguments (e.g. a test function's name) go to each class that is run.
#pragma once

#include <QObject>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace awb::ui::test {

struct UiTestClass {
    std::string name;
    std::function<std::unique_ptr<QObject>()> make;
};

inline std::vector<UiTestClass>& ui_test_classes() {
    static std::vector<UiTestClass> classes;
    return classes;
}

inline bool register_ui_test(const char* name, std::function<std::unique_ptr<QObject>()> make) {
    ui_test_classes().push_back({name, std::move(make)});
    return true;
}

}  // namespace awb::ui::test

#define AWB_UI_TEST(Class)                                              \
    [[maybe_unused]] static const bool awb_ui_test_registered_##Class = \
        awb::ui::test::register_ui_test(#Class, [] { return std::make_unique<Class>(); });
