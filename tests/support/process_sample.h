// What a soak benchmark watches in its own process (tests/engine/soak_engine.cpp, tests/ui/soak_window.cpp):
// resident memory, open file descriptors and threads, from /proc/self.
#pragma once

#include <dirent.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace awb::test {

struct ProcessSample {
    double rss_mib = 0;
    int fds = 0;
    int threads = 0;
};

inline ProcessSample process_sample() {
    ProcessSample s;
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmRSS:", 0) == 0) s.rss_mib = std::atof(line.c_str() + 6) / 1024.0;
        if (line.rfind("Threads:", 0) == 0) s.threads = std::atoi(line.c_str() + 8);
    }
    if (DIR* d = opendir("/proc/self/fd")) {
        while (dirent* e = readdir(d)) s.fds += e->d_name[0] != '.';
        closedir(d);
        s.fds -= 1;  // the listing's own descriptor
    }
    return s;
}

}  // namespace awb::test
