#include "engine/process_tuning.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>

namespace awb {

namespace {
std::string& setting() {
    static std::string s = "glibc defaults";
    return s;
}
}  // namespace

std::string tune_allocator_for_steady_state() {
    const char* opt_out = std::getenv("AWB_MALLOC_DEFAULT");
    if (opt_out && std::strcmp(opt_out, "1") == 0) return setting() = "glibc defaults (AWB_MALLOC_DEFAULT=1)";
    constexpr int kThreshold = 1 << 30;
    const bool ok = mallopt(M_MMAP_THRESHOLD, kThreshold) == 1 && mallopt(M_TRIM_THRESHOLD, kThreshold) == 1;
    return setting() =
               ok ? "glibc, mmap and trim thresholds 1 GiB (freed blocks reused)" : "glibc defaults (mallopt refused)";
}

std::string allocator_setting() { return setting(); }

}  // namespace awb
