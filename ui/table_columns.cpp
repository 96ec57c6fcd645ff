#include "table_columns.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTableView>

#include <algorithm>

#include "row_table_model.h"

namespace awb::ui {

void fit_columns(QTableView* view, int name_column) {
    view->setTextElideMode(Qt::ElideMiddle);
    view->horizontalHeader()->setTextElideMode(Qt::ElideRight);
    // Widths from the visible rows and a few around them: a table of hundreds or thousands (a long
    // trace's operators, steps, kernels) would otherwise measure every cell's text on the GUI thread,
    // tens of ms a table. (Qt's sizeHintForColumn counts its rows by the horizontal header's precision.)
    view->horizontalHeader()->setResizeContentsPrecision(kFitRows);
    view->resizeColumnsToContents();
    const int shown = view->isVisible() ? view->viewport()->width() : 0;
    const int cap = shown > 0 ? std::clamp(shown * 2 / 5, kMinNameWidth, kMaxNameWidth) : kMaxNameWidth;
    view->setColumnWidth(name_column, std::clamp(view->columnWidth(name_column), kMinNameWidth, cap));
}

QTableView* sorted_table(QAbstractItemModel* model, int sort_column, Qt::SortOrder order, QObject* owner) {
    auto* proxy = new QSortFilterProxyModel(owner);
    proxy->setSourceModel(model);
    proxy->setSortRole(RowTableModelBase::SortRole);
    auto* view = new QTableView;
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->sortByColumn(sort_column, order);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    return view;
}

}  // namespace awb::ui
