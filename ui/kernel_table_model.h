// The kernel table (kernels, copies and sets of a trace with device events, grouped by name and
// launch configuration) as a Qt model; kernel_panel.h shows it sorted and filtered.
#pragma once

#include <string>
#include <vector>

#include "analysis/kernel_columns.h"
#include "row_table_model.h"

namespace awb::ui {

class OperatorFilterProxy;

// The name column shows the demangled name (model/kernel_name.h), shortened to the column's width by
// what tells the table's kernels apart; its tooltip holds the whole demangled name and the raw one,
// RawNameRole the raw name (what the timeline and the exports use), FilterRole both for the filter.
class KernelTableModel : public RowTableModel<KernelRow> {
    Q_OBJECT
public:
    // The model's columns are the description's (analysis/kernel_columns.h), all of them, in its order.
    static int column(KernelColumn id) { return int(id); }
    enum KernelRole { RawNameRole = ShareRole + 1, FilterRole };

    explicit KernelTableModel(QObject* parent = nullptr);
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    void setNameWidth(int characters);  // the name column's width in characters: the names are shortened to it
    int nameWidth() const { return name_chars_; }
    // Shorten the names on the background pool (a large trace's: tens of long templated names take tens of
    // ms a width), showing them cut at the width until the short ones come; at once otherwise.
    void setBackgroundNames(bool on) { background_ = on; }

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;                 // -1 where the trace has no value
    QVariant roleData(int row, int column, int role) const override;  // ShareRole: the bar of the total
    void rowsChanged() override;

private:
    void shortenNames();
    void shortenInBackground();
    std::vector<std::string> demangledNames() const;  // what elide_kernel_names takes
    void setShown(const std::vector<std::string>& names);
    int64_t total_ns_ = 0;
    int name_chars_ = 60;
    std::vector<QString> demangled_, shown_;  // per row
    bool background_ = false;
    bool shortening_ = false;  // a background shortening is queued for the end of this event-loop turn
    int generation_ = 0;       // of the names and width: a result computed for older ones is dropped
};

}  // namespace awb::ui
