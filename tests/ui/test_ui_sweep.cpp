// The sweep chart: curves with their fitted exponents, exports; a merged sharded sweep opened, each point
// naming where it ran.
#include <QAbstractItemModelTester>
#include <QImage>
#include <QListWidget>
#include <QPainter>
#include <QPushButton>
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
#include "main_window.h"
#include "sweep_chart.h"
#include "ui_test_registry.h"
#include "ui_test_support.h"
using namespace awb;
using namespace awb::ui;
using namespace awb::ui::test;

class SweepTests : public QObject {
    Q_OBJECT
private slots:
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

        // Both sweeps chosen in the list (a click, then Ctrl+click) and removed with one press of Remove.
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QListWidget* list = chart.sweepList();
        QCOMPARE(list->count(), 2);
        auto centre = [list](int row) { return list->visualItemRect(list->item(row)).center(); };
        QTest::mouseClick(list->viewport(), Qt::LeftButton, Qt::NoModifier, centre(0));
        QTest::mouseClick(list->viewport(), Qt::LeftButton, Qt::ControlModifier, centre(1));
        QCOMPARE(list->selectedItems().size(), 2);
        QSignalSpy removed(&chart, &SweepChart::removeRequested);
        QPushButton* remove = nullptr;
        for (QPushButton* b : chart.findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Remove")) remove = b;
        QVERIFY(remove && remove->isEnabled());
        remove->click();
        QCOMPARE(removed.size(), 1);
        auto rows = removed.at(0).at(0).value<std::vector<int>>();
        std::sort(rows.begin(), rows.end());
        QCOMPARE(rows, (std::vector<int>{0, 1}));
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
                p.bench.timing = {3,
                                  1,
                                  1e6 * (i + 1),
                                  0.9e6 * (i + 1),
                                  1.1e6 * (i + 1),
                                  0.9e6 * (i + 1),
                                  1.1e6 * (i + 1),
                                  1e6 * (i + 1)};
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
                    if (double(p.spec.seq_k) == n &&
                        chart->legendText(g).startsWith(QString::fromStdString(p.spec.variant)))
                        point = &p;
                QVERIFY(point);
                const QString expected =
                    point->ran_on->host == "node-a"
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
                if (QString::fromStdString(p.spec.variant) == match.captured(1) &&
                    p.spec.seq_k == match.captured(2).toLongLong())
                    point = &p;
            QVERIFY2(point, qPrintable(text));
            QVERIFY2(
                text.contains(QStringLiteral("FLOP/byte")) &&
                    text.contains(QStringLiteral("\nran on %1: ").arg(QString::fromStdString(point->ran_on->host))),
                qPrintable(text));
            roofline_hosts.insert(QString::fromStdString(point->ran_on->host));
        }
        QCOMPARE(roofline_hosts.size(), 2);
        QVERIFY(chart->rooflinePointText(6).isEmpty());
        const QString status = window.findChild<QLabel*>(QStringLiteral("status"))->text();
        QVERIFY2(status.contains(QStringLiteral("6 of 6 planned points measured")) &&
                     status.contains(QStringLiteral("merged from 2 shards")) &&
                     status.contains(QStringLiteral("mixed environments")),
                 qPrintable(status));
    }
};

AWB_UI_TEST(SweepTests)
#include "test_ui_sweep.moc"
