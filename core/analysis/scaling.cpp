#include "analysis/scaling.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace awb {

PowerFit fit_power_law(const std::vector<SeriesPoint>& points) {
    PowerFit f;
    std::vector<std::pair<double, double>> xy;
    for (const auto& p : points)
        if (p.n > 0 && p.value > 0 && std::isfinite(p.n) && std::isfinite(p.value))
            xy.emplace_back(std::log(p.n), std::log(p.value));
    f.points = int(xy.size());
    std::vector<double> xs;
    for (const auto& [x, y] : xy) xs.push_back(x);
    std::sort(xs.begin(), xs.end());
    f.lengths = int(std::unique(xs.begin(), xs.end()) - xs.begin());
    if (f.lengths < kMinFitPoints) return f;
    double mx = 0, my = 0;
    for (const auto& [x, y] : xy) mx += x, my += y;
    mx /= double(xy.size());
    my /= double(xy.size());
    double sxx = 0, sxy = 0, syy = 0;
    for (const auto& [x, y] : xy) {
        sxx += (x - mx) * (x - mx);
        sxy += (x - mx) * (y - my);
        syy += (y - my) * (y - my);
    }
    if (sxx <= 0) return f;
    f.valid = true;
    f.exponent = sxy / sxx;
    f.coefficient = std::exp(my - f.exponent * mx);
    f.r_squared = syy > 0 ? (sxy * sxy) / (sxx * syy) : 1.0;
    return f;
}

std::string fit_refusal(const PowerFit& f) {
    if (f.valid) return "";
    const std::string needs = " (a fit needs " + std::to_string(kMinFitPoints) + ")";
    if (f.points < kMinFitPoints)
        return "no fit: " + std::to_string(f.points) + (f.points == 1 ? " point" : " points") + needs;
    return "no fit: " + std::to_string(f.lengths) + (f.lengths == 1 ? " distinct length" : " distinct lengths") + needs;
}

std::vector<Crossover> find_crossovers(const std::vector<SeriesPoint>& a, const std::vector<SeriesPoint>& b) {
    std::map<double, double> bv;
    for (const auto& p : b)
        if (p.value > 0) bv[p.n] = p.value;
    std::map<double, double> diff;  // n -> log(a) - log(b)
    for (const auto& p : a)
        if (p.value > 0 && p.n > 0)
            if (auto it = bv.find(p.n); it != bv.end()) diff[p.n] = std::log(p.value) - std::log(it->second);

    std::vector<Crossover> out;
    // Walk the sign changes, stepping over exact ties: a tie between two opposite signs is the crossover.
    double prev_n = 0, prev_d = 0;
    bool have_prev = false;
    double tie_n = 0;
    bool tie_pending = false;
    for (const auto& [n, d] : diff) {
        if (d == 0) {
            if (have_prev && !tie_pending) {
                tie_n = n;
                tie_pending = true;
            }
            continue;
        }
        if (have_prev && (d > 0) != (prev_d > 0)) {
            Crossover c;
            c.n_before = prev_n;
            c.n_after = n;
            if (tie_pending) {
                c.n = tie_n;
            } else {  // linear in (log n, log a - log b)
                const double x0 = std::log(prev_n), x1 = std::log(n);
                c.n = std::exp(x0 + (x1 - x0) * prev_d / (prev_d - d));
            }
            c.a_lower_after = d < 0;
            out.push_back(c);
        }
        prev_n = n;
        prev_d = d;
        have_prev = true;
        tie_pending = false;
    }
    return out;
}

}  // namespace awb
