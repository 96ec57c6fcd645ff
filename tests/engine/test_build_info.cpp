// What --version and Help > About say of LibTorch (engine/build_info.h): the version of the file the
// loader mapped, from Debian's soname or the wheel's torch/version.py, and the lines themselves.
#include <gtest/gtest.h>

#include <torch/version.h>

#include <filesystem>
#include <fstream>

#include "engine/build_info.h"
#include "test_support.h"

namespace awb {
namespace {

TEST(BuildInfo, LibTorchVersionFromItsFile) {
    EXPECT_EQ(libtorch_version_of_file("/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13.0"), "1.13.0");
    // A wheel's library names no version: its torch/version.py does.
    const std::filesystem::path torch = test::fresh_dir("build_info_wheel") / "torch";
    std::filesystem::create_directories(torch / "lib");
    std::ofstream(torch / "version.py")
        << "from typing import Optional\n__all__ = ['__version__']\n__version__ = '2.11.0+cu130'\n";
    EXPECT_EQ(libtorch_version_of_file((torch / "lib" / "libtorch_cpu.so").string()), "2.11.0+cu130");
    std::filesystem::remove(torch / "version.py");
    EXPECT_EQ(libtorch_version_of_file((torch / "lib" / "libtorch_cpu.so").string()), "");
}

TEST(BuildInfo, LinesNameTheLibTorchBuiltWithAndTheFileLoaded) {
    const std::string lines = libtorch_lines();
    EXPECT_NE(lines.find("LibTorch: built with " TORCH_VERSION "; loaded "), std::string::npos) << lines;
    EXPECT_NE(lines.find("libtorch_cpu.so"), std::string::npos) << lines;  // the file this process mapped
    EXPECT_NE(lines.find("\nCUDA: "), std::string::npos) << lines;
}

}  // namespace
}  // namespace awb
