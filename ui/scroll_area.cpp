#include "scroll_area.h"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QChildEvent>
#include <QCoreApplication>
#include <QComboBox>
#include <QEvent>
#include <QScrollArea>
#include <QScrollBar>

namespace awb::ui {

namespace {

bool takes_wheel(const QObject* o) {
    return o->isWidgetType() && (qobject_cast<const QComboBox*>(o) || qobject_cast<const QAbstractSpinBox*>(o) ||
                                 (qobject_cast<const QAbstractSlider*>(o) && !qobject_cast<const QScrollBar*>(o)));
}

// Watches the value widgets under a root: a wheel event on one without the focus is passed on,
// unaccepted, to its parents (QApplication hands an ignored wheel event up to the scroll area).
class WheelGuard : public QObject {
public:
    using QObject::QObject;

    void watch(QObject* o) {
        if (takes_wheel(o)) {
            auto* w = static_cast<QWidget*>(o);
            if (w->focusPolicy() == Qt::WheelFocus) w->setFocusPolicy(Qt::StrongFocus);
            w->installEventFilter(this);
        }
        o->installEventFilter(this);  // its children added later
        for (QObject* child : o->children()) watch(child);
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::ChildAdded) {
            QObject* child = static_cast<QChildEvent*>(event)->child();
            if (child->isWidgetType()) watch(child);
        } else if (event->type() == QEvent::Wheel && takes_wheel(watched) &&
                   !static_cast<QWidget*>(watched)->hasFocus()) {
            // Not delivered here: to the scroll area holding it (QApplication does not hand a
            // synthesised wheel event up to the parents), else ignored for the parents to take.
            for (QWidget* p = static_cast<QWidget*>(watched)->parentWidget(); p; p = p->parentWidget())
                if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
                    QCoreApplication::sendEvent(area->viewport(), event);
                    return true;
                }
            event->ignore();
            return true;
        }
        return false;
    }
};

}  // namespace

void wheel_only_with_focus(QWidget* root) {
    auto* guard = new WheelGuard(root);
    guard->watch(root);
}

QScrollArea* in_scroll_area(QWidget* widget, bool horizontal) {
    auto* scroll = new QScrollArea;
    scroll->setWidget(widget);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    wheel_only_with_focus(widget);
    if (!horizontal) {
        scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        // The timeline paints its ruler at the visible top: repaint whole on a vertical scroll, as a
        // blit would move the ruler with the lanes.
        QObject::connect(scroll->verticalScrollBar(), &QScrollBar::valueChanged, widget, qOverload<>(&QWidget::update));
    }
    return scroll;
}

}  // namespace awb::ui
