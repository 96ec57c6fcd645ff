#include "attention_view.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

#include "background.h"
#include "format_qt.h"
#include "model/printf_string.h"
#include "model/units.h"
#include "table_columns.h"

namespace awb::ui {

AttentionTableModel::AttentionTableModel(QObject* parent)
    : RowTableModel(
          {
              {"Library",
               "Whose attention: PyTorch SDPA, manual (matmul, softmax, matmul written out), or a library's or "
               "engine's "
               "(vLLM, SGLang, FlashInfer, flash-attn, xformers, aiter, TensorRT-LLM, FlexAttention, SageAttention, "
               "Triton)",
               true},
              {"Backend",
               "SDPA's backend (flash, memory-efficient, cuDNN, CPU flash or math, named by its inner ops), manual, or "
               "the "
               "library's op or kernel family (attnwb inspect --attention-rules lists them)",
               true},
              {"Pass", "forward or backward", true},
              {"Layout",
               "dense [B, H, N, D]; varlen: sequences packed as [tokens, H, D]; paged: against a KV cache in blocks; "
               "decode: one "
               "query token per sequence; (graph): ops recorded at capture, kernels replayed",
               true},
              {"Tokens", "Query rows of the call: B x Nq, or the packed tokens"},
              {"B",
               "Batch (sequences); 'BxH n' when the manual pattern folds the heads into the batch and the heads "
               "cannot be told"},
              {"Hq", "Query heads"},
              {"Hkv", "Key/value heads (fewer than Hq: grouped-query attention)"},
              {"Nq",
               "Query length; ? for a packed batch of several sequences (their lengths are data, not in the trace)"},
              {"Nk", "Key length; ? for a paged KV cache or a packed batch (the lengths are data, not in the trace)"},
              {"D", "Head dimension"},
              {"dtype", "Element type of the query, as the trace names it", true},
              {"Causal",
               "yes: is_causal (top-left, as PyTorch's); no: no mask; -: a mask tensor or not recorded (every pair "
               "counted)",
               true},
              {"Start", "When the call starts, from the start of the trace"},
              {"CPU (time)",
               "The call's CPU span (the manual pattern: first matmul to last); - for ops replayed from a CUDA graph "
               "and kernels "
               "with no op (they did not run on the CPU here)"},
              {"Device (time)", "Summed time of the kernels, copies and sets its ops launched"},
              {"% of step GPU",
               "Its device time over the busy time of its GPU in its ProfilerStep (or the whole trace without steps)"},
              {"Kernels", "Kernels, copies and sets it launched"},
              {"FLOP",
               "2 x visible pairs x (D + Dv) forward; backward 2.5x forward (FlashAttention, with recompute); ? where "
               "the trace "
               "does not give the sequences' lengths (hover the Notes)"},
              {"TFLOP/s", "FLOP over the device time (the CPU time where no kernel ran)"},
              {"GB/s",
               "Ideal bytes (Q, K, V, O once; backward also dO, dQ, dK, dV; a KV cache at its own element size) over "
               "the same time"},
              {"% of roof",
               "Achieved TFLOP/s over the attainable min(peak of the dtype, ideal bytes' intensity x bandwidth): the "
               "device table's roof for a GPU it lists (device time), the roof measured in our own run for the CPU "
               "(CPU time); - without one"},
              {"Bytes model",
               "Of ideal (each tensor once), scores (the [Nq, Nk] scores at every pass: 4 forward, 7 backward) and "
               "chunked "
               "(K, V re-read per 128-query block), the one whose roofline time max(FLOP / peak, bytes / bandwidth) is "
               "nearest "
               "the measured time; 'any' when all three are compute-bound",
               true},
              {"Notes",
               "Why a number is unknown, what the kernel's name adds (causal, window, fp8, paged, head dim: from the "
               "name only), "
               "the KV dtype, and whether the call was replayed from a graph",
               true},
          },
          Backend, parent) {}

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
        case Tokens: return double(a.query_tokens);
        case Batch: return double(s.batch);
        case HeadsQ: return double(s.heads_q);
        case HeadsKv: return double(s.heads_kv);
        case SeqQ: return double(s.seq_q);
        case SeqK: return double(s.seq_k);
        case HeadDim: return double(s.head_dim);
        case Start: return double(a.start_ns);
        case Cpu: return double(a.cpu_ns());
        case Device: return double(a.device_ns);
        case StepShare: return a.step_gpu_ns > 0 ? a.step_share() : -1;
        case Kernels: return double(a.kernels);
        case Flops: return a.flops;
        case Tflops: return a.tflops_per_s();
        case Gbs: return a.gb_per_s();
        case RoofShare: return fits_[size_t(r)].applies ? fits_[size_t(r)].share : -1;
        case Layout: return double(a.layout) * 2 + (a.decode ? 1 : 0);
        default: return 0;
    }
}

namespace {

QString notes_of(const AttentionInstance& a) { return QString::fromStdString(join(attention_notes(a))); }

QString dim_text(double v) { return v > 0 ? QString::number(qint64(v)) : QStringLiteral("?"); }

}  // namespace

QVariant AttentionTableModel::roleData(int r, int c, int role) const {
    if (role != Qt::ToolTipRole) return {};
    const AttentionInstance& a = row(r);
    if (c == Notes || (c == Flops && !a.costed()) || (c == SeqK && a.shape.seq_k <= 0)) {
        const QString notes = notes_of(a);
        return notes.isEmpty() ? QVariant() : QVariant(notes);
    }
    if (c == Library || c == Pass) return QString::fromStdString(a.op);
    return {};
}

