// How much memory this process may still take on this machine, before allocating: the least of the
// kernel's MemAvailable, the room left under the memory limit of this process's cgroup (v2, any
// ancestor) and the room left under its address-space limit (ulimit -v). A spec whose estimate exceeds
// it is refused (model/run_spec.h) and so is a trace that would not fit (io/trace_import.h), with a
// message, instead of the OOM killer ending the program.
#pragma once

#include <cstdint>
#include <string>

namespace awb {

struct HostMemory {
    int64_t available_bytes = -1;  // -1: unknown
    std::string limited_by;        // "available memory", "the memory limit of cgroup /x", "ulimit -v"
};

HostMemory host_memory();

}  // namespace awb
