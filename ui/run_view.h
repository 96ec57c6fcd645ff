// A view of the run on screen. Added to the Session (Session::addView), every such view gets the same
// NamedRun (the run with its analysis, computed once) when the shown run changes; each takes what it
// shows from it.
// A null result: nothing on screen (a workspace without runs, a report without events).
#pragma once

#include "session_types.h"

namespace awb::ui {

class RunView {
public:
    virtual ~RunView() = default;
    // large: a large trace (what can wait is done in the background or in a later event-loop turn).
    virtual void showRun(const NamedRun& run, bool large) = 0;
};

}  // namespace awb::ui
