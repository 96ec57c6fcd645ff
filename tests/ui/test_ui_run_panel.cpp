// The Run panel: validation shown as the user types, the SDPA backends offered by the build.
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
#include "run_panel.h"
#include "ui_test_registry.h"
#include "ui_test_support.h"
using namespace awb;
using namespace awb::ui;
using namespace awb::ui::test;

class RunPanelTests : public QObject {
    Q_OBJECT
private slots:
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
};

AWB_UI_TEST(RunPanelTests)
#include "test_ui_run_panel.moc"
