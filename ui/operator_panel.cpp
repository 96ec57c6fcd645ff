#include "operator_panel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "background.h"
#include "operator_table_model.h"
#include "table_columns.h"

namespace awb::ui {

OperatorPanel::OperatorPanel(QWidget* parent)
    : QWidget(parent),
      model_(new OperatorTableModel(this)),
      proxy_(new OperatorFilterProxy(this)),
      view_(new QTableView),
      filter_(new QLineEdit),
      group_(new QCheckBox(tr("Group by input shape"))),
      filter_timer_(new QTimer(this)) {
    proxy_->setSourceModel(model_);
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(OperatorTableModel::column(OpColumn::SelfCpu), Qt::DescendingOrder);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setAlternatingRowColors(true);
    view_->verticalHeader()->hide();
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    view_->horizontalHeader()->setStretchLastSection(false);
    auto* bars = new ShareBarDelegate(view_);
    view_->setItemDelegateForColumn(OperatorTableModel::column(OpColumn::SelfCpu), bars);
    view_->setItemDelegateForColumn(OperatorTableModel::column(OpColumn::SelfDevice), bars);
    filter_->setPlaceholderText(tr("Filter operators (e.g. matmul, softmax)"));
    filter_->setClearButtonEnabled(true);
    filter_timer_->setSingleShot(true);
    filter_timer_->setInterval(300);
    group_->setToolTip(tr("One row per (operator, input shapes), like key_averages(group_by_input_shape=True)"));
    auto* csv = new QPushButton(tr("Export CSV..."));
    auto* top = new QHBoxLayout;
    top->addWidget(filter_, 1);
    top->addWidget(group_);
    top->addWidget(csv);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(view_);

    connect(filter_, &QLineEdit::textChanged, filter_timer_, qOverload<>(&QTimer::start));
    connect(filter_timer_, &QTimer::timeout, this, [this] { proxy_->setFilterFixedString(filter_->text()); });
    connect(group_, &QCheckBox::toggled, this, &OperatorPanel::regroup);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        if (current.isValid())
            emit operatorSelected(
                proxy_->index(current.row(), OperatorTableModel::column(OpColumn::Name)).data().toString());
    });
    connect(csv, &QPushButton::clicked, this, [this] {
        const QString path =
            QFileDialog::getSaveFileName(this, tr("Export operator table"), QString(), tr("CSV (*.csv)"));
        QString error;
        if (!path.isEmpty() && !exportCsv(path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
    });
    auto* copy = new QAction(tr("Copy"), view_);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(copy, &QAction::triggered, this, &OperatorPanel::copySelection);
    view_->addAction(copy);
    showColumns(false);
}

void OperatorPanel::showColumns(bool device_columns) {
    // Memory columns stay: a trace does not say whether memory was profiled (they read 0 then).
    const unsigned available =
        kNeedsMemory | (device_columns ? kNeedsDevice : 0) | (group_->isChecked() ? kNeedsShapes : 0);
    const auto& columns = OperatorTableModel::columns();
    for (size_t c = 0; c < columns.size(); ++c) view_->setColumnHidden(int(c), (columns[c].needs & ~available) != 0);
    fit_columns(view_, OperatorTableModel::column(OpColumn::Name));  // columns shown only now were never fitted
}

void OperatorPanel::showRun(const NamedRun& run, bool) {
    if (!run.result || !run.analysis) {
        setRows({}, false);
        return;
    }
    setTrace(std::shared_ptr<const Trace>(run.result, &run.result->trace), run.analysis->operators,
             run.analysis->device_columns);
}

void OperatorPanel::setTrace(std::shared_ptr<const Trace> trace, std::vector<OperatorRow> rows, bool device_columns) {
    trace_ = std::move(trace);
    ungrouped_ = std::move(rows);
    group_->setEnabled(true);
    regroup();
    showColumns(device_columns);
}

void OperatorPanel::setRows(std::vector<OperatorRow> rows, bool device_columns) {
    trace_.reset();
    ungrouped_.clear();
    group_->setEnabled(false);  // regrouping needs the events
    model_->setRows(std::move(rows));
    showColumns(device_columns);  // fits the columns
}

void OperatorPanel::regroup() {
    if (!trace_) return;
    const bool grouped = group_->isChecked();
    auto show = [this, grouped](std::vector<OperatorRow> rows) {
        model_->setRows(std::move(rows));
        view_->setColumnHidden(OperatorTableModel::column(OpColumn::Shapes), !grouped);
        fit_columns(view_, OperatorTableModel::column(OpColumn::Name));
        emit rowsReady();
    };
    if (!grouped) {  // the table by name came with the trace
        show(ungrouped_);
        return;
    }
    const std::shared_ptr<const Trace> trace = trace_;
    const bool large = is_large(*trace);
    if (large) model_->setRows({});  // not the previous trace's rows while this one is computed
    compute_then(
        this, large, [trace] { return key_averages(*trace, OpTableOptions{true}); },
        [this, trace, show](std::vector<OperatorRow> rows) {
            if (trace != trace_ || !group_->isChecked()) return;  // a newer trace or grouping won
            show(std::move(rows));
        });
}

void OperatorPanel::copySelection() const {
    std::vector<int> rows;
    for (const auto& index : view_->selectionModel()->selectedRows()) rows.push_back(proxy_->mapToSource(index).row());
    std::sort(rows.begin(), rows.end());
    QApplication::clipboard()->setText(model_->toDelimited(rows, QLatin1Char('\t')));
}

bool OperatorPanel::exportCsv(const QString& path, QString* error) const {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) {
        if (error) *error = tr("Cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    f.write(model_->toDelimited({}, QLatin1Char(',')).toUtf8());
    return true;
}

}  // namespace awb::ui
