// The comparison and the charts: two imported traces compared on their ProfilerStep spans with
// a verdict (faster or slower, by how much, beyond the noise or not) on the real main window; B the
// newest run, A the one before; sides labelled; a layout with rows and lanes at 1600x1000 and 1000x700;
// the roofline's legend outside the points, labels on few points; chart exports at a chosen size.
#include <QComboBox>
#include <QDialog>
#include <QDockWidget>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <qcustomplot.h>

#include "attention_view.h"
#include "comparison_view.h"
#include "plot_export.h"
#include "roofline_chart.h"
#include "timeline_view.h"
#include "ui_test_registry.h"
#include "ui_test_support.h"

namespace awb::ui::test {

namespace {

QString fixture(const char* name) { return QStringLiteral(AWB_FIXTURE_DIR "/traces/compare/") + QLatin1String(name); }

// Where a look at the layout is saved when AWB_UI_SCREENSHOT_DIR is set (not by default).
void keep_grab(QWidget* w, const QString& name) {
    const QString dir = qEnvironmentVariable("AWB_UI_SCREENSHOT_DIR");
    if (!dir.isEmpty()) w->grab().save(dir + QLatin1Char('/') + name);
}

RooflinePoint point(double intensity, double tflops, int index, const std::string& tag) {
    return {"flash fwd c10::BFloat16", tag + ", 1.0 ms on the device", "c10::BFloat16", intensity, tflops, index, tag};
}

}  // namespace

class CompareTests : public QObject {
    Q_OBJECT
private slots:
    void importedTracesAreComparedOnTheirStepsWithAVerdict() {
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(open_and_wait(window, fixture("a100_control_steps.json")));
        QVERIFY(open_and_wait(window, fixture("v100_test_steps.json")));
        ComparisonView* view = window.comparison();
        QTRY_COMPARE_WITH_TIMEOUT(view->pickedB(), 1, 10'000);  // the newest
        QCOMPARE(view->pickedA(), 0);
        const QString verdict = view->verdict()->text();
        QVERIFY2(verdict.contains(QStringLiteral("B is 49.3% slower per step (median B 114.69 ms vs A 76.83 ms")),
                 qPrintable(verdict));
        QVERIFY2(verdict.contains(QStringLiteral("over 6 and 6 steps, beyond noise")), qPrintable(verdict));
        QVERIFY2(verdict.contains(QStringLiteral("device time per step")), qPrintable(verdict));
        QVERIFY2(verdict.contains(QStringLiteral("records no memory events")), qPrintable(verdict));
        QVERIFY(!verdict.contains(QStringLiteral("-1 ns")));
        QVERIFY(view->sideLabel(false)->text().contains(QStringLiteral("a100_control_steps")));
        QVERIFY(view->sideLabel(true)->text().contains(QStringLiteral("v100_test_steps")));
        QVERIFY(view->sideLabel(false)->text().startsWith(QStringLiteral("<b>A</b>")));
        // A third run: B follows the newest, A the one before it.
        QVERIFY(open_and_wait(window, fixture("a100_control_steps.json")));
        QTRY_COMPARE_WITH_TIMEOUT(view->pickedB(), 2, 10'000);
        QCOMPARE(view->pickedA(), 1);
        QVERIFY(view->verdict()->text().contains(QStringLiteral("B is 33.0% faster per step")));
        // The user's choice is kept when another run arrives.
        auto* pick_a = view->findChildren<QComboBox*>().at(0);
        pick_a->setCurrentIndex(0);
        emit pick_a->activated(0);
        QVERIFY(open_and_wait(window, fixture("v100_test_steps.json")));
        QTRY_COMPARE_WITH_TIMEOUT(view->findChildren<QComboBox*>().at(1)->count(), 4, 10'000);
        QCOMPARE(view->pickedA(), 0);
        QCOMPARE(view->pickedB(), 2);
    }
    void compareLayoutShowsRowsAndLanesAtBothSizes() {
        for (const QSize size : {QSize(1600, 1000), QSize(1000, 700)}) {
            MainWindow window;
            window.resize(size);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QVERIFY(open_and_wait(window, fixture("a100_control_steps.json")));
            QVERIFY(open_and_wait(window, fixture("v100_test_steps.json")));
            auto* dock = window.findChild<QDockWidget*>(QStringLiteral("compare"));
            QVERIFY(dock);
            dock->raise();
            QTest::qWait(200);
            ComparisonView* view = window.comparison();
            QTableView* table = view->table();
            QVERIFY(table->model()->rowCount() > 10);
            const QString where = QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
            QVERIFY2(table->viewport()->height() >= 8 * table->rowHeight(0),
                     qPrintable(where + QStringLiteral(": table %1 px for rows of %2 px")
                                            .arg(table->viewport()->height())
                                            .arg(table->rowHeight(0))));
            const int lane = TimelineView::kLaneHeaderPx + TimelineView::kRowPx;
            for (TimelineView* t : {view->timelineA(), view->timelineB()}) {
                const int shown = t->parentWidget()->height();  // the scroll area's viewport
                QVERIFY2(
                    shown >= 3 * lane,
                    qPrintable(where + QStringLiteral(": timeline %1 px for lanes of %2 px").arg(shown).arg(lane)));
            }
            QVERIFY(view->sideLabel(false)->isVisible() && view->sideLabel(true)->isVisible());
            keep_grab(&window, QStringLiteral("compare-window-%1.png").arg(where));
            keep_grab(view, QStringLiteral("compare-%1.png").arg(where));
        }
    }
    void rooflineLegendCoversNoPointAndFewPointsAreLabelled() {
        RooflineChart chart;
        chart.resize(420, 320);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        Roof roof;
        roof.device = "H100 SXM";
        roof.dtype = "c10::BFloat16";
        roof.peak_tflops = 989;
        roof.memory_tb_s = 3.35;
        // One point top left (where the legend used to sit), repeated three times as a call is every step.
        std::vector<RooflinePoint> points = {point(2, 6.5, 0, "1x12x128x128x64"), point(2, 6.5, 1, "1x12x128x128x64"),
                                             point(2.01, 6.5, 2, "1x12x128x128x64")};
        chart.setData({roof}, points);
        QCustomPlot* plot = chart.plot();
        QVERIFY(plot->legend->visible());
        const QRect axes = plot->axisRect()->rect();
        QVERIFY2(!plot->legend->outerRect().intersects(axes), "the legend sits outside the axis rect");
        for (const RooflinePoint& p : points)
            QVERIFY(axes.contains(
                QPoint(int(plot->xAxis->coordToPixel(p.intensity)), int(plot->yAxis->coordToPixel(p.tflops)))));
        QCOMPARE(label_roofline_points(plot, points), 1);  // one label for the three on one spot
        // Many distinct points: no labels; the tooltip and read-out name them.
        std::vector<RooflinePoint> many;
        for (int i = 0; i < 30; ++i)
            many.push_back(point(0.5 * std::pow(1.4, i), 1 + i, i, "N = " + std::to_string(128 * (i + 1))));
        chart.setData({roof}, many);
        QCOMPARE(label_roofline_points(plot, many), 0);
        QCOMPARE(label_roofline_points(plot, many, 64), 30);
    }
    void rooflineOfARealTraceHasItsLegendBelowAndLabels() {
        for (const QSize size : {QSize(1600, 1000), QSize(1000, 700)}) {
            MainWindow window;
            window.resize(size);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QVERIFY(open_and_wait(window, QStringLiteral(AWB_FIXTURE_DIR "/traces/torch2/gqa_padding_forward.json")));
            window.findChild<QDockWidget*>(QStringLiteral("attention"))->raise();
            QTest::qWait(200);
            RooflineChart* chart = window.attention()->roofline();
            QVERIFY(!chart->points().empty());
            QCustomPlot* plot = chart->plot();
            plot->replot();
            QVERIFY(!plot->legend->outerRect().intersects(plot->axisRect()->rect()));
            QVERIFY(label_roofline_points(plot, chart->points()) > 0);
            keep_grab(window.attention(), QStringLiteral("roofline-%1x%2.png").arg(size.width()).arg(size.height()));
            // Exported at the default size, not the dock's: 3200 x 1800 px whatever the widget.
            QTemporaryDir dir;
            const QString png = dir.filePath(QStringLiteral("roofline.png"));
            QVERIFY(chart->exportTo(png));
            QCOMPARE(QImage(png).size(), QSize(3200, 1800));
            if (const QString keep = qEnvironmentVariable("AWB_UI_SCREENSHOT_DIR"); !keep.isEmpty())
                QFile::copy(png, keep + QStringLiteral("/roofline-export-%1.png").arg(size.width()));
        }
    }
    void chartsExportAtAChosenSize() {
        RooflineChart chart;
        chart.resize(1382, 250);  // the dock size that clipped labels
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setData({}, {point(10, 5, 0, "2x8x1024x1024x64")});
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("r.png")), small = dir.filePath(QStringLiteral("s.png"));
        QVERIFY(chart.exportTo(png));
        QCOMPARE(QImage(png).size(), QSize(3200, 1800));  // default 1600 x 900 at 2x
        QVERIFY(chart.exportTo(small, nullptr, {800, 600, 1.5}));
        QCOMPARE(QImage(small).size(), QSize(1200, 900));
        QVERIFY(chart.exportTo(dir.filePath(QStringLiteral("r.pdf"))));
        QVERIFY(QFileInfo(dir.filePath(QStringLiteral("r.pdf"))).size() > 1000);
        QCOMPARE(chart.plot()->width(),
                 chart.plot()->viewport().width());  // the widget is laid out at its own size again
        // The size dialog: its values come back and are remembered.
        QTimer::singleShot(100, [] {
            for (QWidget* w : QApplication::topLevelWidgets())
                if (w->objectName() == QStringLiteral("plot-export-size")) {
                    const auto boxes = w->findChildren<QSpinBox*>();
                    boxes.at(0)->setValue(1000);
                    boxes.at(1)->setValue(500);
                    static_cast<QDialog*>(w)->accept();
                }
        });
        PlotExportSize size;
        QVERIFY(ask_export_size(&chart, &size));
        QCOMPARE(size.width, 1000);
        QCOMPARE(size.height, 500);
        QTimer::singleShot(100, [] {
            for (QWidget* w : QApplication::topLevelWidgets())
                if (w->objectName() == QStringLiteral("plot-export-size")) static_cast<QDialog*>(w)->reject();
        });
        PlotExportSize again;
        QVERIFY(!ask_export_size(&chart, &again));
    }
};

AWB_UI_TEST(CompareTests)

}  // namespace awb::ui::test

#include "test_ui_compare.moc"
