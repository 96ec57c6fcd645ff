#include "report/report_snapshot.h"

#include <algorithm>
#include <map>

#include "analysis/snapshot_frames.h"
#include "analysis/snapshot_text.h"
#include "model/printf_string.h"
#include "model/units.h"
#include "report/html_cells.h"
#include "report/svg_chart.h"

namespace awb {

namespace {

constexpr int kWidth = 760, kHeight = 300, kLeft = 70, kBottom = 28, kTop = 8;  // the picture's, in pixels

using html::esc;
using html::num;
using html::td;
using html::th;

struct PictureScale {
    double events, bytes;
    double x(double e) const { return kLeft + e / events * (kWidth - kLeft - 8); }
    double y(double b) const { return kTop + (1 - b / bytes) * (kHeight - kTop - kBottom); }
};

std::string pt(double x, double y) { return printf_string("%.1f,%.1f ", x, y); }

// The allocated bytes as a grey area, the most of the events under each column (the smaller blocks
// show where no band covers it), and the reserved line where it is on the scale.
std::string curves_svg(const DeviceMemoryTimeline& t, const PictureScale& s) {
    const size_t n = t.allocated.size(), columns = size_t(kWidth - kLeft - 8);
    std::string area = pt(s.x(0), s.y(0)), reserved;
    for (size_t c = 0; c < columns; ++c) {
        const size_t a = c * n / columns, b = std::max(a + 1, (c + 1) * n / columns);
        const double most = double(t.allocated_max.max(t.allocated, a, b));
        const double held = double(t.reserved_max.max(t.reserved, a, b));
        area += pt(s.x(double(a)), s.y(most)) + pt(s.x(double(b)), s.y(most));
        if (t.reserved_recorded && held <= s.bytes)
            reserved += pt(s.x(double(a)), s.y(held)) + pt(s.x(double(b)), s.y(held));
    }
    area += pt(s.x(double(n)), s.y(0));
    std::string out = "<polygon fill=\"#c8c8c8\" points=\"" + area +
                      "\"><title>smaller blocks (not drawn one by one)</title></polygon>\n";
    if (!reserved.empty())
        out += "<polyline fill=\"none\" stroke=\"#303030\" stroke-width=\"1.5\" points=\"" + reserved + "\"/>\n";
    return out;
}

std::string band_svg(const MemorySnapshot& snap, const BlockBand& band, const PictureScale& s,
                     const std::string& colour, int64_t x_end) {
    std::string bottom, top;
    for (size_t k = 0; k < band.bottom.size(); ++k) {
        const double from = double(band.bottom[k].first),
                     to = double(k + 1 < band.bottom.size() ? band.bottom[k + 1].first : band.end);
        const double b = double(band.bottom[k].second);
        bottom += pt(s.x(from), s.y(b)) + pt(s.x(to), s.y(b));
        top = pt(s.x(to), s.y(b + double(band.block.size))) + pt(s.x(from), s.y(b + double(band.block.size))) + top;
    }
    const std::string when = band.block.alloc_event < 0
                                 ? "alive before recording began"
                                 : "allocated at event " + std::to_string(band.block.alloc_event);
    const std::string until =
        band.end >= x_end ? "alive at the snapshot" : "freed at event " + std::to_string(band.end - 1);
    return "<polygon fill=\"" + colour + "\" stroke=\"#00000030\" stroke-width=\"0.3\"" +
           (band.block.alloc_event < 0 ? " fill-opacity=\"0.55\"" : "") + " points=\"" + bottom + top + "\"><title>" +
           esc(format_bytes(band.block.size) + ", " + when + ", " + until + "\n" +
               stack_text(snap, band.block.stack, 8)) +
           "</title></polygon>\n";
}

std::string picture(const MemorySnapshot& snap, const DeviceMemoryTimeline& t,
                    const std::map<int32_t, std::string>& colours, const std::vector<int32_t>& allocating) {
    PictureScale s{double(t.allocated.size()),
                   std::max(1.0, double(*std::max_element(t.allocated.begin(), t.allocated.end())) * 1.08)};
    std::string out = printf_string(
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-size=\"11\">\n",
        kWidth, kHeight);
    out += curves_svg(t, s);
    for (const BlockBand& b : t.bands) {
        const auto it = colours.find(b.block.stack == kNoStack ? -1 : allocating[size_t(b.block.stack)]);
        out += band_svg(snap, b, s, it == colours.end() ? kNoStackColour : it->second, int64_t(t.allocated.size()));
    }
    for (int i = 0; i <= 4; ++i) {
        const double v = s.bytes / 1.08 * i / 4;
        out += printf_string("<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", kLeft - 4, s.y(v) + 4,
                             esc(format_bytes(int64_t(v))).c_str());
    }
    const double peak_x = s.x(double(t.peak_index) + 0.5);
    out += printf_string(
        "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#b00020\" stroke-dasharray=\"4 3\"/>\n", peak_x,
        kTop, peak_x, kHeight - kBottom);
    out += printf_string(
        "<text x=\"%d\" y=\"%d\">0</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s trace events</text>\n", kLeft,
        kHeight - 10, kWidth - 8, kHeight - 10, esc(format_count(t.events)).c_str());
    return out + "</svg>\n";
}

std::string blocks_table(const MemorySnapshot& snap, const std::vector<LiveBlock>& blocks, int64_t whole, size_t top) {
    std::string out = "<table>\n<tr>" + th("size") + th("% of peak") + th("allocated") + th("allocated by") +
                      th("stack, innermost first") + "</tr>\n";
    for (size_t i = 0; i < blocks.size() && i < top; ++i) {
        const LiveBlock& b = blocks[i];
        const int32_t frame = allocating_frame(snap, b.stack);
        out += "<tr>" + num(format_bytes(b.size)) + num(format_share(whole > 0 ? double(b.size) / double(whole) : 0)) +
               td(b.alloc_event < 0 ? "before recording" : "event " + std::to_string(b.alloc_event)) +
               td(frame < 0 ? "(no stack recorded)" : frame_text(snap.frames[size_t(frame)])) +
               td(stack_text(snap, b.stack, 6)) + "</tr>\n";
    }
    if (blocks.size() > top)
        out += "<tr><td colspan=\"5\">" + esc(std::to_string(blocks.size() - top) + " more blocks") + "</td></tr>\n";
    return out + "</table>\n";
}

std::string device_html(const MemorySnapshot& snap, const DeviceMemoryTimeline& t,
                        const std::map<int32_t, std::string>& colours, const std::vector<int32_t>& allocating,
                        size_t top) {
    std::string out =
        "<h3>" + esc(snap.device_name(t.device)) + "</h3>\n<p>" +
        esc(format_count(t.events) + " trace events; peak allocated " + format_bytes(t.peak_allocated) +
            (t.peak_index == 0 ? " before the first event" : " after event " + std::to_string(t.peak_index - 1)) +
            (t.reserved_recorded
                 ? ", peak reserved " + format_bytes(t.peak_reserved) + "; at the snapshot " +
                       format_bytes(t.final_allocated) + " allocated of " + format_bytes(t.final_reserved) +
                       " reserved (" + format_bytes(t.final_reserved - t.final_allocated) + " free inside segments); "
                 : "; at the snapshot " + format_bytes(t.final_allocated) + " allocated; reserved " +
                       kReservedNotRecordedWhy + "; ") +
            std::to_string(t.before_recording.size()) + " block(s) of " + format_bytes(bytes_of(t.before_recording)) +
            " alive before recording began (paler)" +
            (t.ooms ? "; out of memory " + std::to_string(t.ooms) + " time(s)" : "")) +
        "</p>\n<p class=\"sub\">" +
        esc("The " + std::to_string(t.bands.size()) +
            " largest blocks stacked in the order they were allocated (a free lets "
            "the blocks above it down), coloured by the frame that allocated them; grey: the smaller blocks; dark "
            "line: reserved "
            "(where on the scale); dashed: the peak. Hover a block for its size and stack.") +
        "</p>\n" + picture(snap, t, colours, allocating);
    out += "<h4>Blocks alive at the peak, largest first</h4>\n" + blocks_table(snap, t.at_peak, t.peak_allocated, top);
    out += "<h4>Bytes at the peak under each frame</h4>\n<table>\n<tr>" + th("bytes") + th("% of peak") + th("blocks") +
           th("frame") + "</tr>\n";
    for (size_t i = 0; i < t.frames_at_peak.size() && i < top; ++i) {
        const FrameBytes& f = t.frames_at_peak[i];
        out += "<tr>" + num(format_bytes(f.bytes)) +
               num(format_share(t.peak_allocated > 0 ? double(f.bytes) / double(t.peak_allocated) : 0)) +
               num(std::to_string(f.blocks)) + td(frame_text(snap.frames[size_t(f.frame)])) + "</tr>\n";
    }
    return out + "</table>\n";
}

}  // namespace

std::string snapshot_section(const MemorySnapshot& snapshot, const SnapshotTimeline& timeline, const std::string& name,
                             size_t top_rows) {
    const std::vector<int32_t> allocating = allocating_frames(snapshot);
    std::map<int32_t, std::string> colours;
    for (const auto& [frame, colour] : allocating_frame_colours(timeline, allocating)) colours[frame] = colour;
    std::string out = "<h2>Memory snapshot</h2>\n<p>" +
                      esc(name + ": pickle protocol " + std::to_string(snapshot.pickle_protocol) + ", " +
                          std::to_string(snapshot.segments.size()) + " segment(s), " +
                          std::to_string(snapshot.stacks.size()) + " distinct stacks") +
                      "</p>\n";
    if (timeline.devices.empty()) return out + "<p>No device has a trace or segments.</p>\n";
    for (const DeviceMemoryTimeline& t : timeline.devices)
        out += device_html(snapshot, t, colours, allocating, top_rows);
    return out;
}

}  // namespace awb
