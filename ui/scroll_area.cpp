#include "scroll_area.h"

#include <QScrollArea>

namespace awb::ui {

QScrollArea* in_scroll_area(QWidget* widget, bool horizontal) {
    auto* scroll = new QScrollArea;
    scroll->setWidget(widget);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    if (!horizontal) scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return scroll;
}

}  // namespace awb::ui
