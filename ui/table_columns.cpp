#include "table_columns.h"

#include <QHeaderView>
#include <QTableView>

#include <algorithm>

namespace awb::ui {

void fit_columns(QTableView* view, int name_column) {
    view->setTextElideMode(Qt::ElideMiddle);
    view->horizontalHeader()->setTextElideMode(Qt::ElideRight);
    // Widths from at most a few hundred rows around the visible ones: a table of thousands (a long
    // trace's steps, its kernels) would otherwise measure every cell's text on the GUI thread.
    view->verticalHeader()->setResizeContentsPrecision(kFitRows);
    view->resizeColumnsToContents();
    const int shown = view->isVisible() ? view->viewport()->width() : 0;
    const int cap = shown > 0 ? std::clamp(shown * 2 / 5, kMinNameWidth, kMaxNameWidth) : kMaxNameWidth;
    view->setColumnWidth(name_column, std::clamp(view->columnWidth(name_column), kMinNameWidth, cap));
}

}  // namespace awb::ui
