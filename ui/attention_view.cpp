#include "attention_view.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "format_qt.h"
#include "model/units.h"
#include "table_columns.h"

namespace awb::ui {

AttentionTableModel::AttentionTableModel(QObject* parent)
    : RowTableModel({
          {"Backend", "flash, memory-efficient, cuDNN, CPU flash or math (sdpa, named by its inner ops), or manual "
                      "(matmul, softmax, matmul written out)", true},
          {"Pass", "forward or backward", true},
          {"B", "Batch"},
          {"Hq", "Query heads"},
          {"Hkv", "Key/value heads (fewer than Hq: grouped-query attention)"},
          {"Nq", "Query length"},
          {"Nk", "Key length"},
          {"D", "Head dimension"},
          {"dtype", "Element type of the query, as the trace names it", true},
          {"Causal", "yes: is_causal (top-left, as PyTorch's); no: no mask; -: a mask tensor or not recorded (every pair counted)", true},
          {"Start", "When the call starts, from the start of the trace"},
          {"CPU (time)", "The call's CPU span (the manual pattern: first matmul to last)"},
          {"Device (time)", "Summed time of the kernels, copies and sets its ops launched"},
          {"Kernels", "Kernels, copies and sets it launched"},
          {"FLOP", "2 x visible pairs x (D + Dv) forward; backward 2.5x forward (FlashAttention, with recompute)"},
          {"TFLOP/s", "FLOP over the device time (the CPU time where no kernel ran)"},
          {"GB/s", "Ideal bytes (Q, K, V, O once; backward also dO, dQ, dK, dV) over the same time"},
          {"% of roof", "Achieved TFLOP/s over the attainable min(peak of the dtype, ideal bytes' intensity x bandwidth): the device table's "
                        "roof for a GPU it lists (device time), the roof measured in our own run for the CPU (CPU time); - without one"},
          {"Bytes model", "Of ideal (each tensor once), scores (the [Nq, Nk] scores at every pass: 4 forward, 7 backward) and chunked "
                          "(K, V re-read per 128-query block), the one whose roofline time max(FLOP / peak, bytes / bandwidth) is nearest "
                          "the measured time; 'any' when all three are compute-bound", true},
      }, Backend, parent) {}

void AttentionTableModel::rowsChanged() {
    fits_.clear();
    for (const AttentionInstance& a : rows_) {
        const Roof* roof = find_roof(roofs_, a.dtype);
        fits_.push_back(roof ? roof_fit(a, *roof) : RoofFit{});
    }
}

double AttentionTableModel::value(int r, int c) const {
    const AttentionInstance& a = row(r);
    const AttentionShape& s = a.shape;
    switch (c) {
        case Batch: return double(s.batch);
        case HeadsQ: return double(s.heads_q);
        case HeadsKv: return double(s.heads_kv);
        case SeqQ: return double(s.seq_q);
        case SeqK: return double(s.seq_k);
        case HeadDim: return double(s.head_dim);
        case Start: return double(a.start_ns);
        case Cpu: return double(a.cpu_ns());
        case Device: return double(a.device_ns);
        case Kernels: return double(a.kernels);
        case Flops: return a.flops;
        case Tflops: return a.tflops_per_s();
        case Gbs: return a.gb_per_s();
        case RoofShare: return fits_[size_t(r)].applies ? fits_[size_t(r)].share : -1;
        default: return 0;
    }
}

QString AttentionTableModel::text(int r, int c) const {
    const AttentionInstance& a = row(r);
    const double v = value(r, c);
    const bool known = a.shape.known();
    switch (c) {
        case Backend: return QString::fromStdString(to_string(a.backend));
        case Pass: return a.backward ? tr("backward") : tr("forward");
        case Batch:
        case HeadsQ:
        case HeadsKv:
        case SeqQ:
        case SeqK:
        case HeadDim: return v > 0 ? QString::number(qint64(v)) : QStringLiteral("?");
        case Dtype: return a.dtype.empty() ? QStringLiteral("?") : QString::fromStdString(a.dtype);
        case Causal: return QString::fromStdString(causal_text(a));
        case Start: return format_duration_ns(double(a.start_ns - begin_ns_));
        case Cpu: return format_duration_ns(v);
        case Device: return a.device_ns > 0 ? format_duration_ns(v) : QStringLiteral("-");
        case Kernels: return QString::number(a.kernels);
        case Flops: return known ? QString::fromStdString(format_flops(v)) : QStringLiteral("?");
        case Tflops: return known ? QString::number(v, 'g', 4) : QStringLiteral("?");
        case Gbs: return known && a.bytes > 0 ? QString::number(v, 'g', 4) : QStringLiteral("?");
        case RoofShare: return v >= 0 ? QString::fromStdString(awb::format_share(v)) : QStringLiteral("-");
        case Bytes: {
            const RoofFit& fit = fits_[size_t(r)];
            return !fit.applies ? QStringLiteral("-") : fit.bytes.tie ? tr("any") : QString::fromStdString(to_string(fit.bytes.model));
        }
        default: return {};
    }
}

AttentionView::AttentionView(QWidget* parent)
    : QWidget(parent), model_(new AttentionTableModel(this)), proxy_(new QSortFilterProxyModel(this)), view_(new QTableView),
      summary_(new QLabel), roofline_(new RooflineChart) {
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(RowTableModelBase::SortRole);
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(AttentionTableModel::Start, Qt::AscendingOrder);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setAlternatingRowColors(true);
    view_->verticalHeader()->hide();
    summary_->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(summary_);
    auto* split = new QSplitter(Qt::Horizontal);  // side by side: the bottom docks stay as short as the user drags them
    split->addWidget(view_);
    split->addWidget(roofline_);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        if (!current.isValid()) return;
        const int row = proxy_->mapToSource(current).row();
        const AttentionInstance& a = model_->rows()[size_t(row)];
        roofline_->setHighlighted(row);
        emit callSelected(a.event, a.start_ns, a.end_ns);
    });
    // A point of the chart selects its call in the table (and so in the timeline).
    connect(roofline_, &RooflineChart::pointClicked, this, [this](int row) {
        const QModelIndex at = proxy_->mapFromSource(model_->index(row, 0));
        if (at.isValid()) view_->setCurrentIndex(at);
    });
    setCalls({}, {}, 0);
}

void AttentionView::setCalls(std::vector<AttentionInstance> calls, std::vector<Roof> roofs, int64_t begin_ns) {
    model_->setBegin(begin_ns);
    roofline_->setData(roofs, roofline_points(calls));  // a point's index is its call's row
    model_->setRoofs(std::move(roofs));
    int64_t device = 0, cpu = 0;
    double flops = 0;
    for (const AttentionInstance& a : calls) {
        device += a.device_ns;
        cpu += a.cpu_ns();
        flops += a.flops;
    }
    summary_->setText(calls.empty()
                          ? tr("No attention calls in this run: none of scaled_dot_product_attention's ops, and no matmul -> softmax -> "
                               "matmul with recorded shapes (record_shapes=True)")
                          : tr("%1 attention calls: CPU %2, device %3, %4 in all. FLOP: 2 x visible pairs x (D + Dv) forward, "
                               "backward 2.5x (FlashAttention's convention); causal top-left as PyTorch's is_causal. Select a "
                               "call to see it in the timeline.")
                                .arg(calls.size())
                                .arg(format_duration_ns(double(cpu)), device > 0 ? format_duration_ns(double(device)) : tr("none"),
                                     QString::fromStdString(format_flops(flops))));
    model_->setRows(std::move(calls));
    fit_columns(view_, AttentionTableModel::Backend);
}

}  // namespace awb::ui
