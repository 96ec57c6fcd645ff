// Timeline paint benchmark: one frame painted offscreen into a 1920x1080 QImage, for 1M and 10M
// synthetic events, at full zoom-out and at a deep zoom; median and max over 20 frames.
// Goal: <= 16 ms per frame. Usage: QT_QPA_PLATFORM=offscreen awb_timeline_bench [events...]
#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "synthetic_timeline.h"
#include "timeline_widget.h"

using namespace awb::ui;

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    std::vector<size_t> sizes{1'000'000, 10'000'000};
    if (argc > 1) {
        sizes.clear();
        for (int i = 1; i < argc; ++i) sizes.push_back(size_t(std::atoll(argv[i])));
    }
    const QRect area(0, 0, 1920, 1080);
    QImage image(area.size(), QImage::Format_ARGB32_Premultiplied);
    std::printf("%-12s %-26s %10s %10s %10s %12s\n", "events", "view", "median ms", "max ms", "items", "build s");
    for (size_t n : sizes) {
        QElapsedTimer build;
        build.start();
        auto data = std::make_shared<const TimelineData>(test::synthetic_timeline(n));
        const double build_s = double(build.nsecsElapsed()) / 1e9;
        TimelineWidget w;
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
            std::printf("%-12zu %-26s %10.2f %10.2f %10zu %12.2f\n", data->span_count(), c.name, ms[ms.size() / 2],
                        ms.back(), items, build_s);
        }
    }
    return 0;
}
