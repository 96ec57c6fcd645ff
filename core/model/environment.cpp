#include "model/environment.h"

#include <ctime>

#include "model/units.h"

namespace awb {

std::string utc_now(const char* strftime_format) {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, strftime_format, &tm);
    return buf;
}

std::string module_identity_text(const ModuleIdentity& m) {
    std::string facts = m.format;
    auto add = [&facts](const std::string& fact) { facts += (facts.empty() ? "" : ", ") + fact; };
    if (m.size_bytes >= 0) add(format_bytes(m.size_bytes));
    if (!m.sha256.empty()) add("sha256 " + m.sha256.substr(0, 12));
    if (!m.exported_by.empty()) add("exported by " + m.exported_by);
    return m.name + (facts.empty() ? "" : " (" + facts + ")") + (m.path.empty() ? "" : ": " + m.path);
}

}  // namespace awb
