#include "model/host_memory.h"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace awb {

namespace {

// "Key:   123 kB" of a /proc file, in bytes; -1 when absent.
int64_t proc_kb(const char* file, const std::string& key) {
    std::ifstream in(file);
    std::string k, unit;
    int64_t kb = 0;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        if (fields >> k >> kb && k == key) return kb * 1024;
    }
    return -1;
}

int64_t read_number(const std::string& path) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max") return -1;
    try {
        return std::stoll(text);
    } catch (const std::exception&) {
        return -1;
    }
}

void consider(HostMemory& m, int64_t room, const std::string& why) {
    if (room < 0) return;
    if (m.available_bytes < 0 || room < m.available_bytes) m = {room, why};
}

}  // namespace

HostMemory host_memory() {
    HostMemory m;
    consider(m, proc_kb("/proc/meminfo", "MemAvailable:"), "available memory");
    // cgroup v2: "0::/user.slice/x.scope"; the tightest limit of the group and its ancestors.
    std::ifstream cg("/proc/self/cgroup");
    std::string line;
    while (std::getline(cg, line)) {
        if (line.rfind("0::", 0) != 0) continue;
        for (std::string group = line.substr(3); !group.empty();) {
            const std::string dir = "/sys/fs/cgroup" + (group == "/" ? std::string() : group);
            const int64_t max = read_number(dir + "/memory.max"), current = read_number(dir + "/memory.current");
            if (max >= 0 && current >= 0)
                consider(m, std::max<int64_t>(0, max - current), "the memory limit of cgroup " + group);
            if (group == "/") break;
            const size_t slash = group.rfind('/');
            group = slash == 0 || slash == std::string::npos ? "/" : group.substr(0, slash);
        }
    }
    struct rlimit as {};
    if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
        const int64_t used = proc_kb("/proc/self/status", "VmSize:");
        // Less 192 MiB: the worker threads' malloc arenas (64 MiB reserved each) and stacks take address
        // space that is not memory.
        if (used >= 0)
            consider(m, std::max<int64_t>(0, int64_t(as.rlim_cur) - used - (int64_t(192) << 20)),
                     "this process's address-space limit (ulimit -v)");
    }
    return m;
}

}  // namespace awb
