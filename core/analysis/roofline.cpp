#include "analysis/roofline.h"

#include <algorithm>
#include <cmath>

#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

std::vector<RooflinePoint> roofline_points(const std::vector<AttentionInstance>& calls) {
    std::vector<RooflinePoint> out;
    for (size_t i = 0; i < calls.size(); ++i) {
        const AttentionInstance& a = calls[i];
        const AttentionShape& s = a.shape;
        if (!s.known() || a.time_ns() <= 0 || a.bytes <= 0 || a.flops <= 0) continue;
        const std::string shape = printf_string("%lldx%lldx%lldx%lldx%lld", (long long)s.batch, (long long)s.heads_q,
                                                (long long)s.seq_q, (long long)s.seq_k, (long long)s.head_dim);
        out.push_back({backend_text(a) + (a.backward ? " bwd " : " fwd ") + a.dtype,
                       shape + ", " + format_duration_ns(double(a.time_ns())) +
                           (a.device_ns > 0 ? " on the device" : " on the CPU"),
                       a.dtype, a.flops / a.bytes, a.tflops_per_s(), int(i), shape});
    }
    return out;
}

std::vector<RooflinePoint> roofline_points(const SweepResult& sweep) {
    std::vector<RooflinePoint> out;
    for (size_t i = 0; i < sweep.points.size(); ++i) {
        const SweepPoint& p = sweep.points[i];
        if (p.status != PointStatus::Ok || p.bench.bytes <= 0 || p.bench.flops <= 0 || p.bench.gflops_per_s <= 0)
            continue;
        out.push_back({p.spec.variant + " " + to_string(p.spec.dtype),
                       printf_string("%s, N = %lld, %s", shape_string(p.spec).c_str(), (long long)p.spec.seq_q,
                                     format_duration_ns(p.bench.timing.median_ns).c_str()),
                       trace_dtype_name(p.spec.dtype), p.bench.flops / p.bench.bytes, p.bench.gflops_per_s / 1e3,
                       int(i), printf_string("N = %lld", (long long)p.spec.seq_q)});
    }
    return out;
}

std::vector<Roof> sweep_roofs(const SweepResult& sweep) {
    std::vector<Roof> out;
    for (const SweepPoint& p : sweep.points) {
        const Roof& r = p.bench.roof;
        if (p.status == PointStatus::Ok && r.known() && std::none_of(out.begin(), out.end(), [&](const Roof& o) {
                return o.device == r.device && o.dtype == r.dtype;
            }))
            out.push_back(r);
    }
    return out;
}

std::vector<std::pair<double, double>> roof_polyline(const Roof& roof, double lo, double hi) {
    if (!roof.known() || lo <= 0 || hi <= lo) return {};
    const double ridge = roof.ridge();
    std::vector<std::pair<double, double>> out{{lo, std::min(roof.peak_tflops, lo * roof.memory_tb_s)}};
    if (ridge > lo && ridge < hi) out.emplace_back(ridge, roof.peak_tflops);
    out.emplace_back(hi, std::min(roof.peak_tflops, hi * roof.memory_tb_s));
    return out;
}

std::pair<double, double> roofline_x_range(const std::vector<RooflinePoint>& points, const std::vector<Roof>& roofs) {
    double lo = INFINITY, hi = 0;
    for (const RooflinePoint& p : points) lo = std::min(lo, p.intensity), hi = std::max(hi, p.intensity);
    for (const Roof& r : roofs)
        if (r.known()) lo = std::min(lo, r.ridge()), hi = std::max(hi, r.ridge());
    if (hi <= 0) return {1, 1000};
    return {std::pow(10.0, std::floor(std::log10(lo / 3))), std::pow(10.0, std::ceil(std::log10(hi * 1.5)))};
}

std::string roof_legend(const Roof& r, bool with_ridge) {
    return printf_string("%s %s roof: %s, %s", r.device.c_str(), r.dtype.c_str(),
                         format_flop_rate(r.peak_tflops).c_str(), format_bandwidth(r.memory_tb_s).c_str()) +
           (with_ridge ? printf_string(", ridge %.3g FLOP/byte", r.ridge()) : std::string()) +
           (r.measured ? " (measured)" : "");
}

}  // namespace awb
