// Widgets whose minimum size is their content's (the timeline's lanes, the run form, the comparison's
// tables and timelines) go into a scroll area: outside one, that minimum becomes the dock's or the
// window's, which then grows past the screen or will not let a splitter move.
//
// In a scroll area the mouse wheel scrolls the area: combo boxes, spin boxes and sliders the pointer
// passes over take the wheel only when they have the keyboard focus (a click or Tab gives it), so
// scrolling the Run panel never changes its Mask or its sizes unseen.
#pragma once

class QScrollArea;
class QWidget;

namespace awb::ui {

// horizontal: false for widgets that zoom and pan in time themselves (the timeline, which is then
// repainted whole on a vertical scroll so that its ruler stays at the visible top).
QScrollArea* in_scroll_area(QWidget* widget, bool horizontal = true);

// The combo boxes, spin boxes and sliders under root (now and added later) leave the wheel to what
// holds them unless they have the focus; none takes the focus from the wheel (Qt::StrongFocus).
void wheel_only_with_focus(QWidget* root);

}  // namespace awb::ui
