// The attnwb command line, shared by its two programs:
//   attnwb         the readers (inspect, diff, report, merge): links no LibTorch, starts in milliseconds, and
//                  hands every other subcommand (and --help) to attnwb-engine in the same folder;
//   attnwb-engine  every subcommand, with the LibTorch engine (profile, bench, sweep, check).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "cli_commands.h"

namespace awb::cli {

struct CommandEntry {
    const char* name;
    Command (*register_command)(CLI::App&);
};

// The subcommands that read result files and traces only: attnwb runs them itself.
std::vector<CommandEntry> reader_commands();
bool is_reader_command(std::string_view name);

// Parses argv against commands (in help order) and runs the chosen one; returns the exit code.
// version: what --version prints (attnwb-engine's; attnwb hands --version to it).
int run_cli(int argc, char** argv, const std::vector<CommandEntry>& commands, const std::string& version = "");

// "attnwb 0.1.0 (Attention Workbench)": the first line of --version.
std::string attnwb_version_line();

}  // namespace awb::cli
