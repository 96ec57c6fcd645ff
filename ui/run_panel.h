// Every RunSpec and profiler option as form widgets with the article's defaults; the core's
// validate() messages shown inline as the user edits; Run and Cancel. Besides the built-in variants,
// the user's own attention modules (.pt, .pt2: Add module...) are variants of the combo and the sweep
// editor, named by their file's stem (run_panel_modules.cpp).
#pragma once

#include <QWidget>

#include "model/profile_options.h"
#include "model/run_spec.h"
#include "model/sweep.h"
#include "run_modules.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QCheckBox;
class QGridLayout;
class QGroupBox;
class QToolButton;

namespace awb::ui {

class RunPanel : public QWidget {
    Q_OBJECT
public:
    // A module's path: in the variant combo's item data and on its sweep check box.
    static constexpr int kModulePathRole = Qt::UserRole + 1;
    static constexpr const char* kModulePathProperty = "modulePath";

    RunPanel(DeviceCaps caps, QWidget* parent = nullptr);
    RunSpec spec() const;
    ProfileOptions profileOptions() const;
    void setSpec(const RunSpec& spec);
    void setRunning(bool running);
    QString problemsText() const;  // empty when the spec is valid
    SweepPlan sweepPlan() const;   // the spec as base, the sweep editor's lists
    QString sweepProblemsText() const;
    // variants: built-in names, module stems or paths
    void setSweepLists(const QString& seq, const QStringList& variants, const QString& dtypes);

    // The user's modules among the variants, in the order added (a workspace keeps them).
    const std::vector<PanelModule>& modules() const { return modules_; }
    QStringList modulePaths() const;
    void setModules(const QStringList& paths);         // replaces them; a file that vanished stays, shown as missing
    QString moduleRefusal(const QString& path) const;  // empty when addModule(path) takes it
    QToolButton* addModuleButton() const { return add_module_; }
    QToolButton* removeModuleButton() const { return remove_module_; }
    QComboBox* variantCombo() const { return variant_; }
    const std::vector<QCheckBox*>& sweepVariantBoxes() const { return sweep_variants_; }

public slots:
    // Adds a .pt / .pt2 as a variant (the combo, a sweep box, the recent modules); a refused file gets
    // one message box naming it, and false. Add module... calls it with the file the dialog gave.
    bool addModule(const QString& path);
    void removeModule(const QString& path);
    void chooseModule();  // the file dialog, then addModule

signals:
    void runRequested(const awb::RunSpec& spec, const awb::ProfileOptions& options);
    void cancelRequested();
    void sweepRequested(const awb::SweepPlan& plan);
    void modulesChanged();

private:
    void createSpecWidgets();
    QGroupBox* buildSpecBox();
    QGroupBox* buildProfilerBox();
    QGroupBox* buildSweepBox();
    void connectWidgets();
    QWidget* buildModuleRow();         // run_panel_modules.cpp
    void insertModule(PanelModule m);  // combo item and sweep box, no checks
    void layoutSweepVariants();
    void rebuildModuleMenu();
    void updateModuleButtons();
    QString moduleSweepProblems(const SweepPlan& plan) const;
    void revalidate();
    DeviceCaps caps_;
    QComboBox *variant_, *dtype_, *device_, *mode_, *mask_, *layout_, *sdpa_backend_;
    QSpinBox *batch_, *heads_, *kv_heads_, *seq_q_, *seq_k_, *head_dim_, *threads_, *block_, *window_;
    QLineEdit* key_lengths_;
    QSpinBox *wait_, *warmup_, *active_, *repeat_;
    QCheckBox *shapes_, *memory_;
    QLabel* problems_;
    QPushButton *run_, *cancel_, *run_sweep_;
    QLineEdit *sweep_seq_, *sweep_dtypes_;
    std::vector<QCheckBox*> sweep_variants_;
    QSpinBox* sweep_budget_ms_;
    QLabel* sweep_problems_;
    std::vector<PanelModule> modules_;
    QToolButton *add_module_, *remove_module_;
    QGridLayout* sweep_variant_grid_;
    // The extra inputs of the module a spec set here named (kept while that module stays selected).
    std::string module_inputs_for_;
    std::vector<std::string> module_inputs_;
};

}  // namespace awb::ui
