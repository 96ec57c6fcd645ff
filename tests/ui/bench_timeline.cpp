// Timeline paint benchmark: one frame painted offscreen into a 1920x1080 QImage, for 1M and 10M
// synthetic events (or the counts given; 100000000 is a long 8-rank run of 12.5M events each), at full
// zoom-out, at 1% of the trace and at 20 us; median and max over 20 frames, and the memory the timeline
// holds per event (resident bytes added by building it). Goals: <= 16 ms per frame, <= 40 bytes per
// event. Usage: QT_QPA_PLATFORM=offscreen awb_timeline_bench [events...]
#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <vector>

#include "synthetic_timeline.h"
#include "timeline_view.h"

using namespace awb::ui;

namespace {

// Resident bytes of this process now (/proc/self/statm; 0 where there is none).
double resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    double pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * 4096.0;
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    std::vector<size_t> sizes{1'000'000, 10'000'000};
    if (argc > 1) {
        sizes.clear();
        for (int i = 1; i < argc; ++i) sizes.push_back(size_t(std::atoll(argv[i])));
    }
    const QRect area(0, 0, 1920, 1080);
    QImage image(area.size(), QImage::Format_ARGB32_Premultiplied);
    std::printf("%-12s %-26s %10s %10s %10s %10s %10s\n", "events", "view", "median ms", "max ms", "items", "build s",
                "B/event");
    for (size_t n : sizes) {
        QElapsedTimer build;
        const double resident_before = resident_bytes();
        build.start();
        auto data = std::make_shared<const TimelineData>(test::synthetic_timeline(n));
        const double build_s = double(build.nsecsElapsed()) / 1e9;
        const double bytes_per_event = (resident_bytes() - resident_before) / double(data->span_count());
        TimelineView w;
        w.resize(area.size());
        w.setData(data);
        const int64_t mid = (data->start_ns + data->end_ns) / 2;
        struct Case {
            const char* name;
            TimeMapping view;
        };
        const Case cases[] = {
            {"full zoom-out", {data->start_ns, data->end_ns, 1}},
            {"deep zoom (20 us)", {mid, mid + 20'000, 1}},
            {"mid zoom (1% of trace)", {mid, mid + (data->end_ns - data->start_ns) / 100, 1}},
        };
        for (const auto& c : cases) {
            w.setView(c.view);
            std::vector<double> ms;
            size_t items = 0;
            for (int frame = 0; frame < 20; ++frame) {
                QPainter p(&image);
                QElapsedTimer t;
                t.start();
                items = w.paintTo(p, area);
                ms.push_back(double(t.nsecsElapsed()) / 1e6);
            }
            std::sort(ms.begin(), ms.end());
            std::printf("%-12zu %-26s %10.2f %10.2f %10zu %10.2f %10.1f\n", data->span_count(), c.name,
                        ms[ms.size() / 2], ms.back(), items, build_s, bytes_per_event);
        }
    }
    return 0;
}
