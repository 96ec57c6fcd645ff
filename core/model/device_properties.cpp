#include "model/device_properties.h"

#include <vector>

#include "model/printf_string.h"

namespace awb {

std::string device_text(const DeviceProperties& d) {
    std::vector<std::string> facts;
    if (d.total_global_mem >= 0)
        facts.push_back(printf_string("%.1f GiB", double(d.total_global_mem) / double(1 << 30)));
    if (d.compute_major >= 0)
        facts.push_back("compute " + std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor));
    if (d.num_sms >= 0) facts.push_back(std::to_string(d.num_sms) + " SMs");
    // A trace may record a GPU without its name (ROCm's Kineto writes "name": "" for an MI300X): the
    // facts it does record still say which GPU it was.
    if (d.name.empty() && facts.empty()) return "";
    std::string text = d.name.empty() ? "unnamed GPU" : d.name;
    for (size_t i = 0; i < facts.size(); ++i) text += (i ? ", " : " (") + facts[i] + (i + 1 == facts.size() ? ")" : "");
    return text;
}

}  // namespace awb
