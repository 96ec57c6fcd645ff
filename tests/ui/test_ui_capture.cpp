// A graph-capture trace opened in the main window (vLLM's, cut from the public TraceLens trace): the
// status line and the findings say its launches did not run, and its annotations give no device time.
#include <QLabel>
#include <QTest>

#include <algorithm>

#include "findings_view.h"
#include "main_window.h"
#include "session.h"
#include "ui_test_registry.h"
#include "ui_test_support.h"

using namespace awb;
using namespace awb::ui;
using namespace awb::ui::test;

class CaptureTraceTests : public QObject {
    Q_OBJECT
private slots:
    void aCaptureTraceSaysItsKernelsDidNotRun() {
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        const QString path =
            QStringLiteral(AWB_FIXTURE_DIR "/traces/graph_replay/vllm/capture_traces/graph_capture_rank_0.json.gz");
        QVERIFY(open_and_wait(window, path));
        const QLabel* status = window.findChild<QLabel*>(QStringLiteral("status"));
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QStringLiteral("graph-capture trace: 3 graphs captured")),
                                 20'000);
        QVERIFY2(status->text().contains(QStringLiteral("34 launches did not run here")), qPrintable(status->text()));
        QVERIFY(status->text().startsWith(QStringLiteral("Opened trace")));  // how it was opened is kept
        QTRY_VERIFY_WITH_TIMEOUT(!window.findings()->findings().empty(), 20'000);
        QCOMPARE(window.findings()->findings().front().rule, std::string("graph-capture"));
        const auto& rules = window.findings()->findings();
        QVERIFY(std::none_of(rules.begin(), rules.end(), [](const Finding& f) { return f.rule == "dispatch-bound"; }));
        // Shown again (as after a comparison or a workspace switch): the note is not repeated.
        window.showResult(window.session()->shown().result, QStringLiteral("again"));
        QTRY_VERIFY_WITH_TIMEOUT(status->text().count(QStringLiteral("graph-capture trace")) == 1, 20'000);
    }
};

AWB_UI_TEST(CaptureTraceTests)
#include "test_ui_capture.moc"
