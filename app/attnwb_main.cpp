// attnwb: the Attention Workbench engine without a GUI.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <iostream>

#include "cli_commands.h"
#include "process_tuning.h"

int main(int argc, char** argv) {
    using namespace awb::cli;
    awb::tune_allocator_for_steady_state();
    CLI::App app{"attnwb: profile attention in LibTorch (Attention Workbench, headless)"};
    app.require_subcommand(1);
    app.set_help_all_flag("--help-all", "Show the help of every subcommand");
    const Command profile = register_profile(app);
    const Command bench = register_bench(app);
    const Command sweep = register_sweep(app);
    const Command check = register_check(app);
    const Command inspect = register_inspect(app);
    const Command diff = register_diff(app);
    const Command report = register_report(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "attnwb: " << e.what() << "\n(run 'attnwb --help' or 'attnwb SUBCOMMAND --help')\n";
        return kExitBadInput;
    }
    try {
        if (app.got_subcommand("profile")) return profile();
        if (app.got_subcommand("bench")) return bench();
        if (app.got_subcommand("sweep")) return sweep();
        if (app.got_subcommand("check")) return check();
        if (app.got_subcommand("inspect")) return inspect();
        if (app.got_subcommand("diff")) return diff();
        if (app.got_subcommand("report")) return report();
    } catch (const std::exception& e) {
        std::cerr << "attnwb: " << e.what() << "\n";
        return kExitRuntimeFailure;
    }
    return kExitBadInput;
}
