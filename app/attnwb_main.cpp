// attnwb: the Attention Workbench without a GUI. Reading results and traces (inspect, diff, report, merge)
// runs here without LibTorch; everything else (and --version) runs in attnwb-engine, beside this program
// in a build folder or in libexec/attention-workbench once installed, which replaces this process (same
// arguments, same exit code).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>

#include "cli_main.h"

namespace {

// attnwb-engine found by this executable's own location (resolved through /proc/self/exe, so symlinks
// and PATH lookups find the real folder): beside it in a build folder, else where the install puts it
// (AWB_ENGINE_FROM_BIN: libexec/attention-workbench relative to bin; not a user command).
struct EnginePlaces {
    std::filesystem::path beside, installed;
    std::string chosen() const {
        std::error_code ec;
        return (std::filesystem::exists(beside, ec) ? beside : installed).string();
    }
    std::string said() const { return beside.string() + " or " + installed.string(); }
};

EnginePlaces engine_places() {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const auto dir = ec ? std::filesystem::path(".") : self.parent_path();
    return {dir / "attnwb-engine", (dir / AWB_ENGINE_FROM_BIN / "attnwb-engine").lexically_normal()};
}

}  // namespace

int main(int argc, char** argv) {
    using namespace awb::cli;
    if (argc >= 2 && is_reader_command(argv[1])) return run_cli(argc, argv, reader_commands());
    const EnginePlaces engine = engine_places();
    execv(engine.chosen().c_str(), argv);
    if (argc == 2 && std::string(argv[1]) == "--version") {  // what this program knows without its engine
        std::cout << attnwb_version_line() << "\nLibTorch: unknown: the engine (" << engine.said()
                  << ") cannot be started (" << std::strerror(errno) << ")\n";
        return kExitRuntimeFailure;
    }
    const std::string what = argc >= 2 ? "'" + std::string(argv[1]) + "'" : "this command";
    std::cerr << "attnwb: " << what << " needs the engine (" << engine.said() << "), which cannot be started ("
              << std::strerror(errno) << "); inspect, diff, report and merge work without it\n";
    return kExitRuntimeFailure;
}
