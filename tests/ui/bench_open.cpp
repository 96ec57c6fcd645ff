// GUI open benchmark: opens a trace in the workbench window (offscreen) and prints when each part is
// ready — the import on the engine thread, the run on screen (its analysis), the operator table, the
// timeline; or, for a memory snapshot, its reading and its replay on screen — with the GUI thread's
// longest stall meanwhile (the worst lateness of a 10 ms timer: what a
// user would feel as a frozen window) and the process's peak RSS. With --cancel-after S it presses
// Cancel S seconds into the open and prints how long the cancel took to land.
// Usage: QT_QPA_PLATFORM=offscreen awb_open_bench TRACE|SNAPSHOT [--cancel-after S] [--size WxH] [--grab PNG] [--raise
// DOCK]
// Prints figures; asserts nothing (run by hand for docs/performance.md and the closing notes).
#include <sys/resource.h>

#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QThread>
#include <QTimer>
#include <QHeaderView>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/process_tuning.h"
#include "engine_worker.h"
#include "main_window.h"
#include "memory_snapshot_view.h"
#include "operator_panel.h"
#include "operator_table_model.h"
#include "session.h"
#include "timeline_view.h"

using namespace awb::ui;

namespace {

// The application, timing what the GUI thread dispatches: the events that held it longest (outermost
// dispatch, and the widgets painted inside one), with their receiver's class and the event's type
// (43 a queued call, 76 a layout, 77 a repaint), are what a stall was made of.
class TimedApplication : public QApplication {
public:
    using QApplication::QApplication;
    struct Slow {
        double ms, at_s;
        std::string what;
    };
    std::vector<Slow> slowest;  // over 20 ms (paints inside them over 10 ms), in the order they ended
    QElapsedTimer clock;

