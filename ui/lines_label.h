// A label of the lines it is given, cut at the dock's width (hover: all of it). Not word-wrapped: a
// wrapped label asks for height-for-width, and in the dock's scroll area that sizes the whole tab by its
// parts' preferred heights (a chart of 320 px, tables of 200) and scrolls the tables away.
#pragma once

#include <QLabel>

namespace awb::ui {

class LinesLabel : public QLabel {
public:
    LinesLabel() { setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed); }
    void setLines(const QString& text) {
        setText(text);
        setToolTip(text);
    }
};

}  // namespace awb::ui
