// The comparison's joins: operators with deltas and synced timelines, kernels and findings side by side.
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

class CompareJoinTests : public QObject {
    Q_OBJECT
private slots:
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
        QCOMPARE(model.index(0, ComparisonModel::column(DiffColumn::Name)).data().toString(),
                 QStringLiteral("aten::bmm"));
        QCOMPARE(model.index(0, ComparisonModel::column(DiffColumn::SelfCpuDelta)).data().toString(),
                 QStringLiteral("+3.00 us"));
        QCOMPARE(model.index(0, ComparisonModel::column(DiffColumn::SelfCpuRatio)).data().toString(),
                 QStringLiteral("4.00x"));
        QCOMPARE(model.index(0, ComparisonModel::column(DiffColumn::SelfCpuDelta))
                     .data(Qt::ForegroundRole)
                     .value<QBrush>()
                     .color(),
                 QColor(180, 30, 30));
        QCOMPARE(model.index(1, ComparisonModel::column(DiffColumn::Presence)).data().toString(),
                 QStringLiteral("vanished"));
        proxy.sort(ComparisonModel::column(DiffColumn::SelfCpuDelta),
                   Qt::AscendingOrder);  // numbers: -500 < +300 < +3000
        QCOMPARE(proxy.index(0, ComparisonModel::column(DiffColumn::Name)).data().toString(),
                 QStringLiteral("aten::softmax"));
        QCOMPARE(proxy.index(2, ComparisonModel::column(DiffColumn::Name)).data().toString(),
                 QStringLiteral("aten::bmm"));

        // Two real runs: manual and sdpa; the timelines share one time scale.
        RunSpec s = tiny_spec();
        auto manual = std::make_shared<const ProfileResult>(profile_run(s, ProfileOptions{}));
        s.variant = "sdpa";
        auto sdpa = std::make_shared<const ProfileResult>(profile_run(s, ProfileOptions{}));
        ComparisonView view;
        view.resize(1000, 700);
        view.setRuns(
            {{QStringLiteral("manual"), manual, analyzed(manual).analysis}, {QStringLiteral("sdpa"), sdpa, nullptr}});
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
    void comparisonJoinsKernelsAndFindings() {
        const std::string dir = std::string(AWB_FIXTURE_DIR) + "/traces/multi_rank/";
        auto load = [&](const char* file) {
            return std::make_shared<const ProfileResult>(profile_result_from_import(import_chrome_trace(dir + file)));
        };
        ComparisonView view;
        QAbstractItemModelTester t(view.kernelModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        view.setRuns({{QStringLiteral("rank 0"), load("rank0.pt.trace.json"), nullptr},
                      {QStringLiteral("rank 1"), load("rank1.pt.trace.json"), nullptr}});
        QVERIFY(view.kernelModel()->rowCount() > 0);
        bool all_reduce = false;
        for (int r = 0; r < view.kernelModel()->rowCount(); ++r)
            if (view.kernelModel()->index(r, 0).data().toString().startsWith(QStringLiteral("ncclDevKernel_AllReduce")))
                all_reduce = std::abs(view.kernelModel()->index(r, 6).data(Qt::UserRole + 1).toDouble() + 25250) < 1 &&
                             view.kernelModel()->index(r, 6).data().toString() == QStringLiteral("-25.3 us");
        QVERIFY(all_reduce);
        QVERIFY(!view.findingsDiff()->toPlainText().isEmpty());
    }
};

AWB_UI_TEST(CompareJoinTests)
#include "test_ui_compare_joins.moc"
