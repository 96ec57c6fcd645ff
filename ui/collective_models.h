// The Collectives tab's tables (row_table_model.h): the collectives matched across ranks, the ranks'
// waits with the straggler, and the communication hidden or exposed per rank and step.
#pragma once

#include <QString>

#include "analysis/collectives.h"
#include "analysis/comm_overlap.h"
#include "row_table_model.h"

namespace awb::ui {

// One row per collective matched across the ranks of its group (a send with its recv).
class CollectiveTableModel : public RowTableModel<MatchedCollective> {
    Q_OBJECT
public:
    enum Column {
        Name,
        Group,
        Step,
        Ranks,
        Bytes,
        Skew,
        Transfer,
        BusBw,
        AlgBw,
        Imbalance,
        Last,
        MaxWait,
        Waits,
        ColumnCount
    };
    explicit CollectiveTableModel(QObject* parent = nullptr);

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
};

// A rank's collectives: its calls, its own wait, the wait it caused the others, and its communication
// over the whole trace, hidden and exposed.
struct RankCollectives {
    int32_t rank = -1;
    int64_t calls = 0;
    RankStraggle straggle;
    CommOverlap overlap;  // the whole trace's row (step -1); comm_ns 0 when none
    bool straggler = false;
};
std::vector<RankCollectives> rank_collectives(const CollectiveReport& report, const OverlapReport& overlap);

class RankCollectivesModel : public RowTableModel<RankCollectives> {
    Q_OBJECT
public:
    enum Column {
        Rank,
        Calls,
        OwnWait,
        CausedWait,
        LastArrivals,
        Communication,
        Hidden,
        HiddenShare,
        Exposed,
        ColumnCount
    };
    explicit RankCollectivesModel(QObject* parent = nullptr);

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
    QVariant roleData(int row, int column, int role) const override;  // the straggler in bold
};

// The overlap's rows: per rank, the whole trace and each step.
class OverlapTableModel : public RowTableModel<CommOverlap> {
    Q_OBJECT
public:
    enum Column { Rank, Step, On, Communication, Hidden, HiddenShare, Exposed, ByCollective, ColumnCount };
    explicit OverlapTableModel(QObject* parent = nullptr);

protected:
    QString text(int row, int column) const override;
    double value(int row, int column) const override;
};

}  // namespace awb::ui
