#include "kernel_panel.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>

#include <QApplication>
#include <QClipboard>
#include <QShortcut>
#include <QTimer>

#include "background.h"
#include "format_qt.h"
#include "model/kernel_name.h"
#include "operator_table_model.h"
#include "table_columns.h"

namespace awb::ui {

KernelPanel::KernelPanel(QWidget* parent)
    : QWidget(parent),
      model_(new KernelTableModel(this)),
      proxy_(new OperatorFilterProxy(this)),
      view_(new QTableView),
      filter_(new QLineEdit),
      summary_(new QLabel),
      by_class_(new QCheckBox(tr("Group by class"))) {
    proxy_->setSourceModel(model_);
    proxy_->setFilterKeyColumn(KernelTableModel::column(KernelColumn::Name));
    proxy_->setFilterRole(KernelTableModel::FilterRole);  // the whole demangled and raw names, not the shortened one
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(KernelTableModel::column(KernelColumn::Total), Qt::DescendingOrder);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setAlternatingRowColors(true);
    view_->verticalHeader()->hide();
    view_->setItemDelegateForColumn(KernelTableModel::column(KernelColumn::Total), new ShareBarDelegate(view_));
    view_->setColumnWidth(KernelTableModel::column(KernelColumn::Name), 380);
    view_->setWordWrap(false);  // one line per kernel: the name is shortened to the column instead
    filter_->setPlaceholderText(tr("Filter kernels (e.g. gemm, softmax, nccl)"));
    filter_->setClearButtonEnabled(true);
    auto* top = new QHBoxLayout;
    top->addWidget(filter_, 1);
    top->addWidget(by_class_);
    top->addWidget(summary_);
    by_class_->setToolTip(tr("One row per kernel class and device: where the device time goes by kind of work"));
    connect(by_class_, &QCheckBox::toggled, this, &KernelPanel::setGroupByClass);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(view_);
    connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        if (current.isValid())
            emit kernelSelected(proxy_->index(current.row(), KernelTableModel::column(KernelColumn::Name))
                                    .data(KernelTableModel::RawNameRole)
                                    .toString());
    });
    // Shortening hundreds of long names takes a while (CK's run to 10,000 characters): once the column
    // stops moving, not at each pixel of a drag.
    auto* refit = new QTimer(this);
    refit->setSingleShot(true);
    refit->setInterval(80);
    connect(refit, &QTimer::timeout, this, &KernelPanel::fitNames);
    connect(view_->horizontalHeader(), &QHeaderView::sectionResized, this, [refit](int column) {
        if (column == KernelTableModel::column(KernelColumn::Name)) refit->start();
    });
    auto* copy = new QShortcut(QKeySequence::Copy, view_, nullptr, nullptr, Qt::WidgetShortcut);
    connect(copy, &QShortcut::activated, this, &KernelPanel::copySelected);
}

void KernelPanel::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (fitted_shown_ || model_->rows().empty()) return;
    fitted_shown_ = true;
    QTimer::singleShot(0, this, [this] { fitColumns(); });  // once the layout has given the view its width
}

void KernelPanel::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    if (!isVisible() || model_->rows().empty() ||
        view_->columnWidth(KernelTableModel::column(KernelColumn::Name)) != fitted_name_width_)
        return;
    QTimer::singleShot(0, this, [this] {  // once the view has its new width
        if (view_->columnWidth(KernelTableModel::column(KernelColumn::Name)) == fitted_name_width_) fitColumns();
    });
}

void KernelPanel::fitColumns() {
    // Names long enough for the column to be fitted to its cap first; then shortened to what it shows.
    model_->setNameWidth(kMaxNameWidth / 6);
    fit_columns(view_, KernelTableModel::column(KernelColumn::Name));
    fitted_name_width_ = view_->columnWidth(KernelTableModel::column(KernelColumn::Name));
    fitNames();
}

void KernelPanel::fitNames() {
    // Kernel names are mostly letters, digits and '_': a little wider than the font's average character.
    const double per_char = std::max(1.0, view_->fontMetrics().averageCharWidth() * 1.15);
    model_->setNameWidth(int((view_->columnWidth(KernelTableModel::column(KernelColumn::Name)) - 12) / per_char));
}

void KernelPanel::copySelected() {
    QStringList names;
    for (const QModelIndex& i : view_->selectionModel()->selectedRows(KernelTableModel::column(KernelColumn::Name)))
        names << i.data(KernelTableModel::RawNameRole).toString();
    if (!names.isEmpty()) QApplication::clipboard()->setText(names.join(QLatin1Char('\n')));
}

void KernelPanel::setGroupByClass(bool on) {
    if (by_class_->isChecked() != on)
        by_class_->setChecked(on);  // toggled() calls back once
    else
        setRows(rows_);
}

void KernelPanel::showRun(const NamedRun& run, bool large) {
    setRows(run.result && run.analysis ? run.analysis->kernels : std::vector<KernelRow>{}, large);
}

void KernelPanel::setRows(std::vector<KernelRow> rows, bool large_trace) {
    rows_ = std::move(rows);
    model_->setBackgroundNames(large_trace);
    model_->setRows(by_class_->isChecked() ? kernels_by_class(rows_) : rows_);
    fitColumns();
    fitted_shown_ = isVisible();
    int64_t total = 0, calls = 0;
    for (const auto& r : model_->rows()) {
        total += r.total_ns;
        calls += r.calls;
    }
    summary_->setText(
        model_->rows().empty()
            ? tr("No device events (a CPU run): kernels appear for CUDA traces")
            : tr("%1 kernels, copies and sets, %2 of device time").arg(calls).arg(format_duration_ns(double(total))));
}

}  // namespace awb::ui
