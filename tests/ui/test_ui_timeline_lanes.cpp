// The timeline on a real trace (SGLang decode on MI300X, tests/fixtures/traces/memory_totals):
// memory tracks on the allocator's totals with a relative view, a y-axis and a hover readout; lanes that
// collapse, hide, move and pin the GPU on top; Python frames folded; a string pid named by its string;
// an operator selected in the table scrolled into view.
#include <QMenu>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableView>
#include <QTest>

#include "operator_panel.h"
#include "operator_table_model.h"
#include "timeline_view.h"
#include "ui_test_registry.h"
#include "ui_test_support.h"

using namespace awb;
using namespace awb::ui;
using namespace awb::ui::test;

namespace {

const QString kTrace = QStringLiteral(AWB_FIXTURE_DIR "/traces/memory_totals/sglang_decode_memory.json");
const QString kResnet = QStringLiteral(AWB_FIXTURE_DIR "/traces/memory_totals/mi300x_resnet_window.json");

QAction* action_named(QMenu* menu, const QString& prefix) {
    for (QAction* a : menu->actions())
        if (a->text().startsWith(prefix)) return a;
    return nullptr;
}

void trigger(TimelineView* t, int lane, const QString& prefix) {
    std::unique_ptr<QMenu> menu(t->laneMenu(lane));
    QAction* a = action_named(menu.get(), prefix);
    QVERIFY2(a, qPrintable(prefix));
    a->trigger();
}

int first_lane(const TimelineData& d, bool device) {
    for (int l = 0; l < int(d.lanes.size()); ++l)
        if (d.lanes[size_t(l)].device == device) return l;
    return -1;
}

}  // namespace

class TimelineLanesTests : public QObject {
    Q_OBJECT
private slots:
    void memoryTrackShowsTheAllocatorsTotals() {
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QVERIFY(open_and_wait(window, kTrace));
        TimelineView* t = window.timeline();
        QCOMPARE(int(t->memoryTracks().size()), 1);
        const MemorySeries& s = *t->memoryTracks()[0];
        QCOMPARE(s.device, DeviceKind::CUDA);  // "Device Type": 6 (HIP) is the GPU
        QVERIFY(s.has_totals());
        // At the peak the readout gives the absolute levels (141 GiB allocated) and the relative one.
        const QString at_peak = t->memoryReadout(0, s.peak_allocated_ts_ns);
        QVERIFY2(at_peak.contains(QStringLiteral("allocated 141.39 GiB")), qPrintable(at_peak));
        QVERIFY2(at_peak.contains(QStringLiteral("reserved 141.72 GiB")), qPrintable(at_peak));
        QVERIFY2(at_peak.contains(QStringLiteral("relative to the trace start")), qPrintable(at_peak));
        const QString before = t->memoryReadout(0, s.allocated_points.front().ts_ns - 1);
        QVERIFY2(before.contains(QStringLiteral("not known before the first")), qPrintable(before));
        // The relative view is a toggle, off by default where the trace has totals.
        QVERIFY(!t->memoryRelative());
        t->setMemoryRelative(true);
        QVERIFY(t->memoryRelative());
        const QImage relative = t->grab().toImage();
        t->setMemoryRelative(false);
        QVERIFY(t->grab().toImage() != relative);  // the curves and the axis differ
        // The memory track is where the layout says, below the last lane.
        QCOMPARE(t->memoryTrackAt(t->memoryTrackTop(0) + 30), 0);
        QCOMPARE(t->memoryTrackAt(t->rows().bottom - 1), -1);
        QVERIFY(t->grab().save(QStringLiteral("/tmp/awb-timeline-memory-1600x1000.png")));
        window.resize(1000, 700);
        QCoreApplication::processEvents();
        QVERIFY(window.grab().save(QStringLiteral("/tmp/awb-window-1000x700.png")));
    }

