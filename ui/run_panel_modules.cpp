// The run panel's user modules: Add module... (a file dialog, or the recent modules under its arrow),
// Remove module, and each module as an item of the variant combo and a check box of the sweep editor,
// named by its file's stem, with its identity as the tooltip.
#include <QCheckBox>
#include <QColor>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QToolButton>

#include <algorithm>

#include "run_panel.h"

namespace awb::ui {

namespace {

constexpr int kSweepColumns = 2;
constexpr int kSweepBoxTextPx = 140;  // a long stem is elided in the middle (the tooltip has it whole)
const QString kDirKey = QStringLiteral("modules/dir");

}  // namespace

QWidget* RunPanel::buildModuleRow() {
    auto* row = new QWidget;
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    add_module_ = new QToolButton;
    add_module_->setObjectName(QStringLiteral("addModule"));
    add_module_->setText(tr("Add module..."));
    add_module_->setPopupMode(QToolButton::MenuButtonPopup);
    add_module_->setToolTip(
        tr("Your own attention as a variant: a TorchScript module (.pt) or an AOTInductor package (.pt2, "
           "LibTorch 2.x) taking q, k, v [B, H, N, D] and returning the output, as "
           "scripts/export_attention.py writes them. It is named by its file's stem in tables and "
           "charts. The arrow offers the modules added before."));
    add_module_->setMenu(new QMenu(add_module_));
    add_module_->menu()->setToolTipsVisible(true);
    connect(add_module_->menu(), &QMenu::aboutToShow, this, &RunPanel::rebuildModuleMenu);
    connect(add_module_, &QToolButton::clicked, this, &RunPanel::chooseModule);
    remove_module_ = new QToolButton;
    remove_module_->setObjectName(QStringLiteral("removeModule"));
    remove_module_->setText(tr("Remove"));
    connect(remove_module_, &QToolButton::clicked, this,
            [this] { removeModule(variant_->currentData(kModulePathRole).toString()); });
    h->addWidget(add_module_);
    h->addWidget(remove_module_);
    h->addStretch();
    rebuildModuleMenu();
    return row;
}

void RunPanel::rebuildModuleMenu() {
    QMenu* menu = add_module_->menu();
    menu->clear();
    menu->addAction(tr("Add module file..."), this, &RunPanel::chooseModule);
    menu->addSection(tr("Recent modules"));
    const QStringList recent = recent_modules();
    for (const QString& path : recent) {
        const QFileInfo file(path);
        const bool added = variant_->findData(path, kModulePathRole) >= 0;
        const bool exists = file.isFile();
        QString text = QStringLiteral("%1  (%2)").arg(file.fileName(), file.absolutePath());
        if (!exists)
            text += tr(" - missing");
        else if (added)
            text += tr(" - added");
        QAction* action = menu->addAction(text, this, [this, path] { addModule(path); });
        action->setEnabled(exists && !added);
        action->setToolTip(exists ? path : tr("%1 is no longer there").arg(path));
    }
    if (recent.isEmpty()) menu->addAction(tr("(none yet)"))->setEnabled(false);
    menu->addAction(tr("Clear recent modules"), this, [] { clear_recent_modules(); })->setEnabled(!recent.isEmpty());
    if (modules_.empty()) return;
    menu->addSection(tr("Added"));
    for (const PanelModule& m : modules_) {
        QAction* action =
            menu->addAction(tr("Remove %1").arg(m.name), this, [this, path = m.path] { removeModule(path); });
        action->setToolTip(module_tooltip(m));
    }
}

void RunPanel::updateModuleButtons() {
    const QString path = variant_->currentData(kModulePathRole).toString();
    remove_module_->setEnabled(!path.isEmpty());
    remove_module_->setToolTip(path.isEmpty()
                                   ? tr("Select a module in Variant to remove it from the variants")
                                   : tr("Remove %1 from the variants (the file stays where it is)").arg(path));
}

void RunPanel::layoutSweepVariants() {
    while (QLayoutItem* item = sweep_variant_grid_->takeAt(0)) delete item;  // the boxes stay, placed again below
    int i = 0;
    for (QCheckBox* box : sweep_variants_)
        if (!box->property(kModulePathProperty).toString().isEmpty()) {
            sweep_variant_grid_->addWidget(box, i / kSweepColumns, i % kSweepColumns);
            ++i;
        }
}

QStringList RunPanel::modulePaths() const {
    QStringList out;
    for (const PanelModule& m : modules_) out << m.path;
    return out;
}

QString RunPanel::moduleRefusal(const QString& path) const { return module_refusal(path, modules_, caps_); }

void RunPanel::insertModule(PanelModule m) {
    const int index = variant_->count();
    variant_->addItem(module_label(m));
    variant_->setItemData(index, m.path, kModulePathRole);
    variant_->setItemData(index, module_tooltip(m), Qt::ToolTipRole);
    if (m.missing()) variant_->setItemData(index, QColor(0xb0, 0x00, 0x20), Qt::ForegroundRole);
    auto* box = new QCheckBox;
    box->setText(box->fontMetrics().elidedText(module_label(m), Qt::ElideMiddle, kSweepBoxTextPx));
    box->setProperty(kModulePathProperty, m.path);
    box->setToolTip(module_tooltip(m));
    box->setChecked(!m.missing());
    connect(box, &QCheckBox::toggled, this, &RunPanel::revalidate);
    sweep_variants_.push_back(box);
    modules_.push_back(std::move(m));
    layoutSweepVariants();
}

bool RunPanel::addModule(const QString& path) {
    const QString refusal = moduleRefusal(path);
    PanelModule m = refusal.isEmpty() ? read_panel_module(path) : PanelModule{};
    if (!refusal.isEmpty() || m.missing()) {
        QMessageBox::warning(this, tr("Cannot add module"), refusal.isEmpty() ? m.problem : refusal);
        return false;
    }
    const QString absolute = m.path;
    if (variant_->findData(absolute, kModulePathRole) >= 0) removeModule(absolute);  // it was missing: back now
    remember_module(absolute);
    insertModule(std::move(m));
    variant_->setCurrentIndex(variant_->findData(absolute, kModulePathRole));
    updateModuleButtons();
    revalidate();
    emit modulesChanged();
    return true;
}

void RunPanel::removeModule(const QString& path) {
    const auto it =
        std::find_if(modules_.begin(), modules_.end(), [&](const PanelModule& m) { return m.path == path; });
    if (it == modules_.end()) return;
    const int index = variant_->findData(path, kModulePathRole);
    if (index == variant_->currentIndex()) variant_->setCurrentIndex(0);
    variant_->removeItem(index);
    const auto box = std::find_if(sweep_variants_.begin(), sweep_variants_.end(),
                                  [&](QCheckBox* b) { return b->property(kModulePathProperty).toString() == path; });
    if (box != sweep_variants_.end()) {
        delete *box;
        sweep_variants_.erase(box);
    }
    modules_.erase(it);
    layoutSweepVariants();
    updateModuleButtons();
    revalidate();
    emit modulesChanged();
}

void RunPanel::setModules(const QStringList& paths) {
    for (const QString& path : modulePaths()) removeModule(path);
    for (const QString& path : paths) {
        const QString absolute = QString::fromStdString(absolute_module_path(path.toStdString()));
        if (is_module_path(path.toStdString()) && variant_->findData(absolute, kModulePathRole) < 0)
            insertModule(read_panel_module(absolute));
    }
    updateModuleButtons();
    revalidate();
    emit modulesChanged();
}

void RunPanel::chooseModule() {
    QSettings settings;
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Add an attention module"), settings.value(kDirKey).toString(),
                                     tr("Attention modules (*.pt *.pt2);;All files (*)"));
    if (path.isEmpty()) return;
    settings.setValue(kDirKey, QFileInfo(path).absolutePath());
    addModule(path);
}

QString RunPanel::moduleSweepProblems(const SweepPlan& plan) const {
    QString text;
    for (const std::string& variant : plan.variants) {
        if (!is_module_path(variant)) continue;
        for (const SpecProblem& p : validate(with_variant(plan.base, variant), caps_))
            if (p.field == "variant") text += QStringLiteral("variants: %1\n").arg(QString::fromStdString(p.message));
    }
    return text;
}

}  // namespace awb::ui
