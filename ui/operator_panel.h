// The operator table panel: filter (300 ms after typing), group-by-input-shape toggle, share bars in
// the self-time columns, copy (Ctrl+C) and CSV export; selecting a row names the operator to highlight.
#pragma once

#include <QWidget>

#include <memory>

#include "analysis/op_table.h"
#include "model/trace.h"
#include "run_view.h"

class QCheckBox;
class QLineEdit;
class QTableView;
class QTimer;

namespace awb::ui {

class OperatorTableModel;
class OperatorFilterProxy;

class OperatorPanel : public QWidget, public RunView {
    Q_OBJECT
public:
    explicit OperatorPanel(QWidget* parent = nullptr);
    void showRun(const NamedRun& run, bool large) override;  // setTrace with the analysis's operators
    // A run's operator table (from its RunAnalysis: not grouped) with the trace it came from, which
    // "Group by input shape" regroups.
    void setTrace(std::shared_ptr<const Trace> trace, std::vector<OperatorRow> rows, bool device_columns);
    void setRows(std::vector<OperatorRow> rows, bool device_columns);  // a report without events
    OperatorTableModel* model() const { return model_; }
    OperatorFilterProxy* proxy() const { return proxy_; }
    QTableView* view() const { return view_; }
    void copySelection() const;
    bool exportCsv(const QString& path, QString* error) const;

signals:
    void operatorSelected(const QString& name);
    void rowsReady();  // the table of the trace set last is filled (at once, or later for a large trace)

private:
    void regroup();
    void showColumns(bool device_columns);
    std::shared_ptr<const Trace> trace_;
    std::vector<OperatorRow> ungrouped_;  // the trace's table by name, as given
    OperatorTableModel* model_;
    OperatorFilterProxy* proxy_;
    QTableView* view_;
    QLineEdit* filter_;
    QCheckBox* group_;
    QTimer* filter_timer_;
};

}  // namespace awb::ui
