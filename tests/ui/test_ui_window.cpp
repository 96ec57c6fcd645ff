// The main window: a run shown and bad files refused, its size kept when long names arrive, docks that
// resize, the Session's signals and the views that follow them, a graph replay with its capture, the
// checklist and HTML report of a run with its sweep, big traces computed off the GUI thread.
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
#include "synthetic_timeline.h"
#include "table_columns.h"
#include "timeline_view.h"
#include "background.h"
#include "run_view.h"
#include "ui_test_registry.h"
#include "ui_test_support.h"
using namespace awb;
using namespace awb::ui;
using namespace awb::ui::test;

class WindowTests : public QObject {
    Q_OBJECT
private slots:
    void mainWindowShowsARunAndRejectsBadFiles() {
        MainWindow window;
        const auto result = std::make_shared<const ProfileResult>(profile_run(tiny_spec(), ProfileOptions{}));
        window.showResult(result);
        QVERIFY(window.operatorPanel()->model()->rowCount() > 5);
        QVERIFY(
            window.findings()->toPlainText().startsWith(QStringLiteral("manual 1x2x32x16")));  // the advisor read it
        QCOMPARE(window.findings()->findings(), advise({result.get()}));
        QTemporaryFile bad;
        QVERIFY(bad.open());
        bad.write("{\"schema\": \"attention-workbench/profile-report\", \"schema_version\": 1");  // truncated
        bad.close();
        // A bad file shows one message box, titled with what failed; offscreen it would block, so close
        // it as it appears.
        QTimer closer;
        close_message_boxes(closer);
        QSignalSpy failed(window.engine(), &EngineThread::failed);
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
        QSignalSpy imported(window.engine(), &EngineThread::resultsOpened);
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
                    e["name"] =
                        "void cutlass::Kernel<" + std::string(1500, 'x') + ">(Params) " + e["name"].get<std::string>();
            std::ofstream(path.toStdString()) << j.dump();
        }
        MainWindow window;
        const QSize size(1000, 700);
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy imported(window.engine(), &EngineThread::resultsOpened);
        QVERIFY(window.openFile(path));
        QTRY_VERIFY_WITH_TIMEOUT(!imported.isEmpty(), 60'000);
        QTest::qWait(50);  // the layout settles
        QVERIFY2(window.size().width() <= size.width() && window.size().height() <= size.height(),
                 qPrintable(QStringLiteral("window grew to %1x%2").arg(window.width()).arg(window.height())));
        QVERIFY(window.operatorPanel()->model()->rowCount() > 5);
        // Every shown header fits its column (the device columns, shown after the fit, were cut).
        QTableView* ops = window.operatorPanel()->view();
        for (int c = 0; c < ops->model()->columnCount(); ++c)
            if (!ops->isColumnHidden(c) && c != OperatorTableModel::column(OpColumn::Name))
                QVERIFY2(ops->columnWidth(c) >= ops->horizontalHeader()->sectionSizeHint(c),
                         qPrintable(ops->model()->headerData(c, Qt::Horizontal).toString()));
        QVERIFY(!ops->isColumnHidden(OperatorTableModel::column(OpColumn::SelfDevice)));
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
                 qPrintable(QStringLiteral("window grew to %1x%2 with Operators shown again")
                                .arg(window.width())
                                .arg(window.height())));
    }
    // After runs the bottom docks left the timeline ~90 px and their splitter did not move (the
    // Compare dock's two timelines made the dock area's minimum over 1,000 px); the Compare table showed
    // one row. Now the timeline keeps most of the window, the docks resize, the table shows many rows.
    void docksResizeAndTheTimelineKeepsItsRoom() {
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        for (int i = 0; i < 2; ++i)
            window.showResult(std::make_shared<const ProfileResult>(profile_run(tiny_spec(), ProfileOptions{})));
        auto* operators = window.findChild<QDockWidget*>(QStringLiteral("operators"));
        auto* compare = window.findChild<QDockWidget*>(QStringLiteral("compare"));
        QVERIFY(operators && compare);
        QTest::qWait(50);
        QVERIFY2(window.timeline()->parentWidget()->height() >= 400,
                 qPrintable(QStringLiteral("timeline area %1 px").arg(window.timeline()->parentWidget()->height())));
        window.resizeDocks({operators}, {220}, Qt::Vertical);
        QTest::qWait(50);
        QVERIFY2(std::abs(operators->height() - 220) <= 30,
                 qPrintable(QStringLiteral("dock %1 px").arg(operators->height())));
        window.resizeDocks({operators}, {600}, Qt::Vertical);
        QTest::qWait(50);
        QVERIFY2(std::abs(operators->height() - 600) <= 30,
                 qPrintable(QStringLiteral("dock %1 px").arg(operators->height())));
        compare->raise();
        QTest::qWait(50);
        QTableView* table = window.comparison()->table();
        QVERIFY(table->model()->rowCount() > 10);
        QVERIFY2(table->viewport()->height() >= 6 * table->rowHeight(0),
                 qPrintable(QStringLiteral("comparison table %1 px for rows of %2 px")
                                .arg(table->viewport()->height())
                                .arg(table->rowHeight(0))));
    }
    void sessionSignalsTheViewsThatFollowIt() {
        // The session holds runs, the shown run, sweeps and measurements; each change says what changed.
        ui::Session session;
        QSignalSpy runs(&session, &ui::Session::runsChanged), shown(&session, &ui::Session::shownChanged),
            sweeps(&session, &ui::Session::sweepsChanged), measured(&session, &ui::Session::measurementsChanged);
        const AnalyzedRun a =
            analyzed(std::make_shared<const ProfileResult>(profile_run(tiny_spec(), ProfileOptions{})));
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
    void addedViewsTakeEachShownRunInOrder() {
        // Views added to the session take the shown run themselves, in the order added; viewsShown last.
        struct FakeView : QObject, ui::RunView {
            FakeView(QString name, QStringList& log) : name_(std::move(name)), log_(log) {}
            void showRun(const NamedRun& run, bool large) override {
                log_ << name_ + QLatin1Char(':') + (run.result ? run.label : QStringLiteral("none")) +
                            (large ? QStringLiteral(" large") : QString());
            }
            QString name_;
            QStringList& log_;
        };
        QStringList log;
        ui::Session session;
        FakeView first(QStringLiteral("first"), log);
        auto second = std::make_unique<FakeView>(QStringLiteral("second"), log);
        session.addView(&first);
        session.addView(second.get());
        connect(&session, &ui::Session::viewsShown, &session, [&log] { log << QStringLiteral("views shown"); });
        const AnalyzedRun a =
            analyzed(std::make_shared<const ProfileResult>(profile_run(tiny_spec(), ProfileOptions{})));
        session.addRun({QStringLiteral("small"), a.run, a.analysis});
        QCOMPARE(log, QStringList({QStringLiteral("first:small"), QStringLiteral("second:small"),
                                   QStringLiteral("views shown")}));
        // A large trace: the first view at once, the others in later event-loop turns.
        std::vector<TraceEvent> events;
        for (int i = 0; i < int(kBackgroundEvents) + 10; ++i) {
            TraceEvent e;
            e.name = "aten::mm";
            e.thread = 1;
            e.start_ns = int64_t(i) * 1000;
            e.end_ns = e.start_ns + 800;
            events.push_back(std::move(e));
        }
        auto big = std::make_shared<ProfileResult>();
        big->trace = Trace::build(std::move(events), {}, TraceMeta{});
        log.clear();
        session.addRun({QStringLiteral("big"), big, nullptr});
        QCOMPARE(log, QStringList({QStringLiteral("first:big large")}));
        QTRY_COMPARE(log.size(), 3);
        QCOMPARE(log, QStringList({QStringLiteral("first:big large"), QStringLiteral("second:big large"),
                                   QStringLiteral("views shown")}));
        // Another run shown before the later turns: the large one's pending steps are dropped.
        log.clear();
        session.addRun({QStringLiteral("big again"), big, nullptr});
        session.clearShown();
        QTest::qWait(50);
        QCOMPARE(log, QStringList({QStringLiteral("first:big again large"), QStringLiteral("first:none"),
                                   QStringLiteral("second:none"), QStringLiteral("views shown")}));
        // A view destroyed before the session is skipped.
        second.reset();
        log.clear();
        session.addRun({QStringLiteral("small"), a.run, a.analysis});
        QCOMPARE(log, QStringList({QStringLiteral("first:small"), QStringLiteral("views shown")}));
    }
    void graphReplayOpensWithItsCapture() {
        // A folder holding a replay and capture_traces/ (as vLLM writes it), and File > Open of both files
        // in any order: one trace whose graphs' kernels name the capture's ops (replayed ops: no CPU time),
        // on a lane of their own; the status line says what was attributed.
        MainWindow window;
        const QString dir = QStringLiteral(AWB_FIXTURE_DIR "/traces/graph_replay/vllm");
        QVERIFY(open_and_wait(window, dir));
        const QLabel* status = window.findChild<QLabel*>(QStringLiteral("status"));
        QVERIFY2(status->text().contains(
                     QStringLiteral("34 of 34 kernels attributed to capture-time ops (3 of 3 graph launches")),
                 qPrintable(status->text()));
        QVERIFY(status->toolTip().contains(QStringLiteral("capture_traces/graph_capture_rank_0.json.gz")));
        const auto expected = key_averages(import_replay(*replay_files_of(dir.toStdString())).imported.trace);
        QTRY_COMPARE_WITH_TIMEOUT(window.operatorPanel()->model()->rows(), expected, 10'000);
        const auto moe = std::find_if(expected.begin(), expected.end(),
                                      [](const OperatorRow& r) { return r.name == "vllm::moe_forward"; });
        QVERIFY(moe != expected.end());
        QCOMPARE(moe->cpu_total_ns, int64_t(0));
        QVERIFY(moe->self_device_ns > 0);
        QTRY_VERIFY_WITH_TIMEOUT(window.timeline()->data() != nullptr, 10'000);
        const auto& lanes = window.timeline()->data()->lanes;
        QVERIFY(std::any_of(lanes.begin(), lanes.end(),
                            [](const auto& l) { return l.title.find(kGraphReplayLaneName) != std::string::npos; }));
        // Both files selected, the capture first.
        window.showResult(std::make_shared<const ProfileResult>(profile_run(tiny_spec(), ProfileOptions{})));
        QSignalSpy opened(window.engine(), &EngineThread::resultsOpened);
        QVERIFY(window.openFiles({dir + QStringLiteral("/capture_traces/graph_capture_rank_0.json.gz"),
                                  dir + QStringLiteral("/graph_execution.json.gz")}));
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 60'000);
        QTRY_COMPARE_WITH_TIMEOUT(window.operatorPanel()->model()->rows(), expected, 10'000);
        QVERIFY2(status->text().contains(QStringLiteral("34 of 34 kernels attributed")), qPrintable(status->text()));
        // Two files, no capture among them, and not the ranks of one run (one says rank 0, one no rank): the
        // reason is said, the runs offered one by one (declined here); what is shown is kept.
        QTimer closer;
        close_message_boxes(closer);
        QSignalSpy mixed(window.engine(), &EngineThread::mixedRuns);
        QVERIFY(window.openFiles({dir + QStringLiteral("/graph_execution.json.gz"),
                                  QStringLiteral(AWB_FIXTURE_DIR "/traces/kineto_gpu_2x.json")}));
        QTRY_VERIFY_WITH_TIMEOUT(!mixed.isEmpty(), 60'000);
        QVERIFY2(mixed.at(0).at(0).toString().contains(QStringLiteral("are not the ranks of one run")),
                 qPrintable(mixed.at(0).at(0).toString()));
        QCOMPARE(mixed.at(0).at(1).value<QList<QStringList>>().size(), 2);
        QCOMPARE(window.operatorPanel()->model()->rows(), expected);
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
        QCOMPARE(window.operatorPanel()->model()->rows()[0].calls + window.operatorPanel()->model()->rows()[1].calls,
                 int64_t(250'000));
        QTRY_VERIFY_WITH_TIMEOUT(window.timeline()->view().end_ns > 100'000'000, 30'000);
        QTRY_COMPARE_WITH_TIMEOUT(window.findings()->checklist().size(), size_t(7), 30'000);
        // The HTML report of a big trace is written on the thread pool too.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("big.html"));
        QVERIFY(window.exportHtmlReport(path));
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(path).size() > 1000, 30'000);
    }
};

AWB_UI_TEST(WindowTests)
#include "test_ui_window.moc"
