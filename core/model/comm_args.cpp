#include "model/comm_args.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace awb {

bool parse_int_list(std::string_view text, std::vector<int64_t>& out) {
    auto trim = [](std::string_view s) {
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
        return s;
    };
    text = trim(text);
    if (text.size() < 2 || text.front() != '[' || text.back() != ']') return false;
    text = trim(text.substr(1, text.size() - 2));
    std::vector<int64_t> values;
    while (!text.empty()) {
        const size_t comma = text.find(',');
        const std::string_view item = trim(text.substr(0, comma));
        int64_t v = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (ec != std::errc() || end != item.data() + item.size()) return false;
        values.push_back(v);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    }
    out = std::move(values);
    return true;
}

int dtype_bytes(std::string_view dtype) {
    std::string d(dtype);
    if (d.rfind("c10::", 0) == 0) d.erase(0, 5);
    std::transform(d.begin(), d.end(), d.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    // record_param_comms writes c10's ScalarType names (Float, BFloat16, Long); Kineto's "Input type"
    // writes C++ type names (float, c10::BFloat16, long int).
    static const std::pair<std::string_view, int> sizes[] = {
        {"float", 4},
        {"float32", 4},
        {"double", 8},
        {"float64", 8},
        {"half", 2},
        {"float16", 2},
        {"bfloat16", 2},
        {"long", 8},
        {"long int", 8},
        {"int64", 8},
        {"int", 4},
        {"int32", 4},
        {"short", 2},
        {"short int", 2},
        {"int16", 2},
        {"byte", 1},
        {"unsigned char", 1},
        {"uint8", 1},
        {"char", 1},
        {"signed char", 1},
        {"int8", 1},
        {"bool", 1},
        {"float8_e4m3fn", 1},
        {"float8_e5m2", 1},
        {"float8_e4m3fnuz", 1},
        {"float8_e5m2fnuz", 1},
        {"complexfloat", 8},
        {"complex<float>", 8},
        {"complexdouble", 16},
        {"complex<double>", 16},
        {"complexhalf", 4},
        {"complex<c10::half>", 4},
        {"uint16", 2},
        {"uint32", 4},
        {"uint64", 8},
    };
    for (const auto& [name, bytes] : sizes)
        if (d == name) return bytes;
    return 0;
}

}  // namespace awb
