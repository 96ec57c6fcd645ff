// The timeline without a window and on real traces: the time-to-pixel mapping, zoom and pan, the
// folding of narrow spans (its cost does not grow with events), nesting by depth, a real trace painted
// with its memory track, tooltips from the run's analysis.
#include <QAbstractItemModelTester>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QRegularExpression>
#include <QFileInfo>
#include <QDir>
#include <QDockWidget>
#include <QHeaderView>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QTest>
#include <fstream>
#include <nlohmann/json.hpp>
#include <qcustomplot.h>
#include <QTimer>
#include <algorithm>
#include <memory>
#include <optional>
#include "attention_view.h"
#include "comparison_model.h"
#include "comparison_view.h"
#include "engine/roof_probe.h"
#include "engine/sweep_runner.h"
#include "engine_worker.h"
#include "findings_view.h"
#include "format_qt.h"
#include "synthetic_timeline.h"
#include "timeline_view.h"
#include "ui_test_registry.h"
#include "ui_test_support.h"
using namespace awb;
using namespace awb::ui;
using namespace awb::ui::test;

class TimelineTests : public QObject {
    Q_OBJECT
private slots:
    void timeMapping_data() {
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<double>("width");
        QTest::addColumn<qint64>("t");
        QTest::addColumn<double>("x");
        QTest::newRow("origin") << qint64(0) << qint64(1000) << 100.0 << qint64(0) << 0.0;
        QTest::newRow("middle") << qint64(0) << qint64(1000) << 100.0 << qint64(500) << 50.0;
        QTest::newRow("offset") << qint64(1'000'000) << qint64(1'002'000) << 200.0 << qint64(1'001'000) << 100.0;
        QTest::newRow("before view") << qint64(100) << qint64(200) << 10.0 << qint64(50) << -5.0;
        QTest::newRow("10 s over 1920 px")
            << qint64(0) << qint64(10'000'000'000) << 1920.0 << qint64(5'000'000'000) << 960.0;
    }
    void timeMapping() {
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        QFETCH(double, width);
        QFETCH(qint64, t);
        QFETCH(double, x);
        const TimeMapping m{start, end, width};
        QCOMPARE(m.x_of(t), x);
        QVERIFY(std::abs(m.ns_at(x) - t) <= 1);
    }
    void zoomKeepsAnchorAndPanMoves() {
        const TimeMapping m{0, 1000, 100};
        const TimeMapping z = m.zoomed(2.0, 25);  // the time under x = 25 (250 ns) stays at x = 25
        QCOMPARE(z.end_ns - z.start_ns, qint64(500));
        QCOMPARE(z.ns_at(25), qint64(250));
        QCOMPARE(m.zoomed(1e9, 50).end_ns - m.zoomed(1e9, 50).start_ns, qint64(100));  // clamped
        const TimeMapping p = m.panned(10);
        QCOMPARE(p.start_ns, qint64(100));
        QCOMPARE(p.end_ns, qint64(1100));
    }
    void foldsRunsOfNarrowSpans() {
        TimelineData d;
        d.names = {"a", "wide"};
        TimelineLane lane;
        lane.levels.resize(1);
        for (int i = 0; i < 1000; ++i) lane.levels[0].spans.push_back({i * 10, i * 10 + 5, 0, i});  // 1000 narrow
        lane.levels[0].spans.push_back({20'000, 30'000, 1, 1000});  // one wide, after a gap
        d.lanes.push_back(lane);
        std::vector<DrawItem> items;
        build_draw_list(d, TimeMapping{0, 40'000, 400}, 3.0, items);  // 100 ns per px: narrow = 0.05 px
        int32_t folded = 0;
        int wide = 0;
        for (const auto& it : items) {
            if (it.count > 1) folded += it.count;
            if (it.event == 1000) ++wide;
        }
        QCOMPARE(folded, 1000);  // every narrow span is inside a folded item
        QCOMPARE(wide, 1);       // the wide one is drawn on its own
        QVERIFY(items.size() <= 3);
        // Zoomed in, spans are wide enough to be drawn one by one, only the visible ones.
        build_draw_list(d, TimeMapping{0, 200, 400}, 3.0, items);
        QCOMPARE(int(items.size()), 20);
        for (const auto& it : items) QCOMPARE(it.count, 1);
    }
    void drawListCostDoesNotGrowWithEvents() {
        const TimelineData small = test::synthetic_timeline(70'000, 1);
        const TimelineData big = test::synthetic_timeline(700'000, 1);
        std::vector<DrawItem> a, b;
        build_draw_list(small, TimeMapping{small.start_ns, small.end_ns, 1000}, 3.0, a);
        build_draw_list(big, TimeMapping{big.start_ns, big.end_ns, 1000}, 3.0, b);
        QVERIFY(a.size() <= 3 * 1000 / 3 + 3);  // at most one item per 3 px per level
        QVERIFY(b.size() <= 3 * 1000 / 3 + 3);
    }
    void fromTraceNestsByDepth() {
        std::vector<TraceEvent> ev(3);
        const std::tuple<const char*, int64_t, int64_t> spans[] = {
            {"outer", 0, 100}, {"inner", 10, 50}, {"next", 120, 130}};
        for (size_t i = 0; i < 3; ++i) std::tie(ev[i].name, ev[i].start_ns, ev[i].end_ns) = spans[i];
        const Trace t = Trace::build(ev, {}, {});
        const TimelineData d = TimelineData::from_trace(t);
        QCOMPARE(int(d.lanes.size()), 1);
        QCOMPARE(int(d.lanes[0].levels.size()), 2);
        QCOMPARE(int(d.lanes[0].levels[0].spans.size()), 2);
        QCOMPARE(d.names[size_t(d.lanes[0].levels[1].spans[0].name)], std::string("inner"));
        QCOMPARE(int(d.span_count()), 3);
    }
    void timelinePaintsRealTraceWithMemoryTrack() {
        const auto result = std::make_shared<const ProfileResult>(profile_run(tiny_spec(), ProfileOptions{}));
        auto trace = std::shared_ptr<const Trace>(result, &result->trace);
        TimelineView w;
        w.resize(1200, 400);
        std::vector<MemorySeries> memory = replay_memory(*trace);
        QVERIFY(!memory.empty() && !memory.at(0).points.empty());
        w.setData(std::make_shared<const TimelineData>(TimelineData::from_trace(*trace)), trace, memory);
        QImage image(w.size(), QImage::Format_ARGB32);
        QPainter p(&image);
        QVERIFY(w.paintTo(p, image.rect()) > 0);
        w.setHighlightedName(QStringLiteral("aten::softmax"));
        // Zooming far out stops at the whole trace: no empty time, no negative times on the ruler.
        w.fit();
        const TimeMapping fitted = w.view();
        w.setView(w.view().zoomed(0.001, 300));
        QCOMPARE(w.view().start_ns, fitted.start_ns);
        QCOMPARE(w.view().end_ns, fitted.end_ns);
        w.setView(w.view().zoomed(4, 300));
        QVERIFY(w.view().end_ns - w.view().start_ns < trace->end_ns() - trace->begin_ns());
    }
    void timelineTooltipsGiveTheRunsTotalsFromItsAnalysis() {
        const AnalyzedRun run =
            analyzed(std::make_shared<const ProfileResult>(profile_run(tiny_spec(), ProfileOptions{})));
        TimelineView w;
        w.setRun(run.run, run.analysis);
        QVERIFY(w.data());
        QCOMPARE(w.memoryTracks().size(), run.analysis->memory.size());
        const TimelineSpan* bmm = nullptr;
        for (const auto& lane : w.data()->lanes)
            for (const auto& level : lane.levels)
                for (const auto& span : level.spans)
                    if (!bmm && w.data()->names[size_t(span.name)] == "aten::bmm") bmm = &span;
        QVERIFY(bmm);
        const OperatorRow* row = nullptr;
        for (const auto& r : run.analysis->operators)
            if (r.name == "aten::bmm") row = &r;
        QVERIFY(row && row->calls >= 2);
        const QString tip = w.describe(*bmm);
        QVERIFY2(tip.contains(QStringLiteral("in this run:</i> %1 calls, self CPU %2")
                                  .arg(row->calls)
                                  .arg(ui::format_duration_ns(double(row->self_cpu_ns)))),
                 qPrintable(tip));
        // Bare data (no run) has no totals to give.
        w.setData(std::make_shared<const TimelineData>(TimelineData::from_trace(run.run->trace)),
                  std::shared_ptr<const Trace>(run.run, &run.run->trace));
        QVERIFY(!w.describe(*w.data()->lanes[0].levels[0].spans.data()).contains(QStringLiteral("in this run")));
    }
};

AWB_UI_TEST(TimelineTests)
#include "test_ui_timeline.moc"
