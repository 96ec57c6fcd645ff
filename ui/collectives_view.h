// The Collectives tab: the run's collectives matched across its ranks (sortable: collective, group,
// bytes, bus bandwidth, skew, waits per rank), the ranks' waits with the straggler, and the
// communication hidden or exposed per rank and step, with what the matching noted. Selecting a
// collective marks it on every rank's lane of the timeline with its arrival skew.
#pragma once

#include <QWidget>

#include <vector>

#include "collective_models.h"
#include "run_view.h"

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace awb::ui {

class CollectivesView : public QWidget, public RunView {
    Q_OBJECT
public:
    explicit CollectivesView(QWidget* parent = nullptr);
    void showRun(const NamedRun& run, bool large) override;
    CollectiveTableModel* collectives() const { return collectives_; }
    RankCollectivesModel* ranks() const { return ranks_; }
    OverlapTableModel* overlap() const { return overlap_; }
    QTableView* collectivesTable() const { return table_; }
    QString summary() const;
    QString notes() const;  // what the run's files say of each other, then the collectives' notes

signals:
    // A collective chosen: its ops and work on every rank (indices into the trace's events), the first
    // and the last arrival, and what to label the skew with.
    void collectiveSelected(const std::vector<int>& events, qint64 first_ns, qint64 last_ns, const QString& label);

private:
    CollectiveTableModel* collectives_;
    RankCollectivesModel* ranks_;
    OverlapTableModel* overlap_;
    QSortFilterProxyModel* proxy_ = nullptr;
    QTableView* table_ = nullptr;
    QLabel* summary_;
    QLabel* notes_;
    QLineEdit* filter_;
    CollectiveReport report_;  // the shown run's: the calls behind each row
    void select(int source_row);
};

}  // namespace awb::ui
