// How a metric scales with the sequence length: power-law fits (least squares in log-log) and the
// lengths at which one variant overtakes another. Pure C++.
#pragma once

#include <string>
#include <vector>

namespace awb {

struct SeriesPoint {
    double n = 0;      // sequence length
    double value = 0;  // time or bytes
};

// A power law through fewer lengths says nothing: two points always lie on a line (R^2 = 1).
inline constexpr int kMinFitPoints = 3;

struct PowerFit {
    bool valid = false;   // needs kMinFitPoints distinct positive n with positive values
    double exponent = 0;  // value ~ coefficient * n^exponent
    double coefficient = 0;
    double r_squared = 0;  // of the log-log line
    int points = 0;        // points used
    int lengths = 0;       // distinct lengths among them
};

PowerFit fit_power_law(const std::vector<SeriesPoint>& points);
// Why there is no fit, as every report says it: "no fit: 2 points (a fit needs 3)"; "" for a valid fit.
std::string fit_refusal(const PowerFit& fit);

struct Crossover {
    double n = 0;                      // where the two curves meet, interpolated in log-log
    double n_before = 0, n_after = 0;  // the measured lengths that bracket it
    bool a_lower_after = false;        // past the crossover, series a has the lower value
};

// Crossovers of two series over the lengths both have (matched exactly), in increasing n. Equal
// values at a measured n count as a crossover at that n only when the order differs on both sides.
std::vector<Crossover> find_crossovers(const std::vector<SeriesPoint>& a, const std::vector<SeriesPoint>& b);

}  // namespace awb
