#include "cli_main.h"

#include "model/version.h"

#include <exception>
#include <iostream>
#include <string>

namespace awb::cli {

std::vector<CommandEntry> reader_commands() {
    return {
        {"inspect", register_inspect}, {"diff", register_diff}, {"report", register_report}, {"merge", register_merge}};
}

std::string attnwb_version_line() { return "attnwb " AWB_VERSION " (Attention Workbench)"; }

bool is_reader_command(std::string_view name) {
    for (const auto& c : reader_commands())
        if (name == c.name) return true;
    return false;
}

int run_cli(int argc, char** argv, const std::vector<CommandEntry>& commands, const std::string& version) {
    CLI::App app{"attnwb: profile attention in LibTorch (Attention Workbench, headless)"};
    app.require_subcommand(1);
    if (!version.empty())
        app.set_version_flag("--version", version,
                             "Print the version, the LibTorch built with and loaded, and CUDA, then exit");
    app.set_help_all_flag("--help-all", "Show the help of every subcommand");
    std::vector<std::pair<std::string, Command>> registered;
    for (const auto& c : commands) registered.emplace_back(c.name, c.register_command(app));
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "attnwb: " << e.what() << "\n(run 'attnwb --help' or 'attnwb SUBCOMMAND --help')\n";
        return kExitBadInput;
    }
    try {
        for (const auto& [name, run] : registered)
            if (app.got_subcommand(name)) return run();
    } catch (const std::exception& e) {
        std::cerr << "attnwb: " << e.what() << "\n";
        return kExitRuntimeFailure;
    }
    return kExitBadInput;
}

}  // namespace awb::cli
