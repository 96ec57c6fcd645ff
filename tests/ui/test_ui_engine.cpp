// The engine thread: results delivered by signals, cancel and stop at every stage (recording, a sweep,
// an import, a check) keeping what finished, sweep points delivered as they finish.
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
#include "io/trace_files.h"
#include "results/graph_replay_import.h"
#include "results/workspace.h"
#include <QTextBrowser>
#include <QStandardItemModel>
#include "analysis/op_diff.h"
#include "io/trace_import.h"
#include "model/sweep_merge.h"
#include "model/sweep_shard.h"
#include "results/measurement_json.h"
#include "results/run_json.h"
#include "kernel_panel.h"
#include "main_window.h"
#include "operator_panel.h"
#include "operator_table_model.h"
#include "run_panel.h"
#include "session.h"
#include "sweep_chart.h"
#include "ui_test_registry.h"
#include "ui_test_support.h"
using namespace awb;
using namespace awb::ui;
using namespace awb::ui::test;

class EngineTests : public QObject {
    Q_OBJECT
private slots:
    // Signals from the engine thread can arrive before a QSignalSpy::wait() starts (it waits for a new
    // one), so the tests poll the spies' counts instead (QTRY_*).
    void engineThreadDeliversResultsBySignals() {
        EngineThread engine;
        QSignalSpy done(&engine, &EngineThread::profileFinished);
        QSignalSpy progress(&engine, &EngineThread::progress);
        engine.profile(tiny_spec(), ProfileOptions{});
        QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), 60'000);
        const auto result = done.at(0).at(0).value<std::shared_ptr<const ProfileResult>>();
        QVERIFY(result);
        QVERIFY(!result->trace.events().empty());
        QCOMPARE(progress.size(), total_steps(ProfileOptions{}));
        QSignalSpy failed(&engine, &EngineThread::failed);
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
        EngineThread engine;
        QSignalSpy done(&engine, &EngineThread::sweepFinished);
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
        EngineThread engine;
        QSignalSpy cancelled(&engine, &EngineThread::cancelled);
        QSignalSpy opened(&engine, &EngineThread::resultsOpened);
        QSignalSpy progress(&engine, &EngineThread::progress);
        auto stop = QObject::connect(
            engine.worker(), &EngineWorker::progress, engine.worker(),
            [&engine](int, int, const QString&) { engine.cancel(); }, Qt::DirectConnection);
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
        EngineThread engine;
        QSignalSpy cancelled(&engine, &EngineThread::cancelled);
        QSignalSpy finished(&engine, &EngineThread::checkFinished);
        QSignalSpy progress(&engine, &EngineThread::progress);
        auto stop = QObject::connect(
            engine.worker(), &EngineWorker::progress, engine.worker(),
            [&engine](int, int, const QString&) { engine.cancel(); }, Qt::DirectConnection);
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
    void engineSweepDeliversPointsAsTheyFinish() {
        EngineThread engine;
        QSignalSpy points(&engine, &EngineThread::sweepPoint);
        QSignalSpy done(&engine, &EngineThread::sweepFinished);
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
};

AWB_UI_TEST(EngineTests)
#include "test_ui_engine.moc"
