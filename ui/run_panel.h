// Every RunSpec and profiler option as form widgets with the article's defaults; the core's
// validate() messages shown inline as the user edits; Run and Cancel.
#pragma once

#include <QWidget>

#include "model/profile_options.h"
#include "model/run_spec.h"
#include "model/sweep.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QCheckBox;

namespace awb::ui {

class RunPanel : public QWidget {
    Q_OBJECT
public:
    RunPanel(DeviceCaps caps, QWidget* parent = nullptr);
    RunSpec spec() const;
    ProfileOptions profileOptions() const;
    void setSpec(const RunSpec& spec);
    void setRunning(bool running);
    QString problemsText() const;  // empty when the spec is valid
    SweepPlan sweepPlan() const;   // the spec as base, the sweep editor's lists
    QString sweepProblemsText() const;
    void setSweepLists(const QString& seq, const QStringList& variants, const QString& dtypes);

signals:
    void runRequested(const awb::RunSpec& spec, const awb::ProfileOptions& options);
    void cancelRequested();
    void sweepRequested(const awb::SweepPlan& plan);

private:
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
};

}  // namespace awb::ui
