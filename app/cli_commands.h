// attnwb subcommands: each registers its options and returns the function that runs it.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace awb::cli {

// Exit codes of every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRuntimeFailure = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitOutOfTolerance = 3;  // attnwb check: a variant disagrees with the reference
inline constexpr int kExitInterrupted = 130;   // Ctrl-C (what finished is still written)

using Command = std::function<int()>;

Command register_profile(CLI::App& app);
Command register_bench(CLI::App& app);
Command register_sweep(CLI::App& app);
Command register_check(CLI::App& app);
Command register_inspect(CLI::App& app);
Command register_diff(CLI::App& app);
Command register_report(CLI::App& app);
Command register_merge(CLI::App& app);

}  // namespace awb::cli