    void lanesCollapseHideMoveAndPin() {
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QVERIFY(open_and_wait(window, kResnet));
        TimelineView* t = window.timeline();
        const TimelineData* d = t->data();
        QVERIFY(d);
        // The string pid "Spans" and tid "PyTorch Profiler" give the lane its title, no hashed number.
        bool spans = false;
        for (const auto& lane : d->lanes) spans = spans || lane.title == "Spans: PyTorch Profiler";
        QVERIFY(spans);
        // Python frames beyond the fold depth are folded on the main thread: fewer rows than levels.
        const int cpu = first_lane(*d, false), gpu = first_lane(*d, true);
        QVERIFY(cpu >= 0 && gpu >= 0);
        int main_thread = cpu;
        for (int l = 0; l < int(d->lanes.size()); ++l)
            if (d->lanes[size_t(l)].levels.size() > d->lanes[size_t(main_thread)].levels.size()) main_thread = l;
        QVERIFY(t->rows().folded_levels[size_t(main_thread)] > 0);
        QCOMPARE(t->rows().shownRows(main_thread) + t->rows().folded_levels[size_t(main_thread)],
                 int(d->lanes[size_t(main_thread)].levels.size()));
        trigger(t, main_thread, QStringLiteral("Show all Python frames"));
        QCOMPARE(t->rows().folded_levels[size_t(main_thread)], 0);
        // A click on the header collapses the lane to its header, another expands it.
        const int header = t->rows().header_y[size_t(main_thread)];
        const int bottom = t->rows().bottom;
        QTest::mouseClick(t, Qt::LeftButton, {}, QPoint(300, header + 5));
        QVERIFY(t->laneViews()[size_t(main_thread)].collapsed);
        QCOMPARE(t->rows().shownRows(main_thread), 0);
        QVERIFY(t->rows().bottom < bottom);
        QTest::mouseClick(t, Qt::LeftButton, {}, QPoint(300, header + 5));
        QVERIFY(!t->laneViews()[size_t(main_thread)].collapsed);
        // Hide, show all hidden.
        trigger(t, cpu, QStringLiteral("Hide lane"));
        QCOMPARE(t->rows().header_y[size_t(cpu)], -1);
        QVERIFY(std::find(t->rows().order.begin(), t->rows().order.end(), cpu) == t->rows().order.end());
        trigger(t, gpu, QStringLiteral("Show all hidden lanes (1)"));
        QVERIFY(t->rows().header_y[size_t(cpu)] >= 0);
        // Move down swaps a lane with the next one on screen.
        const int second = t->rows().order.at(1);
        trigger(t, t->rows().order.at(0), QStringLiteral("Move down"));
        QCOMPARE(t->rows().order.at(0), second);
        // GPU lanes pinned on top: every device lane above every CPU lane.
        trigger(t, cpu, QStringLiteral("Pin GPU lanes on top"));
        QVERIFY(t->gpuOnTop());
        QVERIFY(d->lanes[size_t(t->rows().order.front())].device);
        bool seen_cpu = false;
        for (int l : t->rows().order) {
            if (!d->lanes[size_t(l)].device) seen_cpu = true;
            QVERIFY(!(seen_cpu && d->lanes[size_t(l)].device));
        }
        QVERIFY(t->rows().header_y[size_t(gpu)] < t->rows().header_y[size_t(cpu)]);
        QVERIFY(t->grab().save(QStringLiteral("/tmp/awb-timeline-gpu-on-top.png")));
    }

    void operatorSelectionScrollsItIntoView() {
        // In a short window with the Python frames shown, the main thread's deep rows are below the
        // fold: selecting an operator that only runs there scrolls the timeline to its row.
        MainWindow window;
        window.resize(1000, 560);
        window.show();
        QVERIFY(open_and_wait(window, kResnet));
        TimelineView* t = window.timeline();
        QScrollArea* area = nullptr;
        for (QWidget* w = t->parentWidget(); w && !area; w = w->parentWidget()) area = qobject_cast<QScrollArea*>(w);
        QVERIFY(area);
        // Every Python frame shown, as a user digging into the stacks would: the ops sit deep below.
        for (int l = 0; l < int(t->data()->lanes.size()); ++l) t->setFramesExpanded(l, true);
        OperatorPanel* ops = window.operatorPanel();
        // The operator whose first span sits lowest.
        int best_row = -1, best_y = -1;
        for (int r = 0; r < ops->proxy()->rowCount(); ++r) {
            const QString name = ops->proxy()->index(r, OperatorTableModel::column(OpColumn::Name)).data().toString();
            const int shown = t->showName(name);
            if (shown >= 0 && t->eventY(shown) > best_y) {
                best_y = t->eventY(shown);
                best_row = r;
            }
        }
        QVERIFY(best_row >= 0);
        QVERIFY2(best_y > area->viewport()->height(),
                 qPrintable(QStringLiteral(
                                "the fixture's lowest operator must start below the fold: y %1, viewport %2, rows %3")
                                .arg(best_y)
                                .arg(area->viewport()->height())
                                .arg(ops->proxy()->rowCount())));
        area->verticalScrollBar()->setValue(0);
        ops->view()->selectRow(best_row);
        QCoreApplication::processEvents();
        const int y = t->eventY(t->selectedEvent());
        const int top = area->verticalScrollBar()->value();
        QVERIFY2(y >= top && y < top + area->viewport()->height(),
                 qPrintable(
                     QStringLiteral("row y %1, visible %2..%3").arg(y).arg(top).arg(top + area->viewport()->height())));
    }
};

AWB_UI_TEST(TimelineLanesTests)
#include "test_ui_timeline_lanes.moc"
