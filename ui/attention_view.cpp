#include "attention_view.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
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
      }, Backend, parent) {}

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
        case Causal: return QString::fromStdString(causal_text(a.causal));
        case Start: return format_duration_ns(double(a.start_ns - begin_ns_));
        case Cpu: return format_duration_ns(v);
        case Device: return a.device_ns > 0 ? format_duration_ns(v) : QStringLiteral("-");
        case Kernels: return QString::number(a.kernels);
        case Flops: return known ? QString::fromStdString(format_flops(v)) : QStringLiteral("?");
        case Tflops: return known ? QString::number(v, 'g', 4) : QStringLiteral("?");
        case Gbs: return known && a.bytes > 0 ? QString::number(v, 'g', 4) : QStringLiteral("?");
        default: return {};
    }
}

AttentionView::AttentionView(QWidget* parent)
    : QWidget(parent), model_(new AttentionTableModel(this)), proxy_(new QSortFilterProxyModel(this)), view_(new QTableView),
      summary_(new QLabel) {
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
    layout->addWidget(view_);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        if (!current.isValid()) return;
        const AttentionInstance& a = model_->rows()[size_t(proxy_->mapToSource(current).row())];
        emit callSelected(a.event, a.start_ns, a.end_ns);
    });
    setCalls({}, 0);
}

void AttentionView::setCalls(std::vector<AttentionInstance> calls, int64_t begin_ns) {
    model_->setBegin(begin_ns);
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
