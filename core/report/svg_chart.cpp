#include "report/svg_chart.h"

#include <algorithm>
#include <functional>
#include <cmath>
#include <limits>

#include "model/printf_string.h"

namespace awb {

namespace {

// Colour-blind-safe palette (Okabe-Ito), as the GUI's charts.
const char* const kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"};

struct Scale {
    double lo = 0, hi = 1;
    bool log = false;
    double pixel_lo = 0, pixel_hi = 1;
    double map(double v) const {
        const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
        const double t = ((log ? std::log10(v) : v) - a) / (b - a);
        return pixel_lo + t * (pixel_hi - pixel_lo);
    }
};

bool usable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

// 1, 2, 5 x 10^k steps: about five ticks on a linear axis; on a log axis every 1, 2, 5 decade mark in
// range (only powers of ten when the range spans many decades).
std::vector<double> ticks(const Scale& s) {
    std::vector<double> out;
    if (s.log) {
        const int first = int(std::floor(std::log10(s.lo))), last = int(std::ceil(std::log10(s.hi)));
        const bool sparse = last - first > 4;
        for (int k = first; k <= last; ++k)
            for (double m : {1.0, 2.0, 5.0}) {
                if (sparse && m != 1.0) continue;
                const double v = m * std::pow(10.0, k);
                if (v >= s.lo * (1 - 1e-9) && v <= s.hi * (1 + 1e-9)) out.push_back(v);
            }
        return out;
    }
    const double raw = (s.hi - s.lo) / 5;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * mag >= raw) {
            step = m * mag;
            break;
        }
    for (double v = std::ceil(s.lo / step) * step; v <= s.hi + step * 1e-9; v += step)
        out.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
    return out;
}

// The data range, padded: 5% on linear axes (from 0 when all values are positive and near it), a
// quarter decade on log axes.
Scale range(std::vector<double> values, bool log) {
    Scale s;
    s.log = log;
    if (values.empty()) {
        s.lo = log ? 1 : 0;
        s.hi = log ? 10 : 1;
        return s;
    }
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    s.lo = *lo;
    s.hi = *hi;
    if (log) {
        s.lo /= 1.25;
        s.hi *= 1.25;
    } else {
        if (s.lo >= 0 && s.lo < 0.5 * s.hi) s.lo = 0;
        const double pad = s.hi > s.lo ? 0.05 * (s.hi - s.lo) : std::max(1.0, std::abs(s.hi) * 0.1);
        s.hi += pad;
        if (s.lo != 0) s.lo -= pad;
    }
    return s;
}

std::string default_text(double v) { return printf_string("%g", v); }

}  // namespace

std::string html_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

