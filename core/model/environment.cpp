#include "model/environment.h"

#include <ctime>

namespace awb {

std::string utc_now(const char* strftime_format) {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, strftime_format, &tm);
    return buf;
}

}  // namespace awb
