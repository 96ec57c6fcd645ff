// Charts as inline SVG for the HTML report: line/scatter charts on linear or log axes with units, and
// horizontal bar charts. Self-contained markup (no script, no external font). Pure C++.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace awb {

struct ChartPoint {
    double x = 0, y = 0;
    double y_low = 0, y_high = 0;  // an error bar when y_low < y_high
};

struct ChartSeries {
    std::string name;
    std::vector<ChartPoint> points;  // drawn in this order
    bool markers = true;             // a dot at each point (else a plain line)
    bool lines = true;               // join the points
    bool steps = false;              // join them as a step function (a level held until the next point)
    // "#444444"; empty: the palette's, by position (a reference line's own colour keeps the palette's for the rest)
    std::string colour;
};

struct ChartAxis {
    std::string label;                        // "sequence length N", "median time (ms)"
    bool log = false;                         // base-10 scale; non-positive values are left out
    std::function<std::string(double)> text;  // tick text; default: %g
    std::vector<double> ticks;                // where to put ticks; empty: 1, 2, 5 x 10^k
};

struct Chart {
    std::string title;
    ChartAxis x, y;
    int width = 720, height = 340;  // of the plot; the legend adds a line per series below it
};

std::string svg_chart(const Chart& chart, const std::vector<ChartSeries>& series);

struct ChartBar {
    std::string label;
    double value = 0;
    std::string value_text;  // shown after the bar, with its unit
};
std::string svg_bar_chart(const std::string& title, const std::vector<ChartBar>& bars, int width = 720);

// Text for HTML: & < > " escaped.
std::string html_escape(const std::string& text);

}  // namespace awb