namespace {

using TickText = std::function<std::string(double)>;

// The plot's scales: the data's ranges (error bars included) mapped onto the area inside the margins.
std::pair<Scale, Scale> chart_scales(const Chart& chart, const std::vector<ChartSeries>& series) {
    const double left = 78, right = 20, top = 34, bottom = 52;
    std::vector<double> xs, ys;
    for (const auto& s : series)
        for (const auto& p : s.points) {
            if (!usable(p.x, chart.x.log) || !usable(p.y, chart.y.log)) continue;
            xs.push_back(p.x);
            ys.push_back(p.y);
            if (p.y_low < p.y_high && usable(p.y_low, chart.y.log)) ys.push_back(p.y_low);
            if (p.y_low < p.y_high && usable(p.y_high, chart.y.log)) ys.push_back(p.y_high);
        }
    Scale sx = range(xs, chart.x.log), sy = range(ys, chart.y.log);
    sx.pixel_lo = left;
    sx.pixel_hi = chart.width - right;
    sy.pixel_lo = chart.height - bottom;
    sy.pixel_hi = top;
    return {sx, sy};
}

// The grid with its tick labels, the frame and the two axis labels.
std::string chart_axes(const Chart& chart, const Scale& sx, const Scale& sy, const TickText& xt, const TickText& yt) {
    std::string out;
    for (double v : chart.x.ticks.empty() ? ticks(sx) : chart.x.ticks) {
        const double px = sx.map(v);
        out += printf_string("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>", px,
                             sy.pixel_hi, px, sy.pixel_lo);
        out += printf_string("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", px, sy.pixel_lo + 15) +
               html_escape(xt(v)) + "</text>\n";
    }
    for (double v : chart.y.ticks.empty() ? ticks(sy) : chart.y.ticks) {
        const double py = sy.map(v);
        out += printf_string("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>", sx.pixel_lo,
                             py, sx.pixel_hi, py);
        out += printf_string("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", sx.pixel_lo - 5, py + 4) +
               html_escape(yt(v)) + "</text>\n";
    }
    out += printf_string("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#888\"/>\n",
                         sx.pixel_lo, sy.pixel_hi, sx.pixel_hi - sx.pixel_lo, sy.pixel_lo - sy.pixel_hi);
    out += printf_string("<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", (sx.pixel_lo + sx.pixel_hi) / 2,
                         chart.height - 12) +
           html_escape(chart.x.label + (chart.x.log ? " (log scale)" : "")) + "</text>\n";
    out += printf_string("<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">",
                         (sy.pixel_lo + sy.pixel_hi) / 2) +
           html_escape(chart.y.label + (chart.y.log ? " (log scale)" : "")) + "</text>\n";
    return out;
}

// One series: its line (or steps), error bars and markers with a tooltip each, and its legend entry (row i).
std::string chart_series(const Chart& chart, const ChartSeries& s, size_t i, const char* colour, const Scale& sx,
                         const Scale& sy, const TickText& xt, const TickText& yt) {
    std::string out, path;
    for (const auto& p : s.points) {
        if (!usable(p.x, chart.x.log) || !usable(p.y, chart.y.log)) continue;
        if (s.steps && !path.empty()) path += printf_string("H%.1f ", sx.map(p.x));
        path += printf_string("%s%.1f,%.1f ", path.empty() ? "M" : "L", sx.map(p.x), sy.map(p.y));
    }
    if (s.lines && !path.empty())
        out += "<path d=\"" + path + printf_string("\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"/>\n", colour);
    for (const auto& p : s.points) {
        if (!usable(p.x, chart.x.log) || !usable(p.y, chart.y.log)) continue;
        const double px = sx.map(p.x);
        if (p.y_low < p.y_high && usable(p.y_low, chart.y.log))
            out += printf_string("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>", px,
                                 sy.map(p.y_low), px, sy.map(p.y_high), colour);
        if (s.markers)
            out += printf_string("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.8\" fill=\"%s\"><title>", px, sy.map(p.y),
                                 colour) +
                   html_escape(s.name + ": " + xt(p.x) + ", " + yt(p.y)) + "</title></circle>";
    }
    out += "\n";
    const double ly = chart.height + 10 + 16.0 * double(i);
    out += printf_string("<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"3\" fill=\"%s\"/>", sx.pixel_lo, ly - 4,
                         colour);
    out += printf_string("<text x=\"%.1f\" y=\"%.1f\">", sx.pixel_lo + 20, ly) + html_escape(s.name) + "</text>\n";
    return out;
}

}  // namespace

std::string svg_chart(const Chart& chart, const std::vector<ChartSeries>& series) {
    const int total_height = chart.height + 16 * int(series.size()) + 4;
    const auto [sx, sy] = chart_scales(chart, series);
    const TickText xt = chart.x.text ? TickText(chart.x.text) : TickText(default_text);
    const TickText yt = chart.y.text ? TickText(chart.y.text) : TickText(default_text);
    std::string out = printf_string(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
        "font-family=\"sans-serif\" font-size=\"11\">\n",
        chart.width, total_height, chart.width, total_height);
    out += printf_string("<text x=\"%.0f\" y=\"18\" font-size=\"13\" font-weight=\"bold\">", sx.pixel_lo) +
           html_escape(chart.title) + "</text>\n";
    out += chart_axes(chart, sx, sy, xt, yt);
    for (size_t i = 0, palette = 0; i < series.size(); ++i) {
        const char* colour =
            series[i].colour.empty() ? kColours[palette++ % std::size(kColours)] : series[i].colour.c_str();
        out += chart_series(chart, series[i], i, colour, sx, sy, xt, yt);
    }
    out += "</svg>\n";
    return out;
}

std::string svg_bar_chart(const std::string& title, const std::vector<ChartBar>& bars, int width) {
    const double label_w = 250, text_w = 110, row = 18, top = 28;
    const int height = int(top + row * double(bars.size()) + 8);
    double max = 0;
    for (const auto& b : bars) max = std::max(max, b.value);
    std::string out = printf_string(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
        "font-family=\"sans-serif\" font-size=\"11\">\n",
        width, height, width, height);
    out += "<text x=\"4\" y=\"16\" font-size=\"13\" font-weight=\"bold\">" + html_escape(title) + "</text>\n";
    for (size_t i = 0; i < bars.size(); ++i) {
        const double y = top + row * double(i);
        const double w = max > 0 ? (double(width) - label_w - text_w) * bars[i].value / max : 0;
        std::string label = bars[i].label.size() > 40 ? bars[i].label.substr(0, 39) + "\u2026" : bars[i].label;
        out += printf_string("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", label_w - 6, y + 12) +
               html_escape(label) + "<title>" + html_escape(bars[i].label) + "</title></text>";
        out += printf_string("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>", label_w, y + 2,
                             std::max(w, 0.5), row - 5, kColours[0]);
        out += printf_string("<text x=\"%.1f\" y=\"%.1f\">", label_w + w + 5, y + 12) +
               html_escape(bars[i].value_text) + "</text>\n";
    }
    out += "</svg>\n";
    return out;
}

}  // namespace awb
