// Column widths of the workbench's tables: fitted to their contents, except the name column, which
// real kernel names (C++ signatures of 1,000+ characters) would otherwise widen until every number is
// off-screen. It gets at least kMinNameWidth and at most 40% of the view (kMaxNameWidth before the
// view has a size); names elide in the middle, and the models give the full name as the tooltip.
#pragma once

#include <Qt>

class QAbstractItemModel;
class QObject;
class QTableView;

namespace awb::ui {

inline constexpr int kMinNameWidth = 160;
inline constexpr int kMaxNameWidth = 480;
inline constexpr int kFitRows = 64;  // rows measured to fit a column, the visible ones first (Qt's default: 1,000)

void fit_columns(QTableView* view, int name_column);

// A table of MODEL (a RowTableModel) through a proxy owned by OWNER that sorts on its SortRole,
// sorted by SORT_COLUMN, rows selected whole, no row numbers, the last column stretched.
QTableView* sorted_table(QAbstractItemModel* model, int sort_column, Qt::SortOrder order, QObject* owner);

}  // namespace awb::ui
