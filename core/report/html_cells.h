// The HTML report's table cells, escaped: shared by its sections (report_html.cpp, report_snapshot.cpp).
#pragma once

#include <string>

#include "report/svg_chart.h"

namespace awb::html {

inline std::string esc(const std::string& s) { return html_escape(s); }
inline std::string td(const std::string& s) { return "<td>" + esc(s) + "</td>"; }
inline std::string num(const std::string& s) { return "<td class=\"num\">" + esc(s) + "</td>"; }  // right-aligned
inline std::string th(const std::string& s) { return "<th>" + esc(s) + "</th>"; }
// A header whose tooltip says what the column's number is (the tables' descriptions).
inline std::string th(const std::string& s, const std::string& tooltip) {
    return "<th title=\"" + esc(tooltip) + "\">" + esc(s) + "</th>";
}

}  // namespace awb::html
