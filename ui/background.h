// Work on a large trace (timeline levels, operator and kernel tables of a million events take a
// second or more) runs on Qt's thread pool so the window stays live and the first view appears while
// the rest is computed; small traces are done at once, so the views are filled when the call returns.
#pragma once

#include <QObject>
#include <QtConcurrent/QtConcurrent>

#include <cstddef>
#include <utility>

namespace awb::ui {

inline constexpr size_t kBackgroundEvents = 200'000;

// deliver(work()) on the GUI thread, in owner's context (dropped if owner is gone); deliver must
// itself ignore a result that a newer request has made stale.
template <typename Work, typename Deliver>
void compute_then(QObject* owner, bool in_background, Work work, Deliver deliver) {
    if (!in_background) {
        deliver(work());
        return;
    }
    QtConcurrent::run(std::move(work)).then(owner, std::move(deliver));
}

}  // namespace awb::ui
