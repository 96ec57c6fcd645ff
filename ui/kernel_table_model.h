// The kernel table (kernels, copies and sets of a trace with device events, grouped by name and
// launch configuration) as a Qt model, and the panel that shows it sorted and filtered.
#pragma once

#include <QWidget>

#include <memory>
#include <string>
#include <vector>

#include "analysis/kernel_table.h"
#include "row_table_model.h"

class QCheckBox;
class QLineEdit;
class QLabel;
class QTableView;

namespace awb::ui {

class OperatorFilterProxy;

// The name column shows the demangled name (model/kernel_name.h), shortened to the column's width by
// what tells the table's kernels apart; its tooltip holds the whole demangled name and the raw one,
// RawNameRole the raw name (what the timeline and the exports use), FilterRole both for the filter.
class KernelTableModel : public RowTableModel<KernelRow> {
    Q_OBJECT
public:
    enum Column { Name, Kind, Class, Calls, Total, Share, Avg, Min, Max, Grid, Block, Registers, SharedMemory, Occupancy, Bytes, ColumnCount };
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
    double value(int row, int column) const override;  // -1 where the trace has no value
    QVariant more(int row, int column, int role) const override;  // ShareRole: the bar of the total
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

class KernelPanel : public QWidget {
    Q_OBJECT
public:
    explicit KernelPanel(QWidget* parent = nullptr);
    KernelTableModel* model() const { return model_; }
    OperatorFilterProxy* proxy() const { return proxy_; }
    // A run's kernel table (from its RunAnalysis); a large trace's names are shortened in the background.
    void setRows(std::vector<KernelRow> rows, bool large_trace = false);
    // One row per kernel class and device (GEMM, attention, softmax, ...) instead of per kernel.
    void setGroupByClass(bool on);

signals:
    void kernelSelected(const QString& name);  // to highlight its events in the timeline

protected:
    void showEvent(QShowEvent* e) override;  // rows set while hidden (another tab) are fitted when first shown
    // ...and again as the panel is resized, while the name column keeps the width the fit gave it (a
    // width the user dragged is kept): a dock that got its width after the first fit shows long names.
    void resizeEvent(QResizeEvent* e) override;

private:
    KernelTableModel* model_;
    OperatorFilterProxy* proxy_;
    QTableView* view_;
    QLineEdit* filter_;
    QLabel* summary_;
    QCheckBox* by_class_;
    std::vector<KernelRow> rows_;  // per kernel, as set
    bool fitted_shown_ = false;    // the columns were fitted while the panel was visible
    int fitted_name_width_ = -1;   // the name column's width as the last fit left it
    void fitColumns();
    void fitNames();       // the names shortened to the name column's width
    void copySelected();   // the selected rows' raw names to the clipboard, one a line
};

}  // namespace awb::ui
