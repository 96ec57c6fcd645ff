// The GPU time bars of an opened two-rank trace, and the attention tab (table, roofline) of an opened
// torch 2.11 trace and of a run of our own.
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
#include "ui_test_registry.h"
#include "ui_test_support.h"
using namespace awb;
using namespace awb::ui;
using namespace awb::ui::test;

class GpuAttentionViewTests : public QObject {
    Q_OBJECT
private slots:
    void gpuTimeBarsOfAnOpenedTwoRankTrace() {
        // File > Open of a distributed run: the GPU time tab has a bar per rank and step whose parts sum
        // to the step's span, and the table holds every row of the core's breakdown.
        MainWindow window;
        const QString dir = QStringLiteral(AWB_FIXTURE_DIR "/traces/multi_rank");
        QSignalSpy opened(window.engine(), &EngineThread::resultsOpened);
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
        QCOMPARE(window.gpuTime()->model()->index(0, GpuTimeModel::Idle).data().toString(),
                 QStringLiteral("37.7 us (22.1%)"));
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
        QSignalSpy opened(window.engine(), &EngineThread::resultsOpened);
        QVERIFY(window.openFile(path));
        QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 60'000);
        QTRY_COMPARE_WITH_TIMEOUT(window.attention()->model()->rowCount(), 4, 10'000);
        const auto expected = attention_instances(import_chrome_trace(path.toStdString()).trace);
        QCOMPARE(window.attention()->model()->rows(), expected);
        QTableView* table = window.attention()->table();
        QAbstractItemModelTester tester(table->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        table->sortByColumn(AttentionTableModel::column(AttentionColumn::Flops), Qt::DescendingOrder);
        QCOMPARE(table->model()->index(0, AttentionTableModel::column(AttentionColumn::Pass)).data().toString(),
                 QStringLiteral("bwd"));
        QCOMPARE(table->model()->index(0, AttentionTableModel::column(AttentionColumn::Flops)).data().toString(),
                 QStringLiteral("1.31 MFLOP"));
        QCOMPARE(table->model()->index(3, AttentionTableModel::column(AttentionColumn::Flops)).data().toString(),
                 QStringLiteral("524 kFLOP"));
        QCOMPARE(table->model()->index(0, AttentionTableModel::column(AttentionColumn::Backend)).data().toString(),
                 QStringLiteral("CPU flash"));
        QCOMPARE(table->model()->index(0, AttentionTableModel::column(AttentionColumn::Causal)).data().toString(),
                 QStringLiteral("no"));
        QTRY_VERIFY_WITH_TIMEOUT(window.timeline()->data() != nullptr, 10'000);
        table->selectRow(3);
        const QModelIndex picked =
            qobject_cast<QSortFilterProxyModel*>(table->model())->mapToSource(table->model()->index(3, 0));
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
        QCOMPARE(table->model()->index(0, AttentionTableModel::column(AttentionColumn::RoofShare)).data().toString(),
                 QStringLiteral("-"));
        QTRY_VERIFY_WITH_TIMEOUT(chart->plot()->width() > 100, 5'000);
        chart->plot()->replot();
        for (const RooflinePoint& p : chart->points()) {
            const QPoint at(int(chart->plot()->xAxis->coordToPixel(p.intensity)),
                            int(chart->plot()->yAxis->coordToPixel(p.tflops)));
            QTest::mouseClick(chart->plot(), Qt::LeftButton, {}, at);
            const auto* proxy = qobject_cast<QSortFilterProxyModel*>(table->model());
            const AttentionInstance& clicked =
                window.attention()->model()->rows()[size_t(proxy->mapToSource(table->currentIndex()).row())];
            // Forward calls share an intensity and nearly a rate: the click lands on one of that pass.
            QCOMPARE(clicked.backward, window.attention()->model()->rows()[size_t(p.index)].backward);
            QCOMPARE(window.timeline()->selectedEvent(), clicked.event);
        }
        QVERIFY(chart->readout().contains(QStringLiteral("FLOP/byte")));
        // Our own run: the roof measured in it (dashed, "measured" in the legend), each call's share of it.
        ProfileResult own = profile_run(tiny_spec(), ProfileOptions{});
        own.roof = run_roof(own.spec, own.environment.device_name);  // as the engine worker and attnwb profile do
        window.showResult(std::make_shared<const ProfileResult>(std::move(own)));
        QTRY_VERIFY_WITH_TIMEOUT(window.attention()->model()->rowCount() >= 1,
                                 10'000);  // tiny_spec's manual variant has one
        QCOMPARE(chart->points().size(), size_t(window.attention()->model()->rowCount()));
        QVERIFY(chart->plot()->graph(0)->name().contains(QStringLiteral("(measured)")));
        QVERIFY(table->model()
                    ->index(0, AttentionTableModel::column(AttentionColumn::RoofShare))
                    .data()
                    .toString()
                    .endsWith(QLatin1Char('%')));
        QVERIFY(!table->model()
                     ->index(0, AttentionTableModel::column(AttentionColumn::BytesModel))
                     .data()
                     .toString()
                     .isEmpty());
    }
};

AWB_UI_TEST(GpuAttentionViewTests)
#include "test_ui_gpu_attention.moc"
