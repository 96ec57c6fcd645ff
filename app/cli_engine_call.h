// How an attnwb subcommand calls the engine and writes its files: one message on stderr for each way
// it can go wrong, mapped to the exit codes of cli_commands.h.
#pragma once

#include <iostream>
#include <string>

#include "cli_commands.h"
#include "cli_progress.h"
#include "model/run_observer.h"
#include "results/run_json.h"

namespace awb::cli {

// Runs work(); returns kExitOk when it returned, else the exit code of what it threw.
template <typename Work>
int call_engine(const char* command, StderrProgress& progress, Work&& work) {
    try {
        work();
        progress.end_line();
        return kExitOk;
    } catch (const InvalidInput& e) {
        progress.end_line();
        std::cerr << "attnwb " << command << ": invalid input:\n" << e.what();
        return kExitBadInput;
    } catch (const Cancelled&) {
        progress.end_line();
        std::cerr << "attnwb " << command << ": cancelled\n";
        return kExitInterrupted;
    } catch (const RunFailed& e) {
        progress.end_line();
        std::cerr << "attnwb " << command << ": run failed: " << e.what() << "\n";
        return kExitRuntimeFailure;
    }
}

// Runs read() (opening input files); returns kExitOk when it returned, kExitInterrupted on Ctrl-C,
// kExitBadInput with its message for anything else it threw (a file that cannot be read).
template <typename Read>
int read_inputs(const char* command, StderrProgress& progress, Read&& read) {
    try {
        read();
        progress.end_line();
        return kExitOk;
    } catch (const Cancelled&) {
        progress.end_line();
        std::cerr << "attnwb " << command << ": cancelled\n";
        return kExitInterrupted;
    } catch (const std::exception& e) {
        progress.end_line();
        std::cerr << "attnwb " << command << ": " << e.what() << "\n";
        return kExitBadInput;
    }
}

// Writes text to path (nothing when path is empty) and says so on stderr; throws on failure.
inline void write_output(const std::string& path, const std::string& text) {
    if (path.empty()) return;
    write_text_file(path, text);
    std::cerr << "wrote " << path << "\n";
}

// Runs write() (a few write_output calls); a failure prints one message and gives kExitRuntimeFailure.
template <typename Write>
int write_outputs(const char* command, Write&& write) {
    try {
        write();
        return kExitOk;
    } catch (const std::exception& e) {
        std::cerr << "attnwb " << command << ": " << e.what() << "\n";
        return kExitRuntimeFailure;
    }
}

}  // namespace awb::cli
