// Workspaces and sweeps on the real main window: an imported trace (two ranks, a graph replay, one
// rank) saved in a workspace reopens in a new window with the same lanes, names, ranks and analysis;
// sweeps stay in a list (run here, opened, restored), any of them shown together, removed on request,
// all kept by the workspace; sweep counts and fits refused below 3 points say the same everywhere;
// the sweep chart's axis titles and legend fit at 1600x1000 and 1000x700.
#include <QDockWidget>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTemporaryDir>

#include <qcustomplot.h>

#include "analysis/results_text.h"
#include "engine/sweep_runner.h"
#include "model/attention_cost.h"
#include "model/sweep_merge.h"
#include "results/graph_replay.h"
#include "results/measurement_json.h"
#include "results/run_json.h"
#include "run_panel.h"
#include "session.h"
#include "sweep_chart.h"
#include "timeline_data.h"
#include "timeline_view.h"
#include "gpu_time_view.h"
#include "operator_panel.h"
#include "operator_table_model.h"
#include "main_window.h"
#include <QTest>
#include "findings_view.h"
#include "kernel_panel.h"
#include "comparison_model.h"
#include "comparison_view.h"
#include "ui_test_registry.h"
#include "ui_test_support.h"

using namespace awb;
using namespace awb::ui;
using namespace awb::ui::test;

namespace {

// What a user sees of a trace: each lane's title, rank and side, and the spans in it.
QStringList lanes_of(const MainWindow& window) {
    QStringList out;
    const TimelineData* data = window.timeline()->data();
    if (!data) return out;
    for (const TimelineLane& lane : data->lanes) {
        size_t spans = 0;
        for (const auto& level : lane.levels) spans += level.spans.size();
        out << QStringLiteral("%1 | rank %2 | %3 | %4 spans")
                   .arg(QString::fromStdString(lane.title))
                   .arg(lane.rank)
                   .arg(lane.device ? QStringLiteral("device %1").arg(lane.device_index) : QStringLiteral("CPU"))
                   .arg(spans);
    }
    return out;
}

SweepResult hand_sweep(const std::vector<int64_t>& lengths, const char* variant, int planned, int failed = 0) {
    SweepResult s;
    s.plan.base = with_variant(tiny_spec(), variant);
    s.plan.seq_lengths = lengths;
    for (int64_t n : lengths) {
        SweepPoint p;
        p.spec = s.plan.base;
        p.spec.seq_q = p.spec.seq_k = n;
        p.bench.spec = p.spec;
        const double x = double(n);
        p.bench.timing = {5, 1, 10 * x * x, 9 * x * x, 11 * x * x, 9 * x * x, 11 * x * x, 10 * x * x};
        p.bench.peak_bytes = int64_t(64 * x * x);
        p.bench.flops = attention_flops(p.spec);  // on the roofline too
        p.bench.bytes = attention_bytes(p.spec, BytesModel::Ideal);
        p.bench.gflops_per_s = p.bench.flops / p.bench.timing.median_ns;
        p.bench.roof = Roof{"CPU", "float", 0.1, 0.01, true, "measured"};
        s.points.push_back(p);
    }
    for (int i = 0; i < failed; ++i) {
        SweepPoint p;
        p.spec = s.plan.base;
        p.spec.seq_q = p.spec.seq_k = 1 << 20;
        p.status = PointStatus::Failed;
        p.reason = "out of memory";
        s.points.push_back(p);
    }
    s.planned_points = planned;
    return s;
}

QListWidget* sweep_list(const MainWindow& window) { return window.sweepChart()->sweepList(); }

}  // namespace

class WorkspaceUiTests : public QObject {
    Q_OBJECT

