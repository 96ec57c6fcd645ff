// The tables: the operator model under QAbstractItemModelTester with numeric sorting, long names kept
// readable, the kernel table and launch arrows of an imported GPU trace.
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

class TableTests : public QObject {
    Q_OBJECT
private slots:
    void operatorModelPassesTheTesterAndSortsNumbers() {
        OperatorTableModel model;
        OperatorFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        // As text, "10.00 us" < "100.00 us" < "9.00 us"; as numbers 9 < 10 < 100.
        model.setRows({row("aten::mm", 3, 10'000), row("aten::softmax", 1, 100'000), row("aten::add", 20, 9'000)});
        proxy.sort(OperatorTableModel::column(OpColumn::SelfCpu), Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, OperatorTableModel::column(OpColumn::Name)).data().toString(),
                 QStringLiteral("aten::add"));
        QCOMPARE(proxy.index(1, OperatorTableModel::column(OpColumn::Name)).data().toString(),
                 QStringLiteral("aten::mm"));
        QCOMPARE(proxy.index(2, OperatorTableModel::column(OpColumn::Name)).data().toString(),
                 QStringLiteral("aten::softmax"));
        proxy.sort(OperatorTableModel::column(OpColumn::Calls), Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, OperatorTableModel::column(OpColumn::Calls)).data().toString(), QStringLiteral("20"));
        QCOMPARE(proxy.index(0, OperatorTableModel::column(OpColumn::SelfCpu)).data().toString(),
                 QStringLiteral("9.00 us"));
        QCOMPARE(model.index(1, OperatorTableModel::column(OpColumn::SelfCpu))
                     .data(OperatorTableModel::ShareRole)
                     .toDouble(),
                 100'000.0 / 119'000.0);
        proxy.setFilterFixedString(QStringLiteral("SOFT"));
        QCOMPARE(proxy.rowCount(), 1);
        QVERIFY(model.headerData(OperatorTableModel::column(OpColumn::SelfCpu), Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("minus the time")));
        const QString csv = model.toDelimited({}, QLatin1Char(','));
        QCOMPARE(csv.count(QLatin1Char('\n')), 4);
        QVERIFY(csv.contains(QStringLiteral("aten::softmax,,1,100000,")));
        model.setRows({});
        QCOMPARE(proxy.rowCount(), 0);
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
        QVERIFY(view->columnWidth(OperatorTableModel::column(OpColumn::Name)) <= kMaxNameWidth);
        QVERIFY(view->columnWidth(OperatorTableModel::column(OpColumn::Name)) >= kMinNameWidth);
        QCOMPARE(view->textElideMode(), Qt::ElideMiddle);
        QCOMPARE(view->model()->index(0, OperatorTableModel::column(OpColumn::Name)).data(Qt::ToolTipRole).toString(),
                 QString::fromStdString(name));
        panel.setRows({}, false);
        QVERIFY(view->columnWidth(OperatorTableModel::column(OpColumn::Name)) >= kMinNameWidth);
        panel.setRows({row}, false);
        QVERIFY2(view->columnWidth(OperatorTableModel::column(OpColumn::Name)) <= kMaxNameWidth,
                 "the next rows are fitted afresh");
    }
    void kernelTableAndLaunchArrowsOfAnImportedGpuTrace() {
        const auto t = std::make_shared<const ImportedTrace>(
            import_chrome_trace(std::string(AWB_FIXTURE_DIR) + "/traces/kineto_gpu_2x.json"));
        KernelPanel panel;
        QAbstractItemModelTester t1(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(panel.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.setRows(kernel_table(t->trace));
        QCOMPARE(panel.model()->rowCount(), 7);  // 5 kernels, a copy, a set
        panel.proxy()->sort(KernelTableModel::column(KernelColumn::Total),
                            Qt::AscendingOrder);  // numbers: 1.28 us first, 85.12 us last
        QCOMPARE(panel.proxy()->index(0, KernelTableModel::column(KernelColumn::Name)).data().toString(),
                 QStringLiteral("Memset (Device)"));
        QVERIFY(panel.proxy()
                    ->index(6, KernelTableModel::column(KernelColumn::Name))
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("ncclDevKernel")));
        panel.proxy()->sort(KernelTableModel::column(KernelColumn::Occupancy), Qt::DescendingOrder);
        QCOMPARE(panel.proxy()->index(0, KernelTableModel::column(KernelColumn::Occupancy)).data().toString(),
                 QStringLiteral("94.0%"));
        QCOMPARE(panel.model()->headerData(KernelTableModel::column(KernelColumn::Grid), Qt::Horizontal).toString(),
                 QStringLiteral("Grid"));
        // Grouped by class: GEMM, softmax, communication, memcpy, memset; the device time is the same.
        QCOMPARE(panel.model()->index(0, KernelTableModel::column(KernelColumn::Class)).data().toString().isEmpty(),
                 false);
        panel.setGroupByClass(true);
        QCOMPARE(panel.model()->rowCount(), 5);
        panel.proxy()->sort(KernelTableModel::column(KernelColumn::Total), Qt::DescendingOrder);
        QCOMPARE(panel.proxy()->index(0, KernelTableModel::column(KernelColumn::Name)).data().toString(),
                 QStringLiteral("communication"));
        QCOMPARE(panel.proxy()->index(1, KernelTableModel::column(KernelColumn::Name)).data().toString(),
                 QStringLiteral("GEMM"));
        QCOMPARE(panel.proxy()->index(1, KernelTableModel::column(KernelColumn::Calls)).data().toString(),
                 QStringLiteral("2"));
        panel.setGroupByClass(false);
        QCOMPARE(panel.model()->rowCount(), 7);

        // The timeline: lanes named by the trace's metadata; clicking a launch draws its arrow.
        TimelineView timeline;
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
        for (const auto& lane : TimelineData::from_trace(t->trace).lanes)
            any_stream_named |= lane.title.find("cuda:0") == 0;
        QVERIFY(any_stream_named);
    }
};

AWB_UI_TEST(TableTests)
#include "test_ui_tables.moc"
