// Widgets whose minimum size is their content's (the timeline's lanes, the run form, the comparison's
// tables and timelines) go into a scroll area: outside one, that minimum becomes the dock's or the
// window's, which then grows past the screen or will not let a splitter move.
#pragma once

class QScrollArea;
class QWidget;

namespace awb::ui {

// horizontal: false for widgets that zoom and pan in time themselves (the timeline, which is then
// repainted whole on a vertical scroll so that its ruler stays at the visible top).
QScrollArea* in_scroll_area(QWidget* widget, bool horizontal = true);

}  // namespace awb::ui