    // Opens `path` in a window, saves the workspace, reopens it in a new window and compares.
    void reopensAsItWas(const QString& path, const QString& must_have_lane) {
        QTemporaryDir dir;
        const QString ws = dir.filePath(QStringLiteral("ws.json"));
        QStringList lanes;
        std::vector<OperatorRow> operators;
        std::shared_ptr<const RunAnalysis> analysis;
        QString label;
        {
            MainWindow window;
            QVERIFY(open_and_wait(window, path));
            QTRY_VERIFY_WITH_TIMEOUT(window.session()->shown().analysis != nullptr, 30'000);
            QTRY_VERIFY_WITH_TIMEOUT(window.timeline()->data() != nullptr, 10'000);
            lanes = lanes_of(window);
            operators = window.operatorPanel()->model()->rows();
            analysis = window.session()->shown().analysis;
            label = window.session()->shown().label;
            QSignalSpy saved(window.engine(), &EngineThread::workspaceSaved);
            window.saveWorkspace(ws);
            QTRY_VERIFY_WITH_TIMEOUT(!saved.isEmpty(), 60'000);
        }
        QVERIFY2(lanes.join(QLatin1Char('\n')).contains(must_have_lane), qPrintable(lanes.join(QLatin1Char('\n'))));
        MainWindow window;
        QSignalSpy loaded(window.engine(), &EngineThread::workspaceLoaded);
        QVERIFY(window.openFile(ws));
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 60'000);
        QTRY_VERIFY_WITH_TIMEOUT(window.session()->shown().analysis != nullptr, 30'000);
        QTRY_VERIFY_WITH_TIMEOUT(window.timeline()->data() != nullptr, 10'000);
        QCOMPARE(window.session()->shown().label, label);
        QCOMPARE(lanes_of(window), lanes);
        QCOMPARE(window.operatorPanel()->model()->rows(), operators);
        QVERIFY(*window.session()->shown().analysis == *analysis);
    }

private slots:
    void twoRankTraceReopensWithItsLanesNamesRanksAndAnalysis() {
        // rank0's thread is named in the trace: "rank 0 <name> (CPU 3001)", its own pid and lanes per rank.
        reopensAsItWas(QStringLiteral(AWB_FIXTURE_DIR "/traces/multi_rank"), QStringLiteral("rank 1 "));
        MainWindow window;  // the two ranks' bars in the GPU time tab come back too
        QTemporaryDir dir;
        QVERIFY(open_and_wait(window, QStringLiteral(AWB_FIXTURE_DIR "/traces/multi_rank")));
        QTRY_COMPARE_WITH_TIMEOUT(window.gpuTime()->barCount(), 2, 10'000);
        QSignalSpy saved(window.engine(), &EngineThread::workspaceSaved);
        window.saveWorkspace(dir.filePath(QStringLiteral("ws.json")));
        QTRY_VERIFY_WITH_TIMEOUT(!saved.isEmpty(), 60'000);
        MainWindow back;
        QVERIFY(back.openFile(dir.filePath(QStringLiteral("ws.json"))));
        QTRY_COMPARE_WITH_TIMEOUT(back.gpuTime()->barCount(), 2, 30'000);
        QCOMPARE(back.gpuTime()->model()->rows(), window.gpuTime()->model()->rows());
        for (int i = 0; i < 2; ++i) QCOMPARE(back.gpuTime()->bar(i).rank, i);
    }
    void graphReplayKeepsItsLaneOfCapturedOps() {
        reopensAsItWas(QStringLiteral(AWB_FIXTURE_DIR "/traces/graph_replay/cuda"),
                       QString::fromLatin1(kGraphReplayLaneName));
    }
    void singleRankImportReopensAsItWas() {
        reopensAsItWas(QStringLiteral(AWB_FIXTURE_DIR "/traces/kineto_gpu_2x.json"), QStringLiteral("stream 7"));
    }

    void sweepsStayListedShowTogetherAndRemoveOnRequest() {
        QTemporaryDir dir;
        const QString ws = dir.filePath(QStringLiteral("ws.json"));
        {
            MainWindow window;
            window.session()->addSweep(hand_sweep({32, 64, 128}, "manual", 3), QStringLiteral("a.json"));
            // A sweep run here joins the list; the one before stays, and both are on the chart.
            SweepPlan plan;
            plan.base = tiny_spec();
            plan.seq_lengths = {16, 32, 48};
            plan.bench.warmup = 0;
            plan.bench.budget_s = 0;
            plan.bench.min_repeats = 2;
            plan.bench.measure_memory = false;
            QSignalSpy finished(window.engine(), &EngineThread::sweepFinished);
            emit window.runPanel()->sweepRequested(plan);
            QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 60'000);
            QTRY_COMPARE_WITH_TIMEOUT(int(window.session()->sweeps().back().sweep->points.size()), 3, 10'000);
            window.session()->addSweep(hand_sweep({32, 64, 128}, "chunked", 3), QStringLiteral("b.json"));
            QCOMPARE(int(window.session()->sweeps().size()), 3);
            QListWidget* list = sweep_list(window);
            QCOMPARE(list->count(), 3);
            QVERIFY(list->item(1)->text().contains(QStringLiteral("manual float32 1x2xNx16 train, N 16-48, ")));
            QCOMPARE(window.sweepChart()->curveCount(), 3);
            // Each sweep's curves carry its tag and its own marker.
            QVERIFY(window.sweepChart()->legendText(0).startsWith(QStringLiteral("S1: ")));
            QVERIFY(window.sweepChart()->legendText(1).startsWith(QStringLiteral("S2: ")));
            QVERIFY(window.sweepChart()->legendText(2).startsWith(QStringLiteral("S3: ")));
            QVERIFY(window.sweepChart()->plot()->graph(0)->scatterStyle().shape() !=
                    window.sweepChart()->plot()->graph(1)->scatterStyle().shape());
            // Unchecked: off the chart, still listed.
            list->item(0)->setCheckState(Qt::Unchecked);
            QCOMPARE(window.session()->sweeps()[0].shown, false);
            QCOMPARE(window.sweepChart()->curveCount(), 2);
            QVERIFY(window.sweepChart()->legendText(0).startsWith(QStringLiteral("S2: ")));
            // Remove takes out the selected one only.
            QVERIFY(!window.sweepChart()->removeButton()->isEnabled());
            list->item(2)->setSelected(true);
            QVERIFY(window.sweepChart()->removeButton()->isEnabled());
            window.sweepChart()->removeButton()->click();
            QCOMPARE(int(window.session()->sweeps().size()), 2);
            QCOMPARE(window.session()->sweeps()[0].label, QStringLiteral("a.json"));
            QCOMPARE(list->count(), 2);
            QCOMPARE(window.sweepChart()->curveCount(), 1);
            QSignalSpy saved(window.engine(), &EngineThread::workspaceSaved);
            window.saveWorkspace(ws);
            QTRY_VERIFY_WITH_TIMEOUT(!saved.isEmpty(), 60'000);
        }
        MainWindow window;
        QVERIFY(window.openFile(ws));
        QTRY_COMPARE_WITH_TIMEOUT(int(window.session()->sweeps().size()), 2, 60'000);
        QCOMPARE(window.session()->sweeps()[0].label, QStringLiteral("a.json"));
        QCOMPARE(window.session()->sweeps()[0].shown, false);
        QCOMPARE(window.session()->sweeps()[1].shown, true);
        QCOMPARE(sweep_list(window)->item(0)->checkState(), Qt::Unchecked);
        QCOMPARE(window.sweepChart()->curveCount(), 1);
        sweep_list(window)->item(0)->setCheckState(Qt::Checked);  // both together again
        QCOMPARE(window.sweepChart()->curveCount(), 2);
    }

    void sweepCountsAndRefusedFitsSayTheSameAsTheReport() {
        // 12 planned: 4 measured, 1 out of memory, 7 never run; one curve of 2 lengths has no fit.
        SweepResult s = hand_sweep({32, 64, 128, 256}, "manual", 12, 1);
        s.stopped_early = true;
        s.points[2].spec.variant = s.points[3].spec.variant = s.points[2].bench.spec.variant =
            s.points[3].bench.spec.variant = "sdpa";
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.json"));
        write_text_file(path.toStdString(), sweep_file_json(s, analyze_sweep(s)).dump());
        MainWindow window;
        QVERIFY(open_and_wait(window, path));
        const QString status = window.findChild<QLabel*>(QStringLiteral("status"))->text();
        const QString counted = QString::fromStdString(sweep_count_text(s));
        QCOMPARE(counted, QStringLiteral("4 of 12 planned points measured; 1 failed, 7 not run, stopped early"));
        QVERIFY2(status.contains(counted), qPrintable(status));
        QCOMPARE(window.sweepChart()->curveCount(), 2);
        for (int g = 0; g < 2; ++g) {
            QVERIFY2(window.sweepChart()->legendText(g).contains(QStringLiteral("[no fit: 2 points (a fit needs 3)]")),
                     qPrintable(window.sweepChart()->legendText(g)));
            QVERIFY(!window.sweepChart()->legendText(g).contains(QStringLiteral("N^")));
        }
        QVERIFY(QString::fromStdString(format_analysis(analyze_sweep(s)))
                    .contains(QStringLiteral("no fit: 2 points (a fit needs 3)")));
    }

    void sweepChartFitsAtTheDefaultDockSizes() {
        // The merged sweep of mergedSweepOpensAndEachPointNamesWhereItRan, in the real window at both sizes:
        // the chart is all in view, the y axis title fits the axis, the legend sits beside the axes (no point behind
        // it).
        const QByteArray grabs = qgetenv("AWB_GRAB_DIR");
        for (const QSize size : {QSize(1600, 1000), QSize(1000, 700)}) {
            MainWindow window;
            window.resize(size);
            window.show();
            window.findChild<QDockWidget*>(QStringLiteral("sweeps"))->raise();
            SweepPlan plan;
            plan.base = tiny_spec();
            plan.seq_lengths = {32, 64, 128, 256};
            plan.variants = {"manual", "sdpa"};
            SweepResult a = hand_sweep({32, 64, 128, 256}, "manual", 8);
            SweepResult b = hand_sweep({32, 64, 128, 256}, "sdpa", 4);
            for (auto& p : b.points)
                p.bench.timing.median_ns *= 0.5, p.bench.timing.p10_ns *= 0.5, p.bench.timing.p90_ns *= 0.5;
            for (const auto& p : b.points) a.points.push_back(p);
            window.session()->addSweep(a, QStringLiteral("merged.json"));
            window.session()->addSweep(hand_sweep({32, 64, 128}, "chunked", 3), QStringLiteral("other.json"));
            QTest::qWait(200);
            QCustomPlot* plot = window.sweepChart()->plot();
            plot->replot();
            if (!grabs.isEmpty())
                window.grab().save(QString::fromLocal8Bit(grabs) +
                                   QStringLiteral("/sweep-%1x%2.png").arg(size.width()).arg(size.height()));
            const QRect axes = plot->axisRect()->rect();
            const QRect legend = plot->legend->outerRect();
            QVERIFY2(!axes.intersects(legend),
                     qPrintable(QStringLiteral("%1x%2").arg(size.width()).arg(size.height())));
            const QFontMetrics fm(plot->yAxis->labelFont());
            QVERIFY2(fm.horizontalAdvance(plot->yAxis->label()) <= axes.height(),
                     qPrintable(QStringLiteral("y title %1 px on an axis of %2 px")
                                    .arg(fm.horizontalAdvance(plot->yAxis->label()))
                                    .arg(axes.height())));
            QVERIFY(plot->xAxis->axisRect()->outerRect().bottom() <= plot->height());
            // The whole chart is in view in the dock: nothing to scroll to.
            QCOMPARE(plot->visibleRegion().boundingRect().size(), plot->size());
            QVERIFY(plot->legend->outerRect().right() <= plot->width());
            // The roofline view keeps the legend beside its axes too.
            window.sweepChart()->setMetric(SweepChart::Metric::Roofline);
            plot->replot();
            QVERIFY(!plot->axisRect()->rect().intersects(plot->legend->outerRect()));
            if (!grabs.isEmpty())
                window.grab().save(QString::fromLocal8Bit(grabs) +
                                   QStringLiteral("/roofline-%1x%2.png").arg(size.width()).arg(size.height()));
        }
    }
    void mainWindowSavesAndReopensTheWorkspace() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("session.json"));
        RunSpec spec = tiny_spec();
        {
            MainWindow window;
            window.showResult(std::make_shared<const ProfileResult>(profile_run(spec, ProfileOptions{})));
            spec.variant = "sdpa";
            window.showResult(std::make_shared<const ProfileResult>(profile_run(spec, ProfileOptions{})),
                              QStringLiteral("sdpa run"));
            SweepPlan plan;
            plan.base = tiny_spec();
            plan.seq_lengths = {16, 32};
            plan.bench.warmup = 0;
            plan.bench.budget_s = 0;
            plan.bench.min_repeats = 2;
            window.session()->addSweep(run_sweep(plan), QStringLiteral("s1"));
            spec.seq_q = spec.seq_k = 48;
            window.runPanel()->setSpec(spec);
            QSignalSpy saved(window.engine(), &EngineThread::workspaceSaved);
            window.saveWorkspace(path);
            QTRY_VERIFY_WITH_TIMEOUT(!saved.isEmpty(), 60'000);
        }
        MainWindow window;
        QSignalSpy loaded(window.engine(), &EngineThread::workspaceLoaded);
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
};

AWB_UI_TEST(WorkspaceUiTests)
#include "test_ui_workspace.moc"
