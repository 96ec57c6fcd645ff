// The Findings tab and the status line of a trace whose events show trouble (tests/fixtures/traces/
// quality/troubled.json): the import's skipped event and every count of the trace-quality summary are
// shown before the advisor's findings, and the status line points there.
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

class FindingsTests : public QObject {
    Q_OBJECT
private slots:
    void aTroubledTraceSaysWhatIsWrongWithIt() {
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QVERIFY(open_and_wait(window, QStringLiteral(AWB_FIXTURE_DIR "/traces/quality/troubled.json")));
        QTRY_VERIFY_WITH_TIMEOUT(!window.findings()->quality().empty(), 20'000);
        const std::vector<std::string>& lines = window.findings()->quality();
        auto has = [&lines](const char* start) {
            return std::any_of(lines.begin(), lines.end(),
                               [start](const std::string& l) { return l.rfind(start, 0) == 0; });
        };
        QVERIFY(has("1 event(s) skipped when the trace was read"));
        QVERIFY(has("  event at byte offset 1074 skipped: \"dur\""));
        QVERIFY(has("1 event(s) with a negative duration"));
        QVERIFY(has("2 of 4 kernels, copies and sets (50.0%) start before the previous one on their stream ended"));
        QVERIFY(has("1 of 6 CPU events (16.7%) end after the event they started in"));
        QVERIFY(
            has("1 of 3 launched kernels, copies and sets (33.3%) start before the runtime call that launched them"));
        QVERIFY(window.findings()->toPlainText().contains(QStringLiteral("Trace quality")));
        const QLabel* status = window.findChild<QLabel*>(QStringLiteral("status"));
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QStringLiteral("trace quality: 5 problem(s), see Findings")),
                                 20'000);
        // A healthy trace says nothing of its quality.
        QVERIFY(open_and_wait(window, QStringLiteral(AWB_FIXTURE_DIR "/traces/kineto_gpu_2x.json")));
        QTRY_VERIFY_WITH_TIMEOUT(window.findings()->quality().empty() && !window.findings()->checklist().empty(),
                                 20'000);
        QVERIFY(!window.findings()->toPlainText().contains(QStringLiteral("Trace quality")));
    }
};

AWB_UI_TEST(FindingsTests)
#include "test_ui_findings.moc"
