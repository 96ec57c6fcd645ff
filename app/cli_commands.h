// attnwb subcommands: each registers its options and returns the function that runs it.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace awb::cli {

// Exit codes of every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRuntimeFailure = 1;
inline constexpr int kExitBadInput = 2;

using Command = std::function<int()>;

Command register_profile(CLI::App& app);

}  // namespace awb::cli
