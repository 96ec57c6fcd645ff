#include "cli_progress.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <unistd.h>

namespace awb::cli {

namespace {

std::atomic<int> g_interrupts{0};
std::atomic<bool> g_keep_finished{false};

extern "C" void on_sigint(int) {
    const int n = g_interrupts.fetch_add(1) + 1;
    const bool keep = g_keep_finished.load();
    const char* msg = !keep    ? "\nattnwb: interrupted, stopping\n"
                      : n == 1 ? "\nattnwb: interrupted: finishing the current step, then keeping what finished "
                                 "(Ctrl-C again to stop now)\n"
                      : n == 2 ? "\nattnwb: stopping now (what finished is still written; Ctrl-C once more to quit "
                                 "at once)\n"
                               : "\nattnwb: quitting at once\n";
    // write() and _exit() are async-signal-safe, stdio is not. Files we write are renamed into place
    // whole (io/atomic_file.h): quitting here never leaves one half-written.
    ssize_t ignored = write(STDERR_FILENO, msg, __builtin_strlen(msg));
    (void)ignored;
    if (keep && n >= 3) _exit(130);
}

// SIGTERM (Slurm's scancel and time limit, Kubernetes, kill): stop now as after a second Ctrl-C,
// keeping what finished. A scheduler may send it to every process of the job, and more than once, so
// a repeat changes nothing; its SIGKILL follows within seconds (Slurm's KillWait).
extern "C" void on_sigterm(int) {
    int n = g_interrupts.load();
    while (n < 2 && !g_interrupts.compare_exchange_weak(n, 2)) {}
    if (n >= 2) return;
    const char* msg = "\nattnwb: terminated (SIGTERM): stopping now (what finished is still written)\n";
    ssize_t ignored = write(STDERR_FILENO, msg, __builtin_strlen(msg));
    (void)ignored;
}

}  // namespace

StderrProgress::StderrProgress(bool quiet, bool keep_finished)
    : quiet_(quiet), keep_finished_(keep_finished), tty_(isatty(STDERR_FILENO) == 1) {
    g_interrupts = 0;
    g_keep_finished = keep_finished;
    std::signal(SIGINT, on_sigint);
    std::signal(SIGTERM, on_sigterm);
}

StderrProgress::~StderrProgress() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    end_line();
}

void StderrProgress::on_progress(int done, int total, const std::string& what) {
    if (quiet_) return;
    // At most 10 updates a second on a terminal, one every 2 s in a log; the last one always.
    const auto now = std::chrono::steady_clock::now();
    if (done < total && now - last_ < std::chrono::milliseconds(tty_ ? 100 : 2000)) return;
    last_ = now;
    std::fprintf(stderr, tty_ ? "\r\033[K[%d/%d] %s" : "[%d/%d] %s\n", done, total, what.c_str());
    std::fflush(stderr);
    line_open_ = true;
}

void StderrProgress::end_line() {
    if (line_open_ && tty_) std::fprintf(stderr, "\r\033[K");
    line_open_ = false;
}

bool StderrProgress::cancel_requested() const { return g_interrupts.load() >= (keep_finished_ ? 2 : 1); }
bool StderrProgress::finish_requested() const { return g_interrupts.load() >= 1; }
bool StderrProgress::interrupted() const { return g_interrupts.load() >= 1; }

}  // namespace awb::cli
