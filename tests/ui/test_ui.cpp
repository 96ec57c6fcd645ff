// Qt Test suite (offscreen): models and proxies under QAbstractItemModelTester, numeric sorting, the
// time-to-pixel mapping and the folding of small events without a window, the engine thread
// delivering results by signals and cancelling, and the widgets painting real data.
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
#include "gpu_time_view.h"
#include "io/graph_replay_import.h"
#include "io/trace_files.h"
#include "io/workspace.h"
#include <QTextBrowser>
#include <QStandardItemModel>
#include "analysis/op_diff.h"
#include "io/json_io.h"
#include "io/results_json.h"
#include "io/trace_import.h"
#include "model/sweep_merge.h"
#include "model/sweep_shard.h"
#include "kernel_panel.h"
#include "main_window.h"
#include "operator_panel.h"
#include "operator_table_model.h"
#include "run_panel.h"
#include "session.h"
#include "sweep_chart.h"
#include "synthetic_timeline.h"
#include "table_columns.h"
#include "timeline_widget.h"
#include "ui_test_registry.h"
#include "ui_test_support.h"

using namespace awb;
using namespace awb::ui;
using namespace awb::ui::test;


class UiTests : public QObject {
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
        QTest::newRow("10 s over 1920 px") << qint64(0) << qint64(10'000'000'000) << 1920.0 << qint64(5'000'000'000) << 960.0;
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
        const std::tuple<const char*, int64_t, int64_t> spans[] = {{"outer", 0, 100}, {"inner", 10, 50}, {"next", 120, 130}};
        for (size_t i = 0; i < 3; ++i) std::tie(ev[i].name, ev[i].start_ns, ev[i].end_ns) = spans[i];
        const Trace t = Trace::build(ev, {}, {});
        const TimelineData d = TimelineData::from_trace(t);
        QCOMPARE(int(d.lanes.size()), 1);
        QCOMPARE(int(d.lanes[0].levels.size()), 2);
        QCOMPARE(int(d.lanes[0].levels[0].spans.size()), 2);
        QCOMPARE(d.names[size_t(d.lanes[0].levels[1].spans[0].name)], std::string("inner"));
        QCOMPARE(int(d.span_count()), 3);
    }
    void operatorModelPassesTheTesterAndSortsNumbers() {
        OperatorTableModel model;
        OperatorFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        // As text, "10.00 us" < "100.00 us" < "9.00 us"; as numbers 9 < 10 < 100.
        model.setRows({row("aten::mm", 3, 10'000), row("aten::softmax", 1, 100'000), row("aten::add", 20, 9'000)});
        proxy.sort(OperatorTableModel::SelfCpu, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, OperatorTableModel::Name).data().toString(), QStringLiteral("aten::add"));
        QCOMPARE(proxy.index(1, OperatorTableModel::Name).data().toString(), QStringLiteral("aten::mm"));
        QCOMPARE(proxy.index(2, OperatorTableModel::Name).data().toString(), QStringLiteral("aten::softmax"));
        proxy.sort(OperatorTableModel::Calls, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, OperatorTableModel::Calls).data().toString(), QStringLiteral("20"));
        QCOMPARE(proxy.index(0, OperatorTableModel::SelfCpu).data().toString(), QStringLiteral("9.00 us"));
        QCOMPARE(model.index(1, OperatorTableModel::SelfCpu).data(OperatorTableModel::ShareRole).toDouble(),
                 100'000.0 / 119'000.0);
        proxy.setFilterFixedString(QStringLiteral("SOFT"));
        QCOMPARE(proxy.rowCount(), 1);
        QVERIFY(model.headerData(OperatorTableModel::SelfCpu, Qt::Horizontal, Qt::ToolTipRole).toString().contains(
            QStringLiteral("minus the time")));
        const QString csv = model.toDelimited({}, QLatin1Char(','));
        QCOMPARE(csv.count(QLatin1Char('\n')), 4);
        QVERIFY(csv.contains(QStringLiteral("aten::softmax,,1,100000,")));
        model.setRows({});
        QCOMPARE(proxy.rowCount(), 0);
    }
    void runPanelShowsValidationAsTheUserTypes() {
        RunPanel panel(DeviceCaps{});
        QVERIFY(panel.problemsText().isEmpty());
        panel.setSpec([] {
            RunSpec s;
            s.heads = 6;
            s.kv_heads = 4;
            return s;
        }());
        QVERIFY(panel.problemsText().contains(QStringLiteral("kv_heads: 4 does not divide heads = 6")));
        RunSpec s;
        s.mask = MaskKind::Padding;
        panel.setSpec(s);
        QVERIFY(panel.problemsText().contains(QStringLiteral("key_lengths")));
        QCOMPARE(panel.spec().mask, MaskKind::Padding);
    }
    // The SDPA backend field: on LibTorch 2.x it applies to variant sdpa and each device's list decides;
    // on 1.13 it is off and a backend is refused with the reason.
    void runPanelSdpaBackendFollowsTheBuild() {
        DeviceCaps torch2;
        torch2.torch_version = "2.11.0";
        torch2.sdpa_backend_selectable = true;
        torch2.cpu_sdpa_backends = {"math", "flash"};
        RunPanel panel(torch2);
        auto* backend = panel.findChild<QComboBox*>(QStringLiteral("sdpaBackend"));
        QVERIFY(backend);
        QCOMPARE(backend->itemText(2), QStringLiteral("flash"));
        QVERIFY(!backend->isEnabled());  // variant manual
        RunSpec s;
        s.variant = "sdpa";
        s.sdpa_backend = SdpaBackend::Flash;
        panel.setSpec(s);
        QVERIFY(backend->isEnabled());
        QCOMPARE(panel.spec().sdpa_backend, SdpaBackend::Flash);
        QVERIFY(panel.problemsText().isEmpty());
        backend->setCurrentText(QStringLiteral("efficient"));
        QVERIFY(panel.problemsText().contains(QStringLiteral("'efficient' is not available on cpu")));
        s.variant = "manual";
        panel.setSpec(s);
        QCOMPARE(panel.spec().sdpa_backend, SdpaBackend::Auto);  // only sdpa takes it
        DeviceCaps torch1;
        torch1.torch_version = "1.13.1";
        RunPanel old(torch1);
        s.variant = "sdpa";
        old.setSpec(s);
        QVERIFY(!old.findChild<QComboBox*>(QStringLiteral("sdpaBackend"))->isEnabled());
        QVERIFY(old.problemsText().contains(QStringLiteral("has no backend selection")));
    }
    // Signals from the engine thread can arrive before a QSignalSpy::wait() starts (it waits for a new
    // one), so the tests poll the spies' counts instead (QTRY_*).
    void engineThreadDeliversResultsBySignals() {
        Engine engine;
        QSignalSpy done(&engine, &Engine::profileFinished);
        QSignalSpy progress(&engine, &Engine::progress);
        engine.profile(tiny_spec(), ProfileOptions{});
        QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), 60'000);
        const auto result = done.at(0).at(0).value<std::shared_ptr<const ProfileResult>>();
        QVERIFY(result);
        QVERIFY(!result->trace.events().empty());
        QCOMPARE(progress.size(), total_steps(ProfileOptions{}));
        QSignalSpy failed(&engine, &Engine::failed);
        RunSpec bad = tiny_spec();
        bad.kv_heads = 3;
        engine.profile(bad, ProfileOptions{});
        QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 60'000);
        QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("Run failed"));
        QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("kv_heads")));
        // A truncated trace: what failed is opening it, and the message names the file and the problem.
        QTemporaryFile cut(QDir::tempPath() + QStringLiteral("/cut-XXXXXX.json"));
        QVERIFY(cut.open());
        cut.write("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"aten::mm\", \"ts\": 1, \"dur\"");
        cut.close();
        engine.open(cut.fileName());
        QTRY_VERIFY_WITH_TIMEOUT(failed.size() == 2, 60'000);
        QCOMPARE(failed.at(1).at(0).toString(), QStringLiteral("Cannot open trace"));
        QVERIFY(failed.at(1).at(1).toString().contains(cut.fileName()));
        QVERIFY(failed.at(1).at(1).toString().contains(QStringLiteral("truncated")));
    }
    // Stop before anything was recorded (a warm-up step): cancelled, nothing delivered.
    void engineCancelStopsAfterTheCurrentStep() {
        const auto r = stop_profile_after(1000, 1, 2);
        QVERIFY(r && !*r);
    }
    // Stop while recording: the steps recorded so far are delivered, marked interrupted, within a step.
    void engineStopWhileRecordingKeepsTheRecordedSteps() {
        const auto ended = stop_profile_after(0, 1000, 3);
        QVERIFY(ended && *ended);
        const auto& r = *ended;
        QVERIFY(r->interrupted);
        QCOMPARE(r->steps.size(), size_t(3));  // the step under way when Stop came finished; no other began
        const auto rows = key_averages(r->trace);
        QVERIFY(std::any_of(rows.begin(), rows.end(), [](const OperatorRow& o) { return o.name == "aten::softmax"; }));
    }
    // Stop during a sweep: the point under way finishes, no other starts, the finished ones are delivered.
    void engineStopDuringASweepKeepsTheFinishedPoints() {
        Engine engine;
        QSignalSpy done(&engine, &Engine::sweepFinished);
        QObject::connect(
            engine.worker(), &EngineWorker::sweepPoint, engine.worker(),
            [&engine](const SweepPoint&, int index, int) {
                if (index == 1) engine.cancel();  // right after the second point, where a click between points lands
            },
            Qt::DirectConnection);
        SweepPlan plan;
        plan.base = tiny_spec();
        plan.seq_lengths = {16, 24, 32, 40, 48, 56};
        plan.variants = {"manual"};
        plan.bench.warmup = 0;
        plan.bench.budget_s = 0;
        plan.bench.min_repeats = 2;
        engine.sweep(plan);
        QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), 120'000);
        const auto result = done.at(0).at(0).value<std::shared_ptr<const SweepResult>>();
        QVERIFY(result->stopped_early);
        QCOMPARE(int(result->points.size()), 2);
        QCOMPARE(result->points.at(1).spec.seq_k, int64_t(24));
    }
    // Stop while a trace is read: nothing half-read is delivered, within one batch of the reader, and
    // the next open of the same file works.
    void engineStopDuringAnImportCancelsItAndTheNextOpenWorks() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("big.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"traceEvents\": [");
            for (int i = 0; i < 220'000; ++i)  // ~20 MiB: the reader reports progress from 16 MiB
                f.write(QStringLiteral("%1{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, "
                                       "\"tid\": 1, \"ts\": %2, \"dur\": 1, \"args\": {\"External id\": %2}}")
                            .arg(i ? QStringLiteral(",") : QString())
                            .arg(i * 2)
                            .toUtf8());
            f.write("]}");
        }
        Engine engine;
        QSignalSpy cancelled(&engine, &Engine::cancelled);
        QSignalSpy opened(&engine, &Engine::resultsOpened);
        QSignalSpy progress(&engine, &Engine::progress);
        auto stop = QObject::connect(
            engine.worker(), &EngineWorker::progress, engine.worker(), [&engine](int, int, const QString&) { engine.cancel(); },
            Qt::DirectConnection);
        engine.open(path);
        QTRY_VERIFY_WITH_TIMEOUT(!cancelled.isEmpty(), 60'000);
        QVERIFY(opened.isEmpty());
        QCOMPARE(progress.size(), 1);  // the batch after the one that reported did not start
        QObject::disconnect(stop);
        engine.open(path);
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 60'000);
        const auto file = opened.at(0).at(0).value<std::shared_ptr<const ResultsFile>>();
        QVERIFY(file->run);
        QCOMPARE(file->run->trace.events().size(), size_t(220'000));
    }
    // Stop during a check: the step under way (the float64 reference) ends, no variant is checked and
    // nothing is delivered; the next check runs whole.
    void engineStopDuringACheckEndsAfterTheStepAndTheNextCheckRuns() {
        Engine engine;
        QSignalSpy cancelled(&engine, &Engine::cancelled);
        QSignalSpy finished(&engine, &Engine::checkFinished);
        QSignalSpy progress(&engine, &Engine::progress);
        auto stop = QObject::connect(
            engine.worker(), &EngineWorker::progress, engine.worker(), [&engine](int, int, const QString&) { engine.cancel(); },
            Qt::DirectConnection);
        engine.check(tiny_spec());
        QTRY_VERIFY_WITH_TIMEOUT(!cancelled.isEmpty(), 60'000);
        QVERIFY(finished.isEmpty());
        QCOMPARE(progress.size(), 1);
        QObject::disconnect(stop);
        engine.check(tiny_spec());
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 60'000);
        const auto report = finished.at(0).at(0).value<std::shared_ptr<const CheckReport>>();
        QVERIFY(!report->interrupted);
        QCOMPARE(int(report->variants.size()), 1);
    }
    void timelinePaintsRealTraceWithMemoryTrack() {
        const auto result = std::make_shared<const ProfileResult>(profile_run(tiny_spec(), ProfileOptions{}));
        auto trace = std::shared_ptr<const Trace>(result, &result->trace);
        TimelineWidget w;
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
        const AnalyzedRun run = analyzed(std::make_shared<const ProfileResult>(profile_run(tiny_spec(), ProfileOptions{})));
        TimelineWidget w;
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
        QVERIFY2(tip.contains(QStringLiteral("in this run:</i> %1 calls, self CPU %2").arg(row->calls).arg(ui::format_duration_ns(double(row->self_cpu_ns)))),
                 qPrintable(tip));
        // Bare data (no run) has no totals to give.
        w.setData(std::make_shared<const TimelineData>(TimelineData::from_trace(run.run->trace)),
                  std::shared_ptr<const Trace>(run.run, &run.run->trace));
        QVERIFY(!w.describe(*w.data()->lanes[0].levels[0].spans.data()).contains(QStringLiteral("in this run")));
    }
    void sweepChartShowsCurvesWithExponentsAndExports() {
        SweepResult r;
        for (int64_t n : {256, 512, 1024})
            for (const char* v : {"manual", "chunked"}) {
                SweepPoint p;
                p.spec = with_variant(tiny_spec(), v);
                p.spec.seq_q = p.spec.seq_k = n;
                const bool manual = std::string(v) == "manual";
                p.bench.timing.median_ns = manual ? double(n) * n : 700.0 * n;
                p.bench.timing.p10_ns = 0.99 * p.bench.timing.median_ns;
                p.bench.timing.p90_ns = 1.01 * p.bench.timing.median_ns;
                p.bench.peak_bytes = manual ? n * n * 16 : n * 1000;
                p.bench.flops = attention_flops(p.spec);
                p.bench.bytes = attention_bytes(p.spec, BytesModel::Ideal);
                p.bench.gflops_per_s = p.bench.flops / p.bench.timing.median_ns;
                p.bench.roof = Roof{"CPU", "float", 0.1, 0.01, true, "measured"};
                r.points.push_back(p);
            }
        SweepChart chart;
        chart.resize(800, 500);
        chart.addSweep(r);
        QCOMPARE(chart.curveCount(), 2);
        QVERIFY(chart.legendText(0).contains(QStringLiteral("(N^2.00)")));
        QVERIFY(chart.legendText(1).contains(QStringLiteral("(N^1.00)")));
        QCOMPARE(chart.plot()->itemCount(), 2);  // the crossover (line + label) at N = 700
        chart.setMetric(SweepChart::Metric::PeakMemory);
        QVERIFY(chart.legendText(0).contains(QStringLiteral("(N^2.00)")));
        chart.addSweep(r, QStringLiteral("other.json"));  // overlay
        QCOMPARE(chart.curveCount(), 4);
        QVERIFY(chart.legendText(3).startsWith(QStringLiteral("other.json: chunked")));
        // The roofline view: one roof (the same in both sweeps), a series per variant and sweep, a point each.
        chart.setMetric(SweepChart::Metric::Roofline);
        QCOMPARE(chart.curveCount(), 1 + 4);
        QVERIFY(chart.legendText(0).startsWith(QStringLiteral("CPU float roof: 100 GFLOP/s, 10.0 GB/s (measured)")));
        QCOMPARE(chart.plot()->graph(1)->dataCount(), 3);
        QCOMPARE(chart.plot()->xAxis->scaleType(), QCPAxis::stLogarithmic);
        chart.setMetric(SweepChart::Metric::MedianTime);
        QCOMPARE(chart.curveCount(), 4);
        QTemporaryDir dir;
        QVERIFY(chart.exportTo(dir.filePath(QStringLiteral("chart.png"))));
        QVERIFY(QFileInfo(dir.filePath(QStringLiteral("chart.png"))).size() > 1000);
        QVERIFY(chart.exportTo(dir.filePath(QStringLiteral("chart.pdf"))));
    }
    void engineSweepDeliversPointsAsTheyFinish() {
        Engine engine;
        QSignalSpy points(&engine, &Engine::sweepPoint);
        QSignalSpy done(&engine, &Engine::sweepFinished);
        SweepPlan plan;
        plan.base = tiny_spec();
        plan.seq_lengths = {16, 68719476736, 32};
        plan.variants = {"manual", "chunked"};
        plan.bench.warmup = 0;
        plan.bench.budget_s = 0;
        plan.bench.min_repeats = 2;
        engine.sweep(plan);
        QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), 120'000);
        QCOMPARE(points.size(), 6);
        QCOMPARE(points.at(2).at(0).value<SweepPoint>().status, PointStatus::Refused);
        const auto result = done.at(0).at(0).value<std::shared_ptr<const SweepResult>>();
        QCOMPARE(int(result->points.size()), 6);
        // The window saves it and opens it back into the chart.
        MainWindow window;
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.json"));
        write_text_file(path.toStdString(), sweep_file_json(*result, analyze_sweep(*result)).dump());
        QVERIFY(open_and_wait(window, path));
        QCOMPARE(window.sweepChart()->curveCount(), 2);
    }
    void mergedSweepOpensAndEachPointNamesWhereItRan() {
        // Two shards measured on different machines, merged with --allow-mixed (attnwb merge's code).
        SweepPlan plan;
        plan.base = tiny_spec();
        plan.seq_lengths = {32, 64, 128};
        plan.variants = {"manual", "sdpa"};
        const auto specs = expand(plan);
        std::vector<ShardFile> files;
        for (int k = 0; k < 2; ++k) {
            ShardFile f{"sweep-" + std::to_string(k) + "-of-2.json", {}};
            f.sweep.plan = plan;
            f.sweep.shard = {k, 2, "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT"};
            f.sweep.environment.host = k == 0 ? "node-a" : "node-b";
            f.sweep.environment.device = "cuda:0";
            f.sweep.environment.device_name = k == 0 ? "NVIDIA A100-SXM4-80GB" : "NVIDIA H200";
            f.sweep.environment.torch_version = "2.11.0";
            for (int i : shard_points(plan, f.sweep.shard)) {
                SweepPoint p;
                p.index = i;
                p.spec = specs[size_t(i)];
                p.bench.spec = p.spec;
                p.bench.timing = {3, 1, 1e6 * (i + 1), 0.9e6 * (i + 1), 1.1e6 * (i + 1), 0.9e6 * (i + 1), 1.1e6 * (i + 1), 1e6 * (i + 1)};
                p.bench.peak_bytes = 1 << 20;
                p.bench.flops = 1e9;  // on the roofline too
                p.bench.bytes = 1e8;
                p.bench.gflops_per_s = 1e3 / (i + 1);
                f.sweep.points.push_back(p);
            }
            f.sweep.planned_points = int(f.sweep.points.size());
            files.push_back(f);
        }
        const MergeOutcome m = merge_shards(files, {.allow_mixed = true});
        QVERIFY(m.problems.empty());
        MainWindow window;
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("merged.json"));
        write_text_file(path.toStdString(), sweep_file_json(m.merged, analyze_sweep(m.merged)).dump());
        QVERIFY(open_and_wait(window, path));
        SweepChart* chart = window.sweepChart();
        QCOMPARE(chart->curveCount(), 2);
        QSet<QString> hosts;
        for (int g = 0; g < 2; ++g)
            for (double n : {32.0, 64.0, 128.0}) {
                const QString text = chart->pointText(g, n);
                QVERIFY2(text.contains(QStringLiteral("N = %1").arg(n)), qPrintable(text));
                QVERIFY2(text.contains(QStringLiteral("p10-p90")), qPrintable(text));
                const SweepPoint* point = nullptr;
                for (const auto& p : m.merged.points)
                    if (double(p.spec.seq_k) == n && chart->legendText(g).startsWith(QString::fromStdString(p.spec.variant)))
                        point = &p;
                QVERIFY(point);
                const QString expected = point->ran_on->host == "node-a"
                                             ? QStringLiteral("ran on node-a: NVIDIA A100-SXM4-80GB (cuda:0), torch 2.11.0")
                                             : QStringLiteral("ran on node-b: NVIDIA H200 (cuda:0), torch 2.11.0");
                QVERIFY2(text.endsWith(expected), qPrintable(text + QStringLiteral(" / ") + expected));
                hosts.insert(QString::fromStdString(point->ran_on->host));
            }
        QCOMPARE(hosts.size(), 2);
        QVERIFY(chart->pointText(0, 4096).isEmpty());  // no point there
        // The roofline view's read-out names where each point ran too.
        chart->setMetric(SweepChart::Metric::Roofline);
        QCOMPARE(chart->rooflinePointCount(), 6);
        QSet<QString> roofline_hosts;
        const QRegularExpression what(QStringLiteral("^(\\w+) float32: .*N = (\\d+),"));
        for (int i = 0; i < chart->rooflinePointCount(); ++i) {
            const QString text = chart->rooflinePointText(i);
            const auto match = what.match(text);
            QVERIFY2(match.hasMatch(), qPrintable(text));
            const SweepPoint* point = nullptr;
            for (const auto& p : m.merged.points)
                if (QString::fromStdString(p.spec.variant) == match.captured(1) && p.spec.seq_k == match.captured(2).toLongLong())
                    point = &p;
            QVERIFY2(point, qPrintable(text));
            QVERIFY2(text.contains(QStringLiteral("FLOP/byte")) &&
                         text.contains(QStringLiteral("\nran on %1: ").arg(QString::fromStdString(point->ran_on->host))),
                     qPrintable(text));
            roofline_hosts.insert(QString::fromStdString(point->ran_on->host));
        }
        QCOMPARE(roofline_hosts.size(), 2);
        QVERIFY(chart->rooflinePointText(6).isEmpty());
        const QString status = window.findChild<QLabel*>(QStringLiteral("status"))->text();
        QVERIFY2(status.contains(QStringLiteral("6 of 6 planned points measured")) && status.contains(QStringLiteral("merged from 2 shards")) &&
                     status.contains(QStringLiteral("mixed environments")),
                 qPrintable(status));
    }
    void comparisonJoinsRunsWithDeltasAndSyncsTimelines() {
        ComparisonModel model;
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(ComparisonModel::SortRole);
        QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(join_operators({row("aten::bmm", 6, 1000), row("aten::softmax", 2, 500)},
                                     {row("aten::bmm", 6, 4000), row("aten::sdpa", 1, 300)}));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(0, ComparisonModel::Name).data().toString(), QStringLiteral("aten::bmm"));
        QCOMPARE(model.index(0, ComparisonModel::SelfCpuDelta).data().toString(), QStringLiteral("+3.00 us"));
        QCOMPARE(model.index(0, ComparisonModel::SelfCpuRatio).data().toString(), QStringLiteral("4.00x"));
        QCOMPARE(model.index(0, ComparisonModel::SelfCpuDelta).data(Qt::ForegroundRole).value<QBrush>().color(),
                 QColor(180, 30, 30));
        QCOMPARE(model.index(1, ComparisonModel::Presence).data().toString(), QStringLiteral("only A (vanished)"));
        proxy.sort(ComparisonModel::SelfCpuDelta, Qt::AscendingOrder);  // numbers: -500 < +300 < +3000
        QCOMPARE(proxy.index(0, ComparisonModel::Name).data().toString(), QStringLiteral("aten::softmax"));
        QCOMPARE(proxy.index(2, ComparisonModel::Name).data().toString(), QStringLiteral("aten::bmm"));

        // Two real runs: manual and sdpa; the timelines share one time scale.
        RunSpec s = tiny_spec();
        auto manual = std::make_shared<const ProfileResult>(profile_run(s, ProfileOptions{}));
        s.variant = "sdpa";
        auto sdpa = std::make_shared<const ProfileResult>(profile_run(s, ProfileOptions{}));
        ComparisonView view;
        view.resize(1000, 700);
        view.setRuns({{QStringLiteral("manual"), manual, analyzed(manual).analysis}, {QStringLiteral("sdpa"), sdpa, nullptr}});
        QVERIFY(view.model()->rowCount() > 5);
        bool new_sdpa = false;  // the fused op appears only in B (1.13 and 2.x spell it differently)
        for (const auto& r : view.model()->rows())
            new_sdpa |= r.name.find("scaled_dot_product_attention") != std::string::npos && !r.in_a && r.in_b;
        QVERIFY(new_sdpa);
        const TimeMapping a = view.timelineA()->view(), b = view.timelineB()->view();
        QCOMPARE(a.end_ns - a.start_ns, b.end_ns - b.start_ns);
        QCOMPARE(a.start_ns - manual->trace.begin_ns(), b.start_ns - sdpa->trace.begin_ns());
        view.timelineA()->setView(a.zoomed(8, 100));
        const TimeMapping a2 = view.timelineA()->view(), b2 = view.timelineB()->view();
        QCOMPARE(b2.end_ns - b2.start_ns, a2.end_ns - a2.start_ns);
        QCOMPARE(a2.start_ns - manual->trace.begin_ns(), b2.start_ns - sdpa->trace.begin_ns());
    }
    // A 1,500-character kernel name neither widens the name column past its cap nor hides
    // the numbers; it elides in the middle and the tooltip has it whole. An empty table keeps a usable width.
    void nameColumnStaysReadableWithLongNames() {
        OperatorPanel panel;
        panel.resize(1000, 400);
        panel.show();
        const std::string name = "void cutlass::Kernel<" + std::string(1500, 'x') + ">(Params)";
        OperatorRow row;
        row.name = name;
        row.calls = 3;
        row.self_cpu_ns = 1000;
        panel.setRows({row}, false);
        QTableView* view = panel.view();
        QVERIFY(view->columnWidth(OperatorTableModel::Name) <= kMaxNameWidth);
        QVERIFY(view->columnWidth(OperatorTableModel::Name) >= kMinNameWidth);
        QCOMPARE(view->textElideMode(), Qt::ElideMiddle);
        QCOMPARE(view->model()->index(0, OperatorTableModel::Name).data(Qt::ToolTipRole).toString(), QString::fromStdString(name));
        panel.setRows({}, false);
        QVERIFY(view->columnWidth(OperatorTableModel::Name) >= kMinNameWidth);
        panel.setRows({row}, false);
        QVERIFY2(view->columnWidth(OperatorTableModel::Name) <= kMaxNameWidth, "the next rows are fitted afresh");
    }
    void mainWindowShowsARunAndRejectsBadFiles() {
        MainWindow window;
        const auto result = std::make_shared<const ProfileResult>(profile_run(tiny_spec(), ProfileOptions{}));
        window.showResult(result);
        QVERIFY(window.operatorPanel()->model()->rowCount() > 5);
        QVERIFY(window.findings()->toPlainText().startsWith(QStringLiteral("manual 1x2x32x16")));  // the advisor read it
        QCOMPARE(window.findings()->findings(), advise({result.get()}));
        QTemporaryFile bad;
        QVERIFY(bad.open());
        bad.write("{\"schema\": \"attention-workbench/profile-report\", \"schema_version\": 1");  // truncated
        bad.close();
        // A bad file shows one message box, titled with what failed; offscreen it would block, so close
        // it as it appears.
        QTimer closer;
        close_message_boxes(closer);
        QSignalSpy failed(window.engine(), &Engine::failed);
        QVERIFY(window.openFile(bad.fileName()));
        QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 60'000);
        QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("Cannot open file"));
        QVERIFY(failed.at(0).at(1).toString().contains(bad.fileName()));
        QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("truncated")));
        QVERIFY(!window.openFile(bad.fileName() + QStringLiteral(".none")));  // a missing file: refused at once
        closer.stop();
        QVERIFY(window.operatorPanel()->model()->rowCount() > 5);  // what was shown is kept
        // Exports of the run on screen: a chrome trace and a report that opens back into the table.
        QTemporaryDir dir;
        QVERIFY(window.exportTrace(dir.filePath(QStringLiteral("t.json"))));
        QVERIFY(QFileInfo(dir.filePath(QStringLiteral("t.json"))).size() > 1000);
        const int rows = window.operatorPanel()->model()->rowCount();
        QVERIFY(window.exportReport(dir.filePath(QStringLiteral("r.json"))));
        QVERIFY(open_and_wait(window, dir.filePath(QStringLiteral("r.json"))));
        QCOMPARE(window.operatorPanel()->model()->rowCount(), rows);
        QString error;
        QVERIFY(!window.exportTrace(dir.filePath(QStringLiteral("t2.json")), &error));  // a report has no events
        QVERIFY(error.contains(QStringLiteral("No run on screen")));
        // The exported trace opens back (read on the engine thread) as the same run: timeline and table.
        QSignalSpy imported(window.engine(), &Engine::resultsOpened);
        QVERIFY(window.openFile(dir.filePath(QStringLiteral("t.json"))));
        QTRY_VERIFY_WITH_TIMEOUT(!imported.isEmpty(), 60'000);
        QCOMPARE(window.operatorPanel()->model()->rows(), key_averages(result->trace));
        QCOMPARE(window.timeline()->view().end_ns > window.timeline()->view().start_ns, true);
        QCOMPARE(window.comparison()->model()->rowCount() > 0, true);
    }
    // Opening a GPU trace with 1,500-character kernel names leaves the window its size (it
    // grew to 1400x3075 and past the screen), and toggling the Operators dock back on does too.
    void windowKeepsItsSizeWhenAGpuTraceWithLongNamesOpens() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("long.json"));
        {
            std::ifstream in(std::string(AWB_FIXTURE_DIR) + "/traces/kineto_gpu_2x.json");
            nlohmann::json j = nlohmann::json::parse(in);
            for (auto& e : j["traceEvents"])
                if (e.value("cat", std::string()) == "kernel")
                    e["name"] = "void cutlass::Kernel<" + std::string(1500, 'x') + ">(Params) " + e["name"].get<std::string>();
            std::ofstream(path.toStdString()) << j.dump();
        }
        MainWindow window;
        const QSize size(1000, 700);
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy imported(window.engine(), &Engine::resultsOpened);
        QVERIFY(window.openFile(path));
        QTRY_VERIFY_WITH_TIMEOUT(!imported.isEmpty(), 60'000);
        QTest::qWait(50);  // the layout settles
        QVERIFY2(window.size().width() <= size.width() && window.size().height() <= size.height(),
                 qPrintable(QStringLiteral("window grew to %1x%2").arg(window.width()).arg(window.height())));
        QVERIFY(window.operatorPanel()->model()->rowCount() > 5);
        // Every shown header fits its column (the device columns, shown after the fit, were cut).
        QTableView* ops = window.operatorPanel()->view();
        for (int c = 0; c < ops->model()->columnCount(); ++c)
            if (!ops->isColumnHidden(c) && c != OperatorTableModel::Name)
                QVERIFY2(ops->columnWidth(c) >= ops->horizontalHeader()->sectionSizeHint(c),
                         qPrintable(ops->model()->headerData(c, Qt::Horizontal).toString()));
        QVERIFY(!ops->isColumnHidden(OperatorTableModel::SelfDevice));
        // One memory track per device, each labelled with its own peak: the trace's CUDA allocations too.
        QTRY_COMPARE_WITH_TIMEOUT(int(window.timeline()->memoryTracks().size()), 2, 10'000);
        QCOMPARE(memory_series_label(*window.timeline()->memoryTracks()[1]), std::string("cuda:0 rank 0"));
        QCOMPARE(window.timeline()->memoryTracks()[1]->peak_bytes, int64_t(3) << 20);
        auto* operators = window.findChild<QDockWidget*>(QStringLiteral("operators"));
        QVERIFY(operators);
        operators->hide();
        operators->show();
        QTest::qWait(50);
        QVERIFY2(window.size().width() <= size.width() && window.size().height() <= size.height(),
                 qPrintable(QStringLiteral("window grew to %1x%2 with Operators shown again").arg(window.width()).arg(window.height())));
    }
    // After runs the bottom docks left the timeline ~90 px and their splitter did not move (the
    // Compare dock's two timelines made the dock area's minimum over 1,000 px); the Compare table showed
    // one row. Now the timeline keeps most of the window, the docks resize, the table shows many rows.
    void docksResizeAndTheTimelineKeepsItsRoom() {
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        for (int i = 0; i < 2; ++i) window.showResult(std::make_shared<const ProfileResult>(profile_run(tiny_spec(), ProfileOptions{})));
        auto* operators = window.findChild<QDockWidget*>(QStringLiteral("operators"));
        auto* compare = window.findChild<QDockWidget*>(QStringLiteral("compare"));
        QVERIFY(operators && compare);
        QTest::qWait(50);
        QVERIFY2(window.timeline()->parentWidget()->height() >= 400,
                 qPrintable(QStringLiteral("timeline area %1 px").arg(window.timeline()->parentWidget()->height())));
        window.resizeDocks({operators}, {220}, Qt::Vertical);
        QTest::qWait(50);
        QVERIFY2(std::abs(operators->height() - 220) <= 30, qPrintable(QStringLiteral("dock %1 px").arg(operators->height())));
        window.resizeDocks({operators}, {600}, Qt::Vertical);
        QTest::qWait(50);
        QVERIFY2(std::abs(operators->height() - 600) <= 30, qPrintable(QStringLiteral("dock %1 px").arg(operators->height())));
        compare->raise();
        QTest::qWait(50);
        QTableView* table = window.comparison()->table();
        QVERIFY(table->model()->rowCount() > 10);
        QVERIFY2(table->viewport()->height() >= 6 * table->rowHeight(0),
                 qPrintable(QStringLiteral("comparison table %1 px for rows of %2 px").arg(table->viewport()->height()).arg(table->rowHeight(0))));
    }
    void checklistAndHtmlReportOfTheRunWithItsSweep() {
        MainWindow window;
        const auto result = std::make_shared<const ProfileResult>(profile_run(tiny_spec(), ProfileOptions{}));
        window.showResult(result);
        const auto& items = window.findings()->checklist();
        QCOMPARE(items.size(), size_t(7));
        auto state_of = [&](const char* id) {
            for (const auto& i : window.findings()->checklist())
                if (i.id == id) return i.state;
            return ItemState::NotApplicable;
        };
        QCOMPARE(state_of("lengths"), ItemState::Fail);  // one length so far
        QVERIFY(window.findings()->toPlainText().contains(QStringLiteral("Measurement checklist")));
        // A sweep of the same spec at three lengths, opened onto the chart, counts for the run.
        SweepResult sweep;
        sweep.plan.base = tiny_spec();
        sweep.environment = result->environment;
        for (int64_t n : {16, 32, 64}) {
            SweepPoint p;
            p.spec = tiny_spec();
            p.spec.seq_q = p.spec.seq_k = n;
            p.bench.spec = p.spec;
            p.bench.timing.median_ns = p.bench.timing.p10_ns = p.bench.timing.p90_ns = double(n) * 1e4;
            p.bench.peak_bytes = n * n * 100;
            sweep.points.push_back(p);
        }
        sweep.planned_points = 3;
        QTemporaryDir dir;
        const QString sweep_path = dir.filePath(QStringLiteral("s.json"));
        write_text_file(sweep_path.toStdString(), sweep_file_json(sweep, analyze_sweep(sweep)).dump());
        QVERIFY(open_and_wait(window, sweep_path));
        QCOMPARE(state_of("lengths"), ItemState::Pass);
        QCOMPARE(state_of("profiler-off"), ItemState::Pass);
        // File > Export > Report as HTML: one file with the checklist, findings, tables and charts.
        const QString html_path = dir.filePath(QStringLiteral("r.html"));
        QVERIFY(window.exportHtmlReport(html_path));
        QFile html(html_path);
        QVERIFY(html.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(html.readAll());
        QVERIFY(text.contains(QStringLiteral("<h2>Measurement checklist</h2>")));
        QVERIFY(text.contains(QStringLiteral("<h2>Sweep (profiler off)</h2>")));
        QVERIFY(text.contains(QStringLiteral("aten::bmm")));
        QVERIFY(text.count(QStringLiteral("<svg ")) >= 4);
        QString error;
        QVERIFY(!window.exportHtmlReport(QStringLiteral("/nonexistent-dir/r.html"), &error));
        QVERIFY(error.contains(QStringLiteral("/nonexistent-dir/r.html")));
        // An sdpa run is not the reference: unchecked it fails the numerical item; Check (on the engine
        // thread) compares it with float64 and the item turns green.
        RunSpec sdpa = tiny_spec();
        sdpa.variant = "sdpa";
        window.showResult(std::make_shared<const ProfileResult>(profile_run(sdpa, ProfileOptions{})));
        QCOMPARE(state_of("numerical"), ItemState::Fail);
        window.engine()->check(sdpa);
        QTRY_COMPARE_WITH_TIMEOUT(state_of("numerical"), ItemState::Pass, 60'000);
    }
    void comparisonJoinsKernelsAndFindings() {
        const std::string dir = std::string(AWB_FIXTURE_DIR) + "/traces/multi_rank/";
        auto load = [&](const char* file) {
            return std::make_shared<const ProfileResult>(profile_result_from_import(import_chrome_trace(dir + file)));
        };
        ComparisonView view;
        QAbstractItemModelTester t(view.kernelModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        view.setRuns({{QStringLiteral("rank 0"), load("rank0.pt.trace.json"), nullptr}, {QStringLiteral("rank 1"), load("rank1.pt.trace.json"), nullptr}});
        QVERIFY(view.kernelModel()->rowCount() > 0);
        bool all_reduce = false;
        for (int r = 0; r < view.kernelModel()->rowCount(); ++r)
            if (view.kernelModel()->index(r, 0).data().toString().startsWith(QStringLiteral("ncclDevKernel_AllReduce")))
                all_reduce = std::abs(view.kernelModel()->index(r, 6).data(Qt::UserRole + 1).toDouble() + 25250) < 1 &&
                             view.kernelModel()->index(r, 6).data().toString() == QStringLiteral("-25.3 us");
        QVERIFY(all_reduce);
        QVERIFY(!view.findingsDiff()->toPlainText().isEmpty());
    }
    void sessionSignalsTheViewsThatFollowIt() {
        // The session holds runs, the shown run, sweeps and measurements; each change says what changed.
        ui::Session session;
        QSignalSpy runs(&session, &ui::Session::runsChanged), shown(&session, &ui::Session::shownChanged),
            sweeps(&session, &ui::Session::sweepsChanged), measured(&session, &ui::Session::measurementsChanged);
        const AnalyzedRun a = analyzed(std::make_shared<const ProfileResult>(profile_run(tiny_spec(), ProfileOptions{})));
        session.addRun({QStringLiteral("a"), a.run, a.analysis});
        QCOMPARE(runs.size(), 1);
        QCOMPARE(shown.size(), 1);
        QCOMPARE(session.shown().result, a.run);
        session.addRun({QStringLiteral("b"), a.run, a.analysis}, false);  // kept, not shown
        QCOMPARE(runs.size(), 2);
        QCOMPARE(shown.size(), 1);
        QVERIFY(!session.sweepFor(a.run.get()));  // no sweep yet
        // A sweep of another length does not cover the run; one with its spec at two lengths does.
        auto sweep_of = [](std::vector<int64_t> lengths) {
            SweepResult s;
            for (int64_t n : lengths) {
                SweepPoint p;
                p.spec = tiny_spec();
                p.spec.seq_q = p.spec.seq_k = n;
                p.bench.spec = p.spec;
                s.points.push_back(p);
            }
            return s;
        };
        RunSpec other = tiny_spec();
        other.variant = "chunked";
        SweepResult off = sweep_of({16});
        off.points[0].spec = off.points[0].bench.spec = other;
        session.addSweep(off, QStringLiteral("off.json"));
        QVERIFY(!session.sweepFor(a.run.get()));
        session.addSweep(sweep_of({16, 32}), QStringLiteral("on.json"));
        QCOMPARE(sweeps.size(), 2);
        QVERIFY(session.sweepFor(a.run.get()));
        QCOMPARE(session.sweepFor(a.run.get())->points.size(), size_t(2));
        QCOMPARE(session.sweepFor(nullptr)->points.size(), size_t(2));  // no run: the last sweep with points
        // A sweep run here joins the list (named by its spec and time), point by point; the others stay.
        SweepPlan plan;
        plan.base = tiny_spec();
        plan.seq_lengths = {16, 32, 64};
        session.startLiveSweep(plan);
        QCOMPARE(session.liveSweep().planned_points, 3);
        session.addLivePoint(sweep_of({16}).points[0]);
        QCOMPARE(sweeps.size(), 4);
        QCOMPARE(int(session.sweeps().size()), 3);
        QVERIFY(session.sweeps()[2].label.startsWith(QStringLiteral("manual float32 1x2xNx16 train, N 16-64, ")));
        QCOMPARE(session.sweeps()[2].sweep->points.size(), size_t(1));
        session.setCheck(std::make_shared<const CheckReport>());
        QCOMPARE(measured.size(), 1);
        // Saved and restored: the same runs, shown run, sweeps and check; every view told.
        const auto w = session.toWorkspace(tiny_spec());
        QCOMPARE(int(w->runs.size()), 2);
        QCOMPARE(w->shown, 0);
        ui::Session back;
        QSignalSpy back_runs(&back, &ui::Session::runsChanged), back_shown(&back, &ui::Session::shownChanged),
            back_sweeps(&back, &ui::Session::sweepsChanged), back_measured(&back, &ui::Session::measurementsChanged);
        back.restore(*w, {a.analysis, a.analysis});
        QCOMPARE(back_runs.size() + back_shown.size() + back_sweeps.size() + back_measured.size(), 4);
        QCOMPARE(back.runs()[1].label, QStringLiteral("b"));
        QCOMPARE(back.shown().result, a.run);
        QCOMPARE(int(back.sweeps().size()), 3);
        QVERIFY(back.check());
        QVERIFY(!back.bench());
        back.clearShown();
        QVERIFY(!back.shown().result);
        QCOMPARE(back.toWorkspace(tiny_spec())->shown, -1);
    }
    void mainWindowSavesAndReopensTheWorkspace() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("session.json"));
        RunSpec spec = tiny_spec();
        {
            MainWindow window;
            window.showResult(std::make_shared<const ProfileResult>(profile_run(spec, ProfileOptions{})));
            spec.variant = "sdpa";
            window.showResult(std::make_shared<const ProfileResult>(profile_run(spec, ProfileOptions{})), QStringLiteral("sdpa run"));
            SweepPlan plan;
            plan.base = tiny_spec();
            plan.seq_lengths = {16, 32};
            plan.bench.warmup = 0;
            plan.bench.budget_s = 0;
            plan.bench.min_repeats = 2;
            window.session()->addSweep(run_sweep(plan), QStringLiteral("s1"));
            spec.seq_q = spec.seq_k = 48;
            window.runPanel()->setSpec(spec);
            QSignalSpy saved(window.engine(), &Engine::workspaceSaved);
            window.saveWorkspace(path);
            QTRY_VERIFY_WITH_TIMEOUT(!saved.isEmpty(), 60'000);
        }
        MainWindow window;
        QSignalSpy loaded(window.engine(), &Engine::workspaceLoaded);
        QVERIFY(window.openFile(path));
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 60'000);
        // The spy sees the worker's signal at once; the window restores in its queued slot after it.
        QTRY_COMPARE_WITH_TIMEOUT(int(window.workspace()->runs.size()), 2, 10'000);
        const auto w = window.workspace();
        QCOMPARE(int(w->runs.size()), 2);
        QCOMPARE(QString::fromStdString(w->runs[1].label), QStringLiteral("sdpa run"));
        QCOMPARE(w->shown, 1);  // the last run shown when saved is on screen again
        QCOMPARE(window.operatorPanel()->model()->rows(), key_averages(w->runs[1].result->trace));
        QCOMPARE(int(w->sweeps.size()), 1);
        QCOMPARE(window.sweepChart()->curveCount(), 1);
        QCOMPARE(window.runPanel()->spec(), spec);
        QCOMPARE(window.comparison()->model()->rowCount() > 0, true);
    }
    void kernelTableAndLaunchArrowsOfAnImportedGpuTrace() {
        const auto t = std::make_shared<const ImportedTrace>(
            import_chrome_trace(std::string(AWB_FIXTURE_DIR) + "/traces/kineto_gpu_2x.json"));
        KernelPanel panel;
        QAbstractItemModelTester t1(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(panel.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.setRows(kernel_table(t->trace));
        QCOMPARE(panel.model()->rowCount(), 7);  // 5 kernels, a copy, a set
        panel.proxy()->sort(KernelTableModel::Total, Qt::AscendingOrder);  // numbers: 1.28 us first, 85.12 us last
        QCOMPARE(panel.proxy()->index(0, KernelTableModel::Name).data().toString(), QStringLiteral("Memset (Device)"));
        QVERIFY(panel.proxy()->index(6, KernelTableModel::Name).data().toString().startsWith(QStringLiteral("ncclDevKernel")));
        panel.proxy()->sort(KernelTableModel::Occupancy, Qt::DescendingOrder);
        QCOMPARE(panel.proxy()->index(0, KernelTableModel::Occupancy).data().toString(), QStringLiteral("94.0 %"));
        QCOMPARE(panel.model()->headerData(KernelTableModel::Grid, Qt::Horizontal).toString(), QStringLiteral("Grid"));
        // Grouped by class: GEMM, softmax, communication, memcpy, memset; the device time is the same.
        QCOMPARE(panel.model()->index(0, KernelTableModel::Class).data().toString().isEmpty(), false);
        panel.setGroupByClass(true);
        QCOMPARE(panel.model()->rowCount(), 5);
        panel.proxy()->sort(KernelTableModel::Total, Qt::DescendingOrder);
        QCOMPARE(panel.proxy()->index(0, KernelTableModel::Name).data().toString(), QStringLiteral("communication"));
        QCOMPARE(panel.proxy()->index(1, KernelTableModel::Name).data().toString(), QStringLiteral("GEMM"));
        QCOMPARE(panel.proxy()->index(1, KernelTableModel::Calls).data().toString(), QStringLiteral("2"));
        panel.setGroupByClass(false);
        QCOMPARE(panel.model()->rowCount(), 7);

        // The timeline: lanes named by the trace's metadata; clicking a launch draws its arrow.
        TimelineWidget timeline;
        timeline.resize(1200, 600);
        auto shared = std::shared_ptr<const Trace>(t, &t->trace);
        timeline.setData(std::make_shared<const TimelineData>(TimelineData::from_trace(t->trace)), shared);
        int launch = -1;
        for (int i = 0; i < int(t->trace.events().size()); ++i)
            if (t->trace.events()[size_t(i)].name == "cudaLaunchKernel") launch = i;
        QVERIFY(launch >= 0);
        timeline.selectEvent(launch);
        QCOMPARE(int(timeline.flows().size()), 1);
        QImage image(1200, 600, QImage::Format_ARGB32);
        QPainter painter(&image);
        QVERIFY(timeline.paintTo(painter, image.rect()) > 0);
        bool any_stream_named = false;
        for (const auto& lane : TimelineData::from_trace(t->trace).lanes) any_stream_named |= lane.title.find("cuda:0") == 0;
        QVERIFY(any_stream_named);
    }
    void graphReplayOpensWithItsCapture() {
        // A folder holding a replay and capture_traces/ (as vLLM writes it), and File > Open of both files
        // in any order: one trace whose graphs' kernels name the capture's ops (replayed ops: no CPU time),
        // on a lane of their own; the status line says what was attributed.
        MainWindow window;
        const QString dir = QStringLiteral(AWB_FIXTURE_DIR "/traces/graph_replay/vllm");
        QVERIFY(open_and_wait(window, dir));
        const QLabel* status = window.findChild<QLabel*>(QStringLiteral("status"));
        QVERIFY2(status->text().contains(QStringLiteral("34 of 34 kernels attributed to capture-time ops (3 of 3 graph launches")),
                 qPrintable(status->text()));
        QVERIFY(status->toolTip().contains(QStringLiteral("capture_traces/graph_capture_rank_0.json.gz")));
        const auto expected = key_averages(import_replay(*replay_files_of(dir.toStdString())).imported.trace);
        QTRY_COMPARE_WITH_TIMEOUT(window.operatorPanel()->model()->rows(), expected, 10'000);
        const auto moe = std::find_if(expected.begin(), expected.end(), [](const OperatorRow& r) { return r.name == "vllm::moe_forward"; });
        QVERIFY(moe != expected.end());
        QCOMPARE(moe->cpu_total_ns, int64_t(0));
        QVERIFY(moe->self_device_ns > 0);
        QTRY_VERIFY_WITH_TIMEOUT(window.timeline()->data() != nullptr, 10'000);
        const auto& lanes = window.timeline()->data()->lanes;
        QVERIFY(std::any_of(lanes.begin(), lanes.end(), [](const auto& l) { return l.title.find(kGraphReplayLaneName) != std::string::npos; }));
        // Both files selected, the capture first.
        window.showResult(std::make_shared<const ProfileResult>(profile_run(tiny_spec(), ProfileOptions{})));
        QSignalSpy opened(window.engine(), &Engine::resultsOpened);
        QVERIFY(window.openFiles({dir + QStringLiteral("/capture_traces/graph_capture_rank_0.json.gz"), dir + QStringLiteral("/graph_execution.json.gz")}));
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 60'000);
        QTRY_COMPARE_WITH_TIMEOUT(window.operatorPanel()->model()->rows(), expected, 10'000);
        QVERIFY2(status->text().contains(QStringLiteral("34 of 34 kernels attributed")), qPrintable(status->text()));
        // Two files and no capture among them: one message saying so; what is shown is kept.
        QTimer closer;
        close_message_boxes(closer);
        QSignalSpy failed(window.engine(), &Engine::failed);
        QVERIFY(window.openFiles({dir + QStringLiteral("/graph_execution.json.gz"), QStringLiteral(AWB_FIXTURE_DIR "/traces/kineto_gpu_2x.json")}));
        QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 60'000);
        QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("Cannot open traces"));
        QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("none of the 2 files holds a graph capture")));
        QCOMPARE(window.operatorPanel()->model()->rows(), expected);
    }
    void gpuTimeBarsOfAnOpenedTwoRankTrace() {
        // File > Open of a distributed run: the GPU time tab has a bar per rank and step whose parts sum
        // to the step's span, and the table holds every row of the core's breakdown.
        MainWindow window;
        const QString dir = QStringLiteral(AWB_FIXTURE_DIR "/traces/multi_rank");
        QSignalSpy opened(window.engine(), &Engine::resultsOpened);
        QVERIFY(window.openFile(dir));
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 60'000);
        QTRY_COMPARE_WITH_TIMEOUT(window.gpuTime()->barCount(), 2, 10'000);
        const auto expected = gpu_breakdown(import_chrome_traces(trace_files_of(dir.toStdString())).trace);
        QCOMPARE(window.gpuTime()->model()->rows(), expected);
        for (int i = 0; i < 2; ++i) {
            const GpuBreakdown& b = window.gpuTime()->bar(i);
            QCOMPARE(b.rank, i);
            QCOMPARE(b.step, 1);
            const GpuBarParts p = bar_parts(b);
            QCOMPARE(p.computation_ns + p.exposed_communication_ns + p.other_busy_ns + p.idle_ns, double(b.span_ns()));
            QCOMPARE(p.exposed_communication_ns, double(b.communication_ns));  // no computation hides the all-reduce
        }
        QCOMPARE(window.gpuTime()->plot()->plottableCount(), 4);
        QTemporaryDir out;  // File > Export > GPU time chart
        QVERIFY(window.gpuTime()->exportTo(out.filePath(QStringLiteral("g.png"))));
        QVERIFY(QFileInfo(out.filePath(QStringLiteral("g.png"))).size() > 1000);
        QVERIFY(window.gpuTime()->exportTo(out.filePath(QStringLiteral("g.pdf"))));
        QString error;
        QVERIFY(!window.gpuTime()->exportTo(QStringLiteral("/nonexistent-dir/g.png"), &error));
        QVERIFY(error.contains(QStringLiteral("/nonexistent-dir/g.png")));
        QCOMPARE(window.gpuTime()->model()->index(0, GpuTimeModel::Idle).data().toString(), QStringLiteral("37.7 us (22.1%)"));
        // The timeline marks each GPU's idle gaps on its stream lanes, and says so on hover.
        const TimelineData* data = window.timeline()->data();
        QVERIFY(data);
        int stream_lane = -1;
        for (int l = 0; l < int(data->lanes.size()); ++l)
            if (data->lanes[size_t(l)].device && data->lanes[size_t(l)].rank == 0 && stream_lane < 0) stream_lane = l;
        QVERIFY(stream_lane >= 0);
        const auto idle = gpu_idle_gaps(import_chrome_traces(trace_files_of(dir.toStdString())).trace);
        const auto gap = idle.at(0).gaps.at(0);  // rank 0: from the GEMM's end to the all-reduce
        QCOMPARE(window.timeline()->idleGapAt(stream_lane, (gap.first + gap.second) / 2), gap);
        QCOMPARE(window.timeline()->idleGapAt(stream_lane, gap.second + 1), (std::pair<int64_t, int64_t>{0, 0}));
        // A CPU run has none, and says why.
        window.showResult(std::make_shared<const ProfileResult>(profile_run(tiny_spec(), ProfileOptions{})));
        QCOMPARE(window.gpuTime()->barCount(), 0);
        QCOMPARE(window.gpuTime()->model()->rowCount(), 0);
    }
    void attentionTabOfAnOpenedTorch211Trace() {
        // File > Open of PyTorch 2.11's trace of sdpa (CPU flash) training: the Attention tab lists the
        // four calls as the core finds them, sorts by FLOP, and selecting one selects its op in the
        // timeline with the view around it.
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        const QString path = QStringLiteral(AWB_FIXTURE_DIR "/traces/torch2/sdpa_train_stack.pt.trace.json.gz");
        QSignalSpy opened(window.engine(), &Engine::resultsOpened);
        QVERIFY(window.openFile(path));
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 60'000);
        QTRY_COMPARE_WITH_TIMEOUT(window.attention()->model()->rowCount(), 4, 10'000);
        const auto expected = attention_instances(import_chrome_trace(path.toStdString()).trace);
        QCOMPARE(window.attention()->model()->rows(), expected);
        QTableView* table = window.attention()->table();
        QAbstractItemModelTester tester(table->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        table->sortByColumn(AttentionTableModel::Flops, Qt::DescendingOrder);
        QCOMPARE(table->model()->index(0, AttentionTableModel::Pass).data().toString(), QStringLiteral("backward"));
        QCOMPARE(table->model()->index(0, AttentionTableModel::Flops).data().toString(), QStringLiteral("1.31 MFLOP"));
        QCOMPARE(table->model()->index(3, AttentionTableModel::Flops).data().toString(), QStringLiteral("524 kFLOP"));
        QCOMPARE(table->model()->index(0, AttentionTableModel::Backend).data().toString(), QStringLiteral("CPU flash"));
        QCOMPARE(table->model()->index(0, AttentionTableModel::Causal).data().toString(), QStringLiteral("no"));
        QTRY_VERIFY_WITH_TIMEOUT(window.timeline()->data() != nullptr, 10'000);
        table->selectRow(3);
        const QModelIndex picked = qobject_cast<QSortFilterProxyModel*>(table->model())->mapToSource(table->model()->index(3, 0));
        const AttentionInstance& call = window.attention()->model()->rows()[size_t(picked.row())];
        QCOMPARE(window.timeline()->selectedEvent(), call.event);
        QVERIFY(window.timeline()->view().start_ns < call.start_ns && window.timeline()->view().end_ns > call.end_ns);
        QVERIFY(window.timeline()->view().end_ns - window.timeline()->view().start_ns < 2 * call.cpu_ns());
        // The roofline: a point per call, a series per backend and pass, no roof (the trace names no GPU
        // and measured none); clicking a point selects its call.
        for (QDockWidget* dock : window.findChildren<QDockWidget*>())
            if (dock->objectName() == QStringLiteral("attention")) dock->raise();
        RooflineChart* chart = window.attention()->roofline();
        QCOMPARE(chart->points().size(), size_t(4));
        QCOMPARE(chart->plot()->graphCount(), 2);
        QCOMPARE(table->model()->index(0, AttentionTableModel::RoofShare).data().toString(), QStringLiteral("-"));
        QTRY_VERIFY_WITH_TIMEOUT(chart->plot()->width() > 100, 5'000);
        chart->plot()->replot();
        for (const RooflinePoint& p : chart->points()) {
            const QPoint at(int(chart->plot()->xAxis->coordToPixel(p.intensity)), int(chart->plot()->yAxis->coordToPixel(p.tflops)));
            QTest::mouseClick(chart->plot(), Qt::LeftButton, {}, at);
            const auto* proxy = qobject_cast<QSortFilterProxyModel*>(table->model());
            const AttentionInstance& clicked = window.attention()->model()->rows()[size_t(proxy->mapToSource(table->currentIndex()).row())];
            // Forward calls share an intensity and nearly a rate: the click lands on one of that pass.
            QCOMPARE(clicked.backward, window.attention()->model()->rows()[size_t(p.index)].backward);
            QCOMPARE(window.timeline()->selectedEvent(), clicked.event);
        }
        QVERIFY(chart->readout().contains(QStringLiteral("FLOP/byte")));
        // Our own run: the roof measured in it (dashed, "measured" in the legend), each call's share of it.
        ProfileResult own = profile_run(tiny_spec(), ProfileOptions{});
        own.roof = run_roof(own.spec, own.environment.device_name);  // as the engine worker and attnwb profile do
        window.showResult(std::make_shared<const ProfileResult>(std::move(own)));
        QTRY_VERIFY_WITH_TIMEOUT(window.attention()->model()->rowCount() >= 1, 10'000);  // tiny_spec's manual variant has one
        QCOMPARE(chart->points().size(), size_t(window.attention()->model()->rowCount()));
        QVERIFY(chart->plot()->graph(0)->name().contains(QStringLiteral("(measured)")));
        QVERIFY(table->model()->index(0, AttentionTableModel::RoofShare).data().toString().endsWith(QLatin1Char('%')));
        QVERIFY(!table->model()->index(0, AttentionTableModel::Bytes).data().toString().isEmpty());
    }
    void largeTracesAreComputedOffTheGuiThread() {
        // 250k events on two threads: above kBackgroundEvents, so the views fill in after the call.
        std::vector<TraceEvent> events;
        for (int i = 0; i < 125'000; ++i)
            for (uint64_t thread : {1u, 2u}) {
                TraceEvent e;
                e.name = i % 2 ? "aten::mm" : "aten::add";
                e.thread = thread;
                e.start_ns = int64_t(i) * 1000;
                e.end_ns = e.start_ns + 800;
                events.push_back(std::move(e));
            }
        auto run = std::make_shared<ProfileResult>();
        run->trace = Trace::build(std::move(events), {}, TraceMeta{});
        std::shared_ptr<const ProfileResult> result = run;
        MainWindow window;
        window.showResult(result);
        QTRY_COMPARE_WITH_TIMEOUT(window.operatorPanel()->model()->rowCount(), 2, 30'000);
        QCOMPARE(window.operatorPanel()->model()->rows()[0].calls + window.operatorPanel()->model()->rows()[1].calls, int64_t(250'000));
        QTRY_VERIFY_WITH_TIMEOUT(window.timeline()->view().end_ns > 100'000'000, 30'000);
        QTRY_COMPARE_WITH_TIMEOUT(window.findings()->checklist().size(), size_t(7), 30'000);
        // The HTML report of a big trace is written on the thread pool too.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("big.html"));
        QVERIFY(window.exportHtmlReport(path));
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(path).size() > 1000, 30'000);
    }
};

AWB_UI_TEST(UiTests)
#include "test_ui.moc"
