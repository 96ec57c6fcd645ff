// attnwb: the Attention Workbench without a GUI. Reading results and traces (inspect, diff, report, merge)
// runs here without LibTorch; everything else runs in attnwb-engine, next to this program, which
// replaces this process (same arguments, same exit code).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>

#include "cli_main.h"

namespace {

// attnwb-engine in the folder of this executable (resolved through /proc/self/exe, so symlinks and
// PATH lookups find the real folder).
std::string engine_path() {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const auto dir = ec ? std::filesystem::path(".") : self.parent_path();
    return (dir / "attnwb-engine").string();
}

}  // namespace

int main(int argc, char** argv) {
    using namespace awb::cli;
    if (argc >= 2 && is_reader_command(argv[1])) return run_cli(argc, argv, reader_commands());
    const std::string engine = engine_path();
    execv(engine.c_str(), argv);
    const std::string what = argc >= 2 ? "'" + std::string(argv[1]) + "'" : "this command";
    std::cerr << "attnwb: " << what << " needs the engine, " << engine << ", which cannot be started ("
              << std::strerror(errno) << "); inspect, diff, report and merge work without it\n";
    return kExitRuntimeFailure;
}
