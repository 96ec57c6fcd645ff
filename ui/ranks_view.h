// The Ranks tab: the ranks of the run on screen compared in one ProfilerStep (analysis/rank_comparison.h):
// each rank's step, GPU computation, communication, exposed communication, idle and its waits at the
// collectives; then the slowest rank against the fastest, operator by operator over the step. A rank can
// be opened as a run of its own (its events alone: its operator, kernel and GPU time tables, and Compare
// runs between two ranks).
#pragma once

#include <QWidget>

#include <memory>

#include "analysis/rank_comparison.h"
#include "row_table_model.h"
#include "run_view.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;

namespace awb::ui {

class RankStepModel : public RowTableModel<RankStep> {
    Q_OBJECT
public:
    enum Column { Rank, Step, Computation, Communication, Exposed, Idle, Waited, MadeWait, ColumnCount };
    explicit RankStepModel(QObject* parent = nullptr);
    int32_t slowest = -1;

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
    QVariant roleData(int row, int column, int role) const override;  // the slowest rank in bold
};

class RankOperatorModel : public RowTableModel<OperatorDiffRow> {
    Q_OBJECT
public:
    enum Column { Name, CpuA, CpuB, CpuDelta, DeviceDelta, ColumnCount };
    explicit RankOperatorModel(QObject* parent = nullptr);

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
};

class RanksView : public QWidget, public RunView {
    Q_OBJECT
public:
    explicit RanksView(QWidget* parent = nullptr);
    void showRun(const NamedRun& run, bool large) override;
    void compareStep(int step);  // -1: where the ranks differ most
    const RankComparison& comparison() const { return comparison_; }
    RankStepModel* ranks() const { return ranks_; }
    RankOperatorModel* operators() const { return operators_; }
    QComboBox* stepBox() const { return step_box_; }

signals:
    // "Open rank as a run": the rank's events as a run of their own, labelled.
    void rankRunRequested(std::shared_ptr<const ProfileResult> run, const QString& label);

private:
    RankStepModel* ranks_;
    RankOperatorModel* operators_;
    QComboBox* step_box_;
    QComboBox* rank_box_;
    QPushButton* open_rank_;
    QLabel* summary_;
    QTableView* ranks_view_;
    QTableView* operators_view_;
    NamedRun run_;
    RankComparison comparison_;
    uint64_t generation_ = 0;  // a comparison of an older run or step is dropped
    void showComparison();
};

}  // namespace awb::ui