QString AttentionTableModel::text(int r, int c) const {
    const AttentionInstance& a = row(r);
    const double v = value(r, c);
    switch (c) {
        case Library: return QString::fromStdString(a.library);
        case Backend: return QString::fromStdString(backend_text(a));
        case Pass: return a.backward ? tr("backward") : tr("forward");
        case Layout:
            return QString::fromStdString(to_string(a.layout)) + (a.decode ? tr(" decode") : QString()) +
                   (a.replayed   ? tr(" (graph)")
                    : a.captured ? tr(" (capture)")
                                 : QString());
        case Tokens:
        case Batch:
        case HeadsQ:
        case HeadsKv:
        case SeqQ:
        case SeqK:
        case HeadDim: return shapeText(a, c, v);
        case Dtype: return a.dtype.empty() ? QStringLiteral("?") : QString::fromStdString(a.dtype);
        case Causal: return QString::fromStdString(causal_text(a));
        case Start: return format_duration_ns(double(a.start_ns - begin_ns_));
        case Cpu:
        case Device:
        case StepShare:
        case Kernels: return timeText(a, c, v);
        case Flops:
        case Tflops:
        case Gbs:
        case RoofShare:
        case Bytes: return costText(r, c, v);
        case Notes: return notes_of(a);
        default: return {};
    }
}

QString AttentionTableModel::shapeText(const AttentionInstance& a, int c, double v) const {
    if (c == Batch && a.heads_folded) return tr("BxH %1").arg(dim_text(v));
    if (c == HeadsQ && a.heads_folded) return QStringLiteral("-");
    return dim_text(v);
}

QString AttentionTableModel::timeText(const AttentionInstance& a, int c, double v) const {
    switch (c) {
        case Cpu: return a.cpu_ns() > 0 ? format_duration_ns(v) : QStringLiteral("-");
        case Device: return a.device_ns > 0 ? format_duration_ns(v) : QStringLiteral("-");
        case StepShare: return v >= 0 ? QString::fromStdString(awb::format_share(v)) : QStringLiteral("-");
        default: return QString::number(a.kernels);
    }
}

QString AttentionTableModel::costText(int r, int c, double v) const {
    const AttentionInstance& a = row(r);
    const RoofFit& fit = fits_[size_t(r)];
    switch (c) {
        case Flops: return a.costed() ? QString::fromStdString(format_flops(v)) : QStringLiteral("?");
        case Tflops: return a.costed() && a.time_ns() > 0 ? QString::number(v, 'g', 4) : QStringLiteral("?");
        case Gbs: return a.bytes > 0 && a.time_ns() > 0 ? QString::number(v, 'g', 4) : QStringLiteral("?");
        case RoofShare: return v >= 0 ? QString::fromStdString(awb::format_share(v)) : QStringLiteral("-");
        default:
            return !fit.applies    ? QStringLiteral("-")
                   : fit.bytes.tie ? tr("any")
                                   : QString::fromStdString(to_string(fit.bytes.model));
    }
}

AttentionView::AttentionView(QWidget* parent)
    : QWidget(parent),
      model_(new AttentionTableModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      view_(new QTableView),
      summary_(new QLabel),
      roofline_(new RooflineChart) {
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
    // The table has two dozen columns: it gets three fifths and never less than a few of them; the
    // chart, two fifths (drag the handle for more).
    view_->setMinimumWidth(420);
    roofline_->setMinimumWidth(260);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setCollapsible(0, false);
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

void AttentionView::showRun(const NamedRun& run, bool large) {
    if (!run.result || !run.analysis) {
        setCalls({}, {}, 0);
        return;
    }
    const RunAnalysis& a = *run.analysis;
    setCalls(a.attention, a.roofs, run.result->trace.begin_ns(), a.gpu, large);
}

void AttentionView::setCalls(std::vector<AttentionInstance> calls, std::vector<Roof> roofs, int64_t begin_ns,
                             const std::vector<GpuBreakdown>& gpu, bool chart_later) {
    model_->setBegin(begin_ns);
    // The chart (two replots, tens of ms) in an event-loop turn of its own for a large trace.
    run_steps(this, chart_later, {[this, roofs, points = roofline_points(calls), generation = ++generation_] {
                  if (generation == generation_)
                      roofline_->setData(roofs, points);  // a point's index is its call's row
              }});
    model_->setRoofs(std::move(roofs));
    summary_->setText(
        calls.empty()
            ? tr("No attention calls in this run: none of scaled_dot_product_attention's ops, no library's or engine's "
                 "attention op or kernel (vLLM, SGLang, FlashInfer, flash-attn, xformers, aiter, TensorRT-LLM, Triton: "
                 "attnwb inspect --attention-rules lists them), and no matmul -> softmax -> matmul with recorded "
                 "shapes "
                 "(record_shapes=True)")
            : tr("Attention: %1. FLOP: 2 x visible pairs x (D + Dv) forward, backward 2.5x (FlashAttention's "
                 "convention); causal top-left as PyTorch's is_causal; ? where the trace does not hold the sequences' "
                 "lengths (hover the Notes). Select a call to see it in the timeline.")
                  .arg(QString::fromStdString(format_attention_totals(attention_totals(calls, gpu)))));
    model_->setRows(std::move(calls));
    fit_columns(view_, AttentionTableModel::Backend);
    view_->setColumnWidth(AttentionTableModel::Notes,
                          std::min(view_->columnWidth(AttentionTableModel::Notes), 420));  // the tooltip has it all
}

}  // namespace awb::ui
