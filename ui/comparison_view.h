// Side by side: pick two runs of this session (two variants, or one variant at two shapes) and see
// first the verdict (which is faster per step, by how much, beyond the noise or not, on step time,
// device time and peak memory: analysis/run_verdict.h), then their operator tables joined with deltas
// (time, calls, device time, memory; new and vanished operators), their kernels joined the same way
// when they have device events, what the advisor says of each (fixed in B, new in B, in both), and,
// beside the tables, their timelines labelled A and B stacked on one time scale (both measured from
// their own trace start; zooming or panning one moves the other). B is the newest run and A the one
// before it until the user picks others.
#pragma once

#include <QWidget>

#include <memory>
#include <vector>

#include "analysis/run_analysis.h"
#include "model/profile_result.h"
#include "session_types.h"

class QComboBox;
class QLabel;
class QTableView;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTabWidget;
class QTextBrowser;

namespace awb::ui {

class ComparisonModel;
class TimelineView;

class ComparisonView : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonView(QWidget* parent = nullptr);
    void setRuns(std::vector<NamedRun> runs);  // keeps the choice when the runs are still there
    void compare(int a, int b);                // indices into the runs
    ComparisonModel* model() const { return model_; }
    TimelineView* timelineA() const { return timeline_a_; }
    TimelineView* timelineB() const { return timeline_b_; }
    QStandardItemModel* kernelModel() const { return kernel_model_; }  // kernels joined by name, by |delta|
    QTextBrowser* findingsDiff() const { return findings_diff_; }
    QTableView* table() const { return table_; }
    QLabel* verdict() const { return verdict_; }
    QLabel* sideLabel(bool b) const { return b ? label_b_ : label_a_; }
    int pickedA() const;
    int pickedB() const;

protected:
    void resizeEvent(QResizeEvent* e) override;  // the name columns keep up to 40% of their table's width

private:
    void update_comparison();
    void show_findings_and_verdict(int a, int b);
    void build_layout();
    QWidget* labelled_timeline(QLabel* label, TimelineView* timeline);
    void sync(TimelineView* from, TimelineView* to);
    std::vector<NamedRun> runs_;
    QComboBox *pick_a_, *pick_b_;
    QLabel* summary_;
    QLabel* verdict_;
    QLabel *label_a_, *label_b_;
    ComparisonModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QTabWidget* tabs_;
    QStandardItemModel* kernel_model_;
    QSortFilterProxyModel* kernel_proxy_;
    QTableView* kernel_table_;
    QTextBrowser* findings_diff_;
    TimelineView *timeline_a_, *timeline_b_;
    int generation_ = 0;  // of the picks: a background comparison made for older ones is dropped
    bool syncing_ = false;
    bool user_picked_ = false;  // the user chose A or B: keep the choice while those runs are there
};

}  // namespace awb::ui