    static std::string describe(QObject* o) {
        std::string s = "  painting";
        for (int i = 0; o && i < 4; ++i, o = o->parent()) {
            s += std::string(" ") + o->metaObject()->className();
            if (auto* h = qobject_cast<QHeaderView*>(o))
                s += "(" + std::to_string(h->count()) + " sections, " +
                     (h->orientation() == Qt::Vertical ? "vertical" : "horizontal") + ")";
            s += " <";
        }
        return s;
    }
    bool notify(QObject* receiver, QEvent* event) override {
        if (QThread::currentThread() != thread() || !clock.isValid()) return QApplication::notify(receiver, event);
        if (depth_++ > 0) {  // inside: only paints are timed, to name what a slow repaint painted
            if (event->type() != QEvent::Paint) {
                const bool handled = QApplication::notify(receiver, event);
                --depth_;
                return handled;
            }
            QElapsedTimer t;
            t.start();
            const bool handled = QApplication::notify(receiver, event);
            --depth_;
            const double ms = double(t.nsecsElapsed()) / 1e6;
            if (ms > 10) slowest.push_back({ms, double(clock.nsecsElapsed()) / 1e9, describe(receiver)});
            return handled;
        }
        QElapsedTimer t;
        t.start();
        const int type = int(event->type());
        const std::string name = receiver->metaObject()->className();
        const bool handled = QApplication::notify(receiver, event);
        --depth_;
        const double ms = double(t.nsecsElapsed()) / 1e6;
        if (ms > 20)
            slowest.push_back({ms, double(clock.nsecsElapsed()) / 1e9, name + " event " + std::to_string(type)});
        return handled;
    }

private:
    int depth_ = 0;
};

double peak_rss_mib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
    awb::tune_allocator_for_steady_state();  // as attention-workbench's main does
    TimedApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(
            stderr,
            "usage: awb_open_bench TRACE|SNAPSHOT [--cancel-after SECONDS] [--size WxH] [--grab PNG] [--raise DOCK]\n");
        return 2;
    }
    const QString path = QString::fromLocal8Bit(argv[1]);
    double cancel_after_s = -1;
    QString grab;   // --grab PNG: the window as it is when everything is on screen
    QString raise;  // --raise DOCK: that bottom dock's tab in front for the grab (kernels, attention, ...)
    int width = 1400, height = 900;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--cancel-after") == 0) cancel_after_s = std::atof(argv[i + 1]);
        if (std::strcmp(argv[i], "--grab") == 0) grab = QString::fromLocal8Bit(argv[i + 1]);
        if (std::strcmp(argv[i], "--raise") == 0) raise = QString::fromLocal8Bit(argv[i + 1]);
        if (std::strcmp(argv[i], "--size") == 0) std::sscanf(argv[i + 1], "%dx%d", &width, &height);
    }

    MainWindow window;
    window.resize(width, height);
    window.show();

    QElapsedTimer clock;
    double stall_ms = 0, last_tick_ms = 0;
    double imported_s = -1, shown_s = -1, operators_s = -1, timeline_s = -1, cancel_s = -1, cancelled_s = -1,
           replayed_s = -1;
    bool done = false, failed = false;
    auto now_s = [&clock] { return double(clock.nsecsElapsed()) / 1e9; };
    auto finish = [&] {
        done = true;
        QTimer::singleShot(0, &app, &QApplication::quit);
    };

    // The GUI thread's pulse: a 10 ms timer; any longer gap is time the window could not react.
    QTimer pulse;
    pulse.setInterval(10);
    QObject::connect(&pulse, &QTimer::timeout, [&] {
        const double t = double(clock.nsecsElapsed()) / 1e6;
        stall_ms = std::max(stall_ms, t - last_tick_ms - 10.0);
        last_tick_ms = t;
        if (shown_s >= 0 && timeline_s < 0 && window.timeline()->data()) timeline_s = now_s();
        // A small trace's table is filled while the import's own signal is delivered, before rowsReady is seen here.
        if (shown_s >= 0 && operators_s < 0 && window.operatorPanel()->model()->rowCount() > 0) operators_s = now_s();
        if (((shown_s >= 0 && operators_s >= 0 && timeline_s >= 0) || replayed_s >= 0) && !done) finish();
    });

    EngineThread* engine = window.engine();  // its signals come on the GUI thread
    QObject::connect(engine, &EngineThread::resultsOpened, &app, [&] { imported_s = now_s(); });
    QObject::connect(engine, &EngineThread::failed, &app, [&](const QString& title, const QString& message) {
        std::printf("failed: %s: %s\n", qPrintable(title), qPrintable(message));
        failed = true;
        finish();
    });
    QObject::connect(engine, &EngineThread::cancelled, &app, [&] {
        cancelled_s = now_s();
        finish();
    });
    // A memory snapshot: read on the engine thread, replayed on the background pool, then on screen.
    QObject::connect(window.memorySnapshot(), &MemorySnapshotView::replayed, &app, [&] {
        if (replayed_s < 0) replayed_s = now_s();
    });
    QObject::connect(window.session(), &Session::shownChanged, &app, [&] {
        if (shown_s < 0 && window.session()->shown().result) shown_s = now_s();
    });
    // The table is filled in the run's display (the window's own shownChanged handler runs first) or,
    // for a large trace, later: the first fill after the import is the one.
    QObject::connect(window.operatorPanel(), &OperatorPanel::rowsReady, &app, [&] {
        if (imported_s >= 0 && operators_s < 0) operators_s = now_s();
    });
    QTimer::singleShot(std::getenv("AWB_OPEN_GIVE_UP_S") ? std::atoi(std::getenv("AWB_OPEN_GIVE_UP_S")) * 1000 : 180000,
                       &app, [&] {
                           std::printf("gave up after 180 s\n");
                           failed = true;
                           finish();
                       });

    clock.start();
    app.clock.start();
    pulse.start();
    if (!window.openFile(path)) {
        std::printf("cannot open %s\n", qPrintable(path));
        return 1;
    }
    if (cancel_after_s >= 0)
        QTimer::singleShot(int(cancel_after_s * 1000), &app, [&] {
            cancel_s = now_s();
            window.engine()->cancel();
        });
    app.exec();
    if (!grab.isEmpty()) {
        if (auto* dock = window.findChild<QDockWidget*>(raise); dock && !raise.isEmpty()) dock->raise();
        QElapsedTimer settle;  // the shortened kernel names and the deferred chart land in later turns
        settle.start();
        while (settle.elapsed() < 1500) QApplication::processEvents(QEventLoop::AllEvents, 50);
        if (!window.grab().save(grab)) std::printf("cannot save %s\n", qPrintable(grab));
    }

    auto at = [](double s) {
        char text[32] = "-";
        if (s >= 0) std::snprintf(text, sizeof text, "%.2f s", s);
        return std::string(text);
    };
    std::printf("file %s\n", qPrintable(path));
    std::printf("imported (engine thread)  %s\n", at(imported_s).c_str());
    if (replayed_s >= 0) {
        std::printf("snapshot replayed, shown  %s\n", at(replayed_s).c_str());
    } else {
        std::printf("run on screen (analysed)  %s\n", at(shown_s).c_str());
        std::printf("operator table filled     %s\n", at(operators_s).c_str());
        std::printf("timeline drawn            %s\n", at(timeline_s).c_str());
    }
    if (cancel_s >= 0)
        std::printf("cancel pressed at %s, landed at %s (%.0f ms)\n", at(cancel_s).c_str(), at(cancelled_s).c_str(),
                    cancelled_s >= 0 ? (cancelled_s - cancel_s) * 1000 : -1.0);
    std::printf("longest GUI-thread stall  %.0f ms\n", stall_ms);
    for (const auto& slow : app.slowest)
        std::printf("  GUI thread busy %.0f ms until %.2f s: %s\n", slow.ms, slow.at_s, slow.what.c_str());
    std::printf("peak RSS                  %.0f MiB\n", peak_rss_mib());
    return failed ? 1 : 0;
}
