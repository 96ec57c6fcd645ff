// The Kernels tab: the kernel table of the run on screen (kernel_table_model.h), sorted and filtered,
// by kernel or by kernel class; a selected kernel is highlighted in the timeline.
#pragma once

#include <QWidget>

#include <vector>

#include "kernel_table_model.h"
#include "run_view.h"

class QCheckBox;
class QLineEdit;
class QLabel;
class QTableView;

namespace awb::ui {

class OperatorFilterProxy;

class KernelPanel : public QWidget, public RunView {
    Q_OBJECT
public:
    explicit KernelPanel(QWidget* parent = nullptr);
    void showRun(const NamedRun& run, bool large) override;  // setRows(the analysis's kernels, large)
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
    void fitNames();      // the names shortened to the name column's width
    void copySelected();  // the selected rows' raw names to the clipboard, one a line
};

}  // namespace awb::ui
