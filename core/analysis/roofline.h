// What a roofline chart shows, the same for the GUI and the HTML report: one point per
// attention call or sweep point at its arithmetic intensity (FLOPs over ideal bytes) and achieved
// rate, and the roofs they sit under: min(peak, intensity x bandwidth), bent at the ridge point.
// Pure C++.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/attention.h"
#include "model/device_roofs.h"
#include "model/sweep.h"

namespace awb {

struct RooflinePoint {
    std::string series;    // what the points of one colour share: "flash fwd c10::BFloat16", "sdpa float32"
    std::string label;     // this point: "2x8x1024x64, 1.2 ms", "N = 2048"
    std::string dtype;     // as traces name it, for its roof (find_roof)
    double intensity = 0;  // FLOP per byte (ideal bytes)
    double tflops = 0;     // achieved TFLOP/s
    int index = -1;        // the call's index in the calls given, or the sweep point's
    std::string tag;  // its short label on a chart: the call's shape "2x8x1024x1024x64", the sweep point's "N = 2048"
};

// Calls with a known shape, a time and bytes; series by backend, pass and dtype.
std::vector<RooflinePoint> roofline_points(const std::vector<AttentionInstance>& calls);
// The sweep's measured points; series by variant and dtype.
std::vector<RooflinePoint> roofline_points(const SweepResult& sweep);
// The distinct known roofs of a sweep's points (one per device and dtype).
std::vector<Roof> sweep_roofs(const SweepResult& sweep);

// The roof as a polyline from intensity lo to hi: the bandwidth slope up to the ridge, then the peak.
std::vector<std::pair<double, double>> roof_polyline(const Roof& roof, double lo, double hi);
// The intensity range a chart of these points and roofs needs (a decade around both, ridges included).
std::pair<double, double> roofline_x_range(const std::vector<RooflinePoint>& points, const std::vector<Roof>& roofs);

// "H200 SXM c10::BFloat16 roof: 989 TFLOP/s, 4.80 TB/s, ridge 206 FLOP/byte" (" (measured)" after a
// measured one); without the ridge where the chart labels it.
std::string roof_legend(const Roof& roof, bool with_ridge = true);

}  // namespace awb
