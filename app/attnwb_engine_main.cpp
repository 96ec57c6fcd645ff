// attnwb-engine: every attnwb subcommand, with the LibTorch engine. attnwb starts it for profile,
// bench, sweep, check, --help and --version; it can also be run directly.
#include "cli_main.h"
#include "engine/build_info.h"
#include "engine/process_tuning.h"

int main(int argc, char** argv) {
    using namespace awb::cli;
    awb::tune_allocator_for_steady_state();
    std::vector<CommandEntry> commands = {
        {"profile", register_profile}, {"bench", register_bench}, {"sweep", register_sweep}, {"check", register_check}};
    for (const auto& reader : reader_commands()) commands.push_back(reader);
    return run_cli(argc, argv, commands, attnwb_version_line() + "\n" + awb::libtorch_lines());
}
