#include "model/units.h"

#include <cmath>
#include <cstdlib>

#include "model/printf_string.h"

namespace awb {

namespace {

// v with d decimals, ties rounded away from zero (as Qt's QString::arg does; printf rounds to even).
std::string fixed(double v, int d, const char* unit) {
    const double scale = std::pow(10.0, d);
    return printf_string("%.*f %s", d, std::round(v * scale) / scale, unit);
}

}  // namespace

std::string format_duration_ns(double ns) {
    const double a = std::abs(ns);
    if (a < 1e3) return fixed(ns, 0, "ns");
    if (a < 1e6) return fixed(ns / 1e3, a < 1e4 ? 2 : 1, "us");
    if (a < 1e9) return fixed(ns / 1e6, a < 1e7 ? 3 : 2, "ms");
    return fixed(ns / 1e9, 3, "s");
}

std::string format_bytes(int64_t bytes) {
    const double a = std::abs(double(bytes));
    if (a < 1024) return printf_string("%lld B", static_cast<long long>(bytes));
    if (a < 1024.0 * 1024) return fixed(double(bytes) / 1024, 1, "KiB");
    if (a < 1024.0 * 1024 * 1024) return fixed(double(bytes) / 1048576.0, 1, "MiB");
    return fixed(double(bytes) / 1073741824.0, 2, "GiB");
}

std::string format_signed_bytes(int64_t delta) {
    return (delta > 0 ? "+" : delta < 0 ? "-" : "") + format_bytes(std::llabs(delta));
}

std::string format_signed_duration_ns(double delta) { return (delta > 0 ? "+" : "") + format_duration_ns(delta); }

std::string format_share(double share) { return printf_string("%.1f%%", share * 100); }

std::string format_count(int64_t n) {
    const std::string digits = std::to_string(n < 0 ? -(n + 1) + uint64_t(1) : uint64_t(n));
    std::string out = n < 0 ? "-" : "";
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string format_flops(double flops) {
    static const std::pair<double, const char*> units[] = {
        {1e15, "PFLOP"}, {1e12, "TFLOP"}, {1e9, "GFLOP"}, {1e6, "MFLOP"}, {1e3, "kFLOP"}};
    for (const auto& [scale, unit] : units)
        if (flops >= scale)
            return printf_string(flops >= 100 * scale  ? "%.0f %s"
                                 : flops >= 10 * scale ? "%.1f %s"
                                                       : "%.2f %s",
                                 flops / scale, unit);
    return printf_string("%.0f FLOP", flops);
}

std::string format_flop_rate(double tflops) { return format_flops(tflops * 1e12) + "/s"; }

std::string format_bandwidth(double tb_s) {
    return tb_s >= 1      ? printf_string("%.2f TB/s", tb_s)
           : tb_s >= 1e-3 ? printf_string("%.1f GB/s", tb_s * 1e3)
                          : printf_string("%.1f MB/s", tb_s * 1e6);
}

std::string format_gb_s(double gb_s) { return gb_s > 0 ? format_bandwidth(gb_s / 1e3) : std::string("-"); }

std::string format_ms(double ns) {
    const double ms = ns / 1e6;
    return printf_string(ms >= 1 ? "%.3f ms" : "%.4f ms", ms);
}

std::string format_mib(int64_t bytes) { return printf_string("%.1f MiB", double(bytes) / (1024.0 * 1024.0)); }

std::string format_time_us(double us) {
    if (us >= 1e6) return printf_string("%.3fs", us / 1e6);
    if (us >= 1e3) return printf_string("%.3fms", us / 1e3);
    return printf_string("%.3fus", us);
}

std::string format_memory(int64_t bytes) {
    constexpr double KB = 1024.0, MB = KB * 1024.0, GB = MB * 1024.0;
    const double a = std::abs(double(bytes));
    if (a >= GB) return printf_string("%.2f Gb", double(bytes) / GB);
    if (a >= MB) return printf_string("%.2f Mb", double(bytes) / MB);
    if (a >= KB) return printf_string("%.2f Kb", double(bytes) / KB);
    return printf_string("%lld b", static_cast<long long>(bytes));
}

}  // namespace awb
