#include "scroll_area.h"

#include <QScrollArea>
#include <QScrollBar>

namespace awb::ui {

QScrollArea* in_scroll_area(QWidget* widget, bool horizontal) {
    auto* scroll = new QScrollArea;
    scroll->setWidget(widget);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    if (!horizontal) {
        scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        // The timeline paints its ruler at the visible top: repaint whole on a vertical scroll, as a
        // blit would move the ruler with the lanes.
        QObject::connect(scroll->verticalScrollBar(), &QScrollBar::valueChanged, widget, qOverload<>(&QWidget::update));
    }
    return scroll;
}

}  // namespace awb::ui
