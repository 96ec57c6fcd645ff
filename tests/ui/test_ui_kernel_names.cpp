// Kernel names in the GUI: the real main window opens kernels cut from HTA's A100 trace
// (tests/fixtures/traces/kernel_names/README.md) and its kernel table shows Itanium names demangled,
// the CUTLASS GEMMs that middle elision made alike told apart by their tiles, the raw name in the
// tooltip, the filter and the timeline's highlight; the classes name convolutions and batch norm.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QHeaderView>
#include <QSet>
#include <QShortcut>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include "kernel_panel.h"
#include "main_window.h"
#include "timeline_data.h"
#include "operator_table_model.h"
#include "ui_test_registry.h"
#include "ui_test_support.h"

using namespace awb;
using namespace awb::ui;
using namespace awb::ui::test;

namespace {

const QString kFixture = QStringLiteral(AWB_FIXTURE_DIR "/traces/kernel_names/a100_nccl_kernels.json.gz");

// The proxy row whose raw name starts with prefix, -1 for none.
int row_of(const KernelPanel* panel, const QString& prefix) {
    for (int r = 0; r < panel->proxy()->rowCount(); ++r)
        if (panel->proxy()
                ->index(r, KernelTableModel::column(KernelColumn::Name))
                .data(KernelTableModel::RawNameRole)
                .toString()
                .startsWith(prefix))
            return r;
    return -1;
}

}  // namespace

