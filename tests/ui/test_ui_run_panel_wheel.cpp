// The mouse wheel over the Run panel scrolls the panel; the combo boxes and spin boxes it
// passes over change only when they have the focus (the Mask had become "window" unnoticed). On the
// real main window at 1000x700, with wheel events as Qt delivers them (to the widget under the pointer).
#include <QApplication>
#include <QComboBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTest>
#include <QWheelEvent>

#include "main_window.h"
#include "run_panel.h"
#include "ui_test_registry.h"
#include "ui_test_support.h"

using namespace awb;
using namespace awb::ui;

namespace {

// One notch of the wheel down over widget w's centre; true when some widget accepted it.
bool wheel_down(QWidget* w) {
    const QPointF at = QPointF(w->rect().center());
    QWheelEvent e(at, w->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                  false);
    QApplication::sendEvent(w, &e);
    return e.isAccepted();
}

QScrollArea* scroll_area_of(QWidget* w) {
    for (QWidget* p = w; p; p = p->parentWidget())
        if (auto* s = qobject_cast<QScrollArea*>(p)) return s;
    return nullptr;
}

}  // namespace

class RunPanelWheelTests : public QObject {
    Q_OBJECT
private slots:
    void wheelScrollsThePanelNotTheFields() {
        MainWindow window;
        window.resize(1000, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        RunPanel* panel = window.runPanel();
        QScrollArea* scroll = scroll_area_of(panel);
        QVERIFY(scroll);
        if (scroll->verticalScrollBar()->maximum() == 0) {  // the form fits: make the dock short enough to scroll
            window.resize(1000, 420);
            QApplication::processEvents();
        }
        QVERIFY2(scroll->verticalScrollBar()->maximum() > 0, "the Run panel does not scroll at this size");
        QComboBox* mask = nullptr;
        for (QComboBox* c : panel->findChildren<QComboBox*>())
            if (c->findText(QStringLiteral("window")) >= 0) mask = c;
        QVERIFY(mask);
        QSpinBox* spin = panel->findChildren<QSpinBox*>().front();
        const QString mask_before = mask->currentText();
        const int spin_before = spin->value();
        QVERIFY(!mask->hasFocus() && !spin->hasFocus());
        QCOMPARE(mask->focusPolicy(), Qt::StrongFocus);  // the wheel gives no focus
        scroll->verticalScrollBar()->setValue(0);
        QVERIFY(wheel_down(mask));
        QCOMPARE(mask->currentText(), mask_before);
        const int after_mask = scroll->verticalScrollBar()->value();
        QVERIFY2(after_mask > 0, "the wheel over the Mask did not scroll the panel");
        QVERIFY(wheel_down(spin));
        QCOMPARE(spin->value(), spin_before);
        QVERIFY(scroll->verticalScrollBar()->value() > after_mask ||
                scroll->verticalScrollBar()->value() == scroll->verticalScrollBar()->maximum());
        // With the focus (a click or Tab), the wheel is the field's again.
        QApplication::setActiveWindow(&window);
        mask->setFocus(Qt::TabFocusReason);
        if (!QTest::qWaitFor([&] { return mask->hasFocus(); }, 2000)) QSKIP("this platform gives no focus offscreen");
        const int scrolled = scroll->verticalScrollBar()->value();
        wheel_down(mask);
        QVERIFY(mask->currentText() != mask_before);
        QCOMPARE(scroll->verticalScrollBar()->value(), scrolled);
        mask->setCurrentText(mask_before);
    }
};

AWB_UI_TEST(RunPanelWheelTests)
#include "test_ui_run_panel_wheel.moc"
