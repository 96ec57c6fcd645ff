#include "collective_models.h"

#include <QFont>

#include <algorithm>
#include <map>

#include "format_qt.h"
#include "model/units.h"

namespace awb::ui {

namespace {

QString bandwidth(double gbps) { return QString::fromStdString(format_gb_s(gbps)); }

QString step_text(int step) { return step < 0 ? QStringLiteral("all") : QStringLiteral("#%1").arg(step); }

int64_t max_wait(const MatchedCollective& m) {
    int64_t w = 0;
    for (const RankArrival& a : m.ranks) w = std::max(w, a.wait_ns);
    return w;
}

}  // namespace

CollectiveTableModel::CollectiveTableModel(QObject* parent)
    : RowTableModel(
          {
              {"Collective",
               "The collective as PyTorch's dist API names it (all_reduce, all_gather, reduce_scatter, all_to_all, "
               "broadcast, "
               "send_recv: a send with its recv); select it to mark it on every rank's lane",
               true},
              {"Group",
               "Its process group (distributedInfo's pg_name; gloo's from its worker threads), or the send's and "
               "recv's ranks "
               "(src->dst); ? when the trace does not say",
               true},
              {"Step", "The ProfilerStep holding the call", true, true},
              {"Ranks", "Ranks of its group in the trace, of the group's size"},
              {"Bytes",
               "One rank's message as nccl-tests sizes it: the larger of input and output (all_gather's gathered "
               "output, "
               "reduce_scatter's input); the largest rank's"},
              {"Skew", "Arrival skew: the last rank's start minus the first's"},
              {"Transfer",
               "The transfer time: the shortest duration across the ranks (the others' also hold their wait)"},
              {"Bus bandwidth",
               "Algorithm bandwidth times nccl-tests' factor: all_reduce 2(n-1)/n; all_gather, reduce_scatter, "
               "all_to_all "
               "(n-1)/n; broadcast, reduce, send/recv 1; GB/s = 1e9 bytes/s"},
              {"Alg. bandwidth", "Bytes over the transfer time"},
              {"Imbalance",
               "all_to_all(v): the largest rows one rank sends one peer over the mean of all pairs; - otherwise"},
              {"Last", "The rank that arrived last (the others waited for it); - when all arrived at once"},
              {"Max wait", "The longest any rank waited: from its start to the last arrival"},
              {"Wait per rank", "Each rank's wait, rank:time", true},
          },
          Name, parent) {}

QString CollectiveTableModel::text(int r, int c) const {
    const MatchedCollective& m = row(r);
    switch (Column(c)) {
        case Name: return QString::fromStdString(m.name);
        case Group: return m.group.empty() ? QStringLiteral("?") : QString::fromStdString(m.group);
        case Step: return m.step < 0 ? QStringLiteral("-") : step_text(m.step);
        case Ranks: return QStringLiteral("%1 of %2").arg(m.ranks.size()).arg(m.group_size);
        case Bytes: return m.bytes < 0 ? QStringLiteral("?") : format_bytes(m.bytes);
        case Skew: return format_duration_ns(double(m.skew_ns));
        case Transfer: return format_duration_ns(double(m.transfer_ns));
        case BusBw: return bandwidth(m.busbw_gbps());
        case AlgBw: return bandwidth(m.algbw_gbps());
        case Imbalance:
            return m.split_imbalance > 0 ? QStringLiteral("%1x").arg(m.split_imbalance, 0, 'f', 2)
                                         : QStringLiteral("-");
        case Last: return m.last_rank < 0 ? QStringLiteral("-") : QString::number(m.last_rank);
        case MaxWait: return format_duration_ns(double(max_wait(m)));
        case Waits: {
            QStringList parts;
            for (const RankArrival& a : m.ranks)
                parts << QStringLiteral("%1:%2").arg(a.rank).arg(format_duration_ns(double(a.wait_ns)));
            return parts.join(QLatin1Char(' '));
        }
        case ColumnCount: break;
    }
    return {};
}

double CollectiveTableModel::value(int r, int c) const {
    const MatchedCollective& m = row(r);
    switch (Column(c)) {
        case Step: return m.step;
        case Ranks: return double(m.ranks.size());
        case Bytes: return double(m.bytes);
        case Skew: return double(m.skew_ns);
        case Transfer: return double(m.transfer_ns);
        case BusBw: return m.busbw_gbps();
        case AlgBw: return m.algbw_gbps();
        case Imbalance: return m.split_imbalance;
        case Last: return m.last_rank;
        case MaxWait: return double(max_wait(m));
        default: return 0;
    }
}

std::vector<RankCollectives> rank_collectives(const CollectiveReport& report, const OverlapReport& overlap) {
    std::map<int32_t, RankCollectives> by_rank;
    for (const CollectiveCall& c : report.calls) {
        RankCollectives& r = by_rank[c.rank];
        r.rank = c.rank;
        ++r.calls;
    }
    for (const RankStraggle& s : report.ranks) by_rank[s.rank].straggle = s;
    for (const CommOverlap& o : overlap.rows)
        if (o.step < 0) by_rank[o.rank].overlap = o;
    std::vector<RankCollectives> out;
    for (auto& [rank, r] : by_rank) {
        r.rank = rank;
        r.straggler = rank == report.straggler;
        out.push_back(r);
    }
    return out;
}

RankCollectivesModel::RankCollectivesModel(QObject* parent)
    : RowTableModel(
          {
              {"Rank", "The rank (its own number, from distributedInfo); the straggler in bold", true, true},
              {"Calls", "Its collective calls in the trace (a send and a recv count apart)"},
              {"Own wait", "Its waits summed: at each collective, from its start to the last rank's arrival"},
              {"Caused wait", "The others' wait at the collectives it arrived last at: the straggler has the most"},
              {"Last arrivals", "Collectives it arrived last at"},
              {"Communication",
               "The union of its communication over the whole trace (kernels on a GPU, gloo's work on the CPU)"},
              {"Hidden",
               "The part with computation running beside it (any stream; on the CPU the ops outside collectives)"},
              {"Hidden %", "Hidden over communication: HolisticTraceAnalysis's comm/comp overlap over the whole trace"},
              {"Exposed", "Communication with nothing computing beside it"},
          },
          Rank, parent) {}

QString RankCollectivesModel::text(int r, int c) const {
    const RankCollectives& x = row(r);
    switch (Column(c)) {
        case Rank: return x.straggler ? QStringLiteral("%1 (straggler)").arg(x.rank) : QString::number(x.rank);
        case Calls: return QString::number(x.calls);
        case OwnWait: return format_duration_ns(double(x.straggle.own_wait_ns));
        case CausedWait: return format_duration_ns(double(x.straggle.caused_wait_ns));
        case LastArrivals: return QString::number(x.straggle.last_arrivals);
        case Communication: return format_duration_ns(double(x.overlap.comm_ns));
        case Hidden: return format_duration_ns(double(x.overlap.hidden_ns));
        case HiddenShare: return format_share(double(x.overlap.hidden_ns), double(x.overlap.comm_ns));
        case Exposed: return format_duration_ns(double(x.overlap.exposed_ns()));
        case ColumnCount: break;
    }
    return {};
}

double RankCollectivesModel::value(int r, int c) const {
    const RankCollectives& x = row(r);
    switch (Column(c)) {
        case Rank: return x.rank;
        case Calls: return double(x.calls);
        case OwnWait: return double(x.straggle.own_wait_ns);
        case CausedWait: return double(x.straggle.caused_wait_ns);
        case LastArrivals: return double(x.straggle.last_arrivals);
        case Communication: return double(x.overlap.comm_ns);
        case Hidden: return double(x.overlap.hidden_ns);
        case HiddenShare: return x.overlap.hidden_share();
        case Exposed: return double(x.overlap.exposed_ns());
        default: return 0;
    }
}

QVariant RankCollectivesModel::roleData(int r, int, int role) const {
    if (role == Qt::FontRole && row(r).straggler) {
        QFont f;
        f.setBold(true);
        return f;
    }
    return {};
}

OverlapTableModel::OverlapTableModel(QObject* parent)
    : RowTableModel(
          {
              {"Rank", "The rank", true, true},
              {"Step",
               "all: the whole trace; #k: the communication launched in ProfilerStep#k, against all of the rank's "
               "computation",
               true, true},
              {"On",
               "device: its communication kernels against its computation kernels on any stream; CPU: gloo's work "
               "against the "
               "ops outside every collective",
               true},
              {"Communication", "Union of the communication"},
              {"Hidden", "The part computation runs beside"},
              {"Hidden %", "Hidden over communication"},
              {"Exposed", "Communication with nothing computing beside it"},
              {"Exposed by collective", "Each collective's exposed time (its own work against computation)", true},
          },
          ByCollective, parent) {}

QString OverlapTableModel::text(int r, int c) const {
    const CommOverlap& o = row(r);
    switch (Column(c)) {
        case Rank: return QString::number(o.rank);
        case Step: return step_text(o.step);
        case On: return o.on_device ? QStringLiteral("device") : QStringLiteral("CPU");
        case Communication: return format_duration_ns(double(o.comm_ns));
        case Hidden: return format_duration_ns(double(o.hidden_ns));
        case HiddenShare: return format_share(double(o.hidden_ns), double(o.comm_ns));
        case Exposed: return format_duration_ns(double(o.exposed_ns()));
        case ByCollective: {
            QStringList parts;
            for (const auto& [name, ns] : o.exposed_by_collective)
                parts << QStringLiteral("%1 %2").arg(QString::fromStdString(name), format_duration_ns(double(ns)));
            return parts.join(QStringLiteral(", "));
        }
        case ColumnCount: break;
    }
    return {};
}

double OverlapTableModel::value(int r, int c) const {
    const CommOverlap& o = row(r);
    switch (Column(c)) {
        case Rank: return o.rank * 100000.0 + o.step;  // a rank's rows together, the whole trace first
        case Step: return o.step;
        case Communication: return double(o.comm_ns);
        case Hidden: return double(o.hidden_ns);
        case HiddenShare: return o.hidden_share();
        case Exposed: return double(o.exposed_ns());
        default: return 0;
    }
}

}  // namespace awb::ui