class KernelNameTests : public QObject {
    Q_OBJECT
private slots:
    void timelineDrawsDemangledNames();
    void demangledElidedAndRawInTheRealWindow() {
        QTimer closer;
        close_message_boxes(closer);
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QVERIFY(open_and_wait(window, kFixture));
        KernelPanel* panel = window.kernelPanel();
        // The Kernels tab brought forward, as a user clicks it: its columns are fitted to what it shows.
        for (QWidget* p = panel; p; p = p->parentWidget())
            if (auto* dock = qobject_cast<QDockWidget*>(p)) dock->raise();
        QTRY_VERIFY(panel->isVisible());
        auto* view = panel->findChild<QTableView*>();
        QVERIFY(view);
        view->setColumnWidth(KernelTableModel::column(KernelColumn::Name), 480);  // the column's cap at this size
        QTRY_VERIFY(panel->model()->nameWidth() >= 50);
        QAbstractItemModelTester tester(panel->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(panel->model()->rowCount(), 70);
        // The mangled CUTLASS convolution: demangled in the table, the raw name in the tooltip.
        const int conv =
            row_of(panel, QStringLiteral("_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolution"));
        QVERIFY(conv >= 0);
        const QModelIndex name = panel->proxy()->index(conv, KernelTableModel::column(KernelColumn::Name));
        const QString shown = name.data().toString();
        QVERIFY2(!shown.startsWith(QStringLiteral("_Z")), qPrintable(shown));
#if defined(AWB_LONG_NAMES_DEMANGLE)
        if (qEnvironmentVariableIsSet("AWB_SCREENSHOT_DIR"))
            window.grab().save(qEnvironmentVariable("AWB_SCREENSHOT_DIR") + QStringLiteral("/kernel-window.png"));
        QVERIFY2(shown.contains(QStringLiteral("Kernel")) && shown.size() <= panel->model()->nameWidth(),
                 qPrintable(shown + QStringLiteral(" (%1 characters wide)").arg(panel->model()->nameWidth())));
        QVERIFY(name.data(Qt::ToolTipRole).toString().contains(QStringLiteral("ImplicitGemmConvolution&lt;")));
#endif
        QVERIFY(name.data(Qt::ToolTipRole).toString().contains(QStringLiteral("raw (mangled) name")));
        QCOMPARE(panel->proxy()->index(conv, KernelTableModel::column(KernelColumn::Class)).data().toString(),
                 QStringLiteral("convolution"));
        // Every name shown fits the column, and no two different kernels look alike.
        QSet<QString> names;
        QSet<QString> raw;
        for (int r = 0; r < panel->proxy()->rowCount(); ++r) {
            names.insert(panel->proxy()->index(r, KernelTableModel::column(KernelColumn::Name)).data().toString());
            raw.insert(panel->proxy()
                           ->index(r, KernelTableModel::column(KernelColumn::Name))
                           .data(KernelTableModel::RawNameRole)
                           .toString());
        }
        // (At a column this narrow, two of the 70 may still share a shortened name: elide_kernel_names
        // tells most apart, not all, below about 40 characters.)
        QVERIFY2(names.size() >= raw.size() - 1,
                 qPrintable(QStringLiteral("%1 names shown for %2 kernels at %3 characters")
                                .arg(names.size())
                                .arg(raw.size())
                                .arg(panel->model()->nameWidth())));
        // The three CUTLASS GEMMs of the issue keep their tiles and layouts.
        for (const char* tile : {"256x64_16x4_nn", "256x64_16x4_nt", "64x64_16x6_tn"}) {
            const int r = row_of(
                panel, QStringLiteral("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_") + QLatin1String(tile));
            QVERIFY(r >= 0);
            const QString s = panel->proxy()->index(r, KernelTableModel::column(KernelColumn::Name)).data().toString();
            QVERIFY2(s.contains(QLatin1String(tile)) && s.size() < 70, qPrintable(s));
            // cuDNN runs these 1x1 convolutions as CUTLASS GEMMs: launched by aten::cudnn_convolution, they are its
            // work.
            QCOMPARE(panel->proxy()->index(r, KernelTableModel::column(KernelColumn::Class)).data().toString(),
                     QStringLiteral("convolution"));
        }
        // Selecting a row highlights the raw name in the timeline; the filter searches the whole names.
        QSignalSpy selected(panel, &KernelPanel::kernelSelected);
        view->setCurrentIndex(name);
        QCOMPARE(selected.size(), 1);
        QVERIFY(selected.front().front().toString().startsWith(QStringLiteral("_ZN19cutlass_cudnn_train")));
        auto* copy = panel->findChild<QShortcut*>();
        QVERIFY(copy && copy->key() == QKeySequence(QKeySequence::Copy));
        emit copy->activated();  // Ctrl+C on the table (the Kernels tab is not the current one here)
        QVERIFY(QApplication::clipboard()->text().startsWith(QStringLiteral("_ZN19cutlass_cudnn_train")));
        panel->proxy()->setFilterFixedString(QStringLiteral("Conv2dWgradOutputGradientTileAccessIteratorOptimized"));
#if defined(AWB_LONG_NAMES_DEMANGLE)
        QCOMPARE(panel->proxy()->rowCount(), 2);  // both wgrad convolutions, by a part of their demangled names
#endif
        panel->proxy()->setFilterFixedString(QStringLiteral("_ZN19cutlass_cudnn_train"));
        QCOMPARE(panel->proxy()->rowCount(), 2);  // and of their raw names
        panel->proxy()->setFilterFixedString({});
        // A narrower column: shorter names, still all different.
        view->setColumnWidth(KernelTableModel::column(KernelColumn::Name), 260);
        QTRY_VERIFY(panel->model()->nameWidth() < 40);  // once the column stops moving
        names.clear();
        for (int r = 0; r < panel->proxy()->rowCount(); ++r)
            names.insert(panel->proxy()->index(r, KernelTableModel::column(KernelColumn::Name)).data().toString());
        QVERIFY2(names.size() >= raw.size() - 2, qPrintable(QString::number(names.size())));
        // Batch norm is normalization, cuDNN's convolution kernels convolution.
        const int bn = row_of(panel, QStringLiteral("void cudnn::bn_fw_tr_1C11_kernel_NCHW"));
        QVERIFY(bn >= 0);
        QCOMPARE(panel->proxy()->index(bn, KernelTableModel::column(KernelColumn::Class)).data().toString(),
                 QStringLiteral("normalization"));
        const int fprop = row_of(panel, QStringLiteral("sm80_xmma_fprop_implicit_gemm"));
        QVERIFY(fprop >= 0);
        QCOMPARE(panel->proxy()->index(fprop, KernelTableModel::column(KernelColumn::Class)).data().toString(),
                 QStringLiteral("convolution"));
        view->setColumnWidth(KernelTableModel::column(KernelColumn::Name), 480);
        QTRY_VERIFY(panel->model()->nameWidth() >= 50);
        view->scrollToTop();
        if (qEnvironmentVariableIsSet("AWB_SCREENSHOT_DIR")) {
            window.grab().save(qEnvironmentVariable("AWB_SCREENSHOT_DIR") +
                               QStringLiteral("/kernel-names-1600x1000.png"));
            window.resize(1000, 700);
            QTest::qWait(200);
            window.grab().save(qEnvironmentVariable("AWB_SCREENSHOT_DIR") +
                               QStringLiteral("/kernel-names-1000x700.png"));
        }
    }
};

// The timeline draws a mangled kernel (ROCm's, some CUDA ones) by its demangled name and gives the raw
// one in the tooltip; selection still matches the raw name.
void KernelNameTests::timelineDrawsDemangledNames() {
    TraceEvent k;
    k.name = "_Z10add_kernelPfS_i";
    k.kind = EventKind::Kernel;
    k.device = DeviceKind::CUDA;
    k.device_index = 0;
    k.thread = 7;
    k.start_ns = 1000;
    k.end_ns = 5000;
    TraceEvent op;
    op.name = "aten::add";
    op.start_ns = 0;
    op.end_ns = 900;
    op.thread = 1;
    const Trace trace = Trace::build({op, k}, {}, {});
    const TimelineData d = TimelineData::from_trace(trace);
    int32_t id = -1;
    for (size_t i = 0; i < d.names.size(); ++i)
        if (d.names[i] == "_Z10add_kernelPfS_i") id = int32_t(i);
    QVERIFY(id >= 0);
    QCOMPARE(d.label(id), std::string("add_kernel(float*, float*, int)"));
    for (size_t i = 0; i < d.names.size(); ++i)
        if (d.names[i] == "aten::add") QCOMPARE(d.label(int32_t(i)), std::string("aten::add"));
}

AWB_UI_TEST(KernelNameTests)
#include "test_ui_kernel_names.moc"
