// Work on a large trace (timeline levels, operator and kernel tables of a million events take a
// second or more) runs on a thread pool of ours so the window stays live and the first view appears
// while the rest is computed; small traces are done at once, so the views are filled when the call returns.
#pragma once

#include <QObject>
#include <QTimer>
#include <QtConcurrent/QtConcurrent>

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "model/trace.h"

namespace awb::ui {

// A trace from this many events is analysed off the GUI thread and its views filled one per event-loop
// turn: the analysis costs about 2.3 us an event here (a 68,000-event V100 trace held the GUI thread
// 161 ms when the line was at 200,000), so 20,000 keeps a synchronous open under 50 ms.
inline constexpr size_t kBackgroundEvents = 20'000;
inline bool is_large(const Trace& trace) {
    return trace.events().size() >= kBackgroundEvents;
}  // the one rule for a trace

// Background work yields to the GUI thread: on a machine with few cores, the analysis and the
// timeline build would otherwise take the GUI thread's share while it lays out what they produced
// (the window stalled twice as long on 2 cores). Lowers the calling pool thread's priority (nice
// kBackgroundNice, Linux) once; elsewhere does nothing.
inline constexpr int kBackgroundNice = 5;
void yield_to_the_gui_thread();

// The pool our background work runs on: not Qt's global one, which Qt's raster painting uses to fill
// large areas in parallel; with our seconds-long jobs on it, a repaint waited for one to end (a 70 ms
// stall on 2 cores each time a large trace's panels were first drawn).
QThreadPool* background_pool();

// work() on the background pool, at the lowered priority: every background job goes through here.
template <typename Work>
auto run_in_background(Work work) {
    return QtConcurrent::run(background_pool(), [work = std::move(work)]() mutable {
        yield_to_the_gui_thread();
        return work();
    });
}

// deliver(work()) on the GUI thread, in owner's context (dropped if owner is gone); deliver must
// itself ignore a result that a newer request has made stale.
template <typename Work, typename Deliver>
void compute_then(QObject* owner, bool in_background, Work work, Deliver deliver) {
    if (!in_background) {
        deliver(work());
        return;
    }
    run_in_background(std::move(work)).then(owner, std::move(deliver));
}

// Runs the steps in order: now, or with spread one per event-loop turn (in owner's context; the rest
// dropped if owner is gone), so that the GUI thread answers between steps of tens of ms each.
inline void run_steps(QObject* owner, bool spread, std::vector<std::function<void()>> steps, size_t from = 0) {
    if (!spread) {
        for (auto& step : steps) step();
        return;
    }
    if (from >= steps.size()) return;
    QTimer::singleShot(0, owner, [owner, steps = std::move(steps), from]() mutable {
        steps[from]();
        run_steps(owner, true, std::move(steps), from + 1);
    });
}

}  // namespace awb::ui
