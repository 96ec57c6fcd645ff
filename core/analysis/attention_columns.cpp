#include "analysis/attention_columns.h"

#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

constexpr unsigned kAttTextHtml = kInText | kInHtml;
constexpr unsigned kAttGuiHtml = kInGui | kInHtml;

using AC = AttentionColumn;
using U = CellUnit;

// clang-format off
const std::vector<AttentionColumnInfo> kAttentionColumns = {
        {AC::Library, "Library", "library",
         "Whose attention: PyTorch SDPA, manual (matmul, softmax, matmul written out), or a library's or engine's "
         "(vLLM, SGLang, FlashInfer, flash-attn, xformers, aiter, TensorRT-LLM, FlexAttention, SageAttention, Triton)",
         U::Text, kInAll, -14, false},
        {AC::Backend, "Backend", "backend",
         "SDPA's backend (flash, memory-efficient, cuDNN, CPU flash or math, named by its inner ops), manual, or the "
         "library's op or kernel family (attnwb inspect --attention-rules lists them)",
         U::Text, kInAll, -30, false},
        {AC::Pass, "Pass", "pass", "fwd: forward; bwd: backward", U::Text, kInAll, -4, false},
        {AC::Layout, "Layout", "layout",
         "dense [B, H, N, D]; varlen: sequences packed as [tokens, H, D]; paged: against a KV cache in blocks; "
         "decode: one query token per sequence; (graph): ops recorded at capture, kernels replayed",
         U::Label, kInAll, -16, false},
        {AC::Tokens, "Tokens", "tokens", "Query rows of the call: B x Nq, or the packed tokens", U::Count, kInAll, 7,
         false},
        {AC::Batch, "B", "B",
         "Batch (sequences); 'BxH n' when the manual pattern folds the heads into the batch and the heads cannot "
         "be told",
         U::Count, kInAll, 9, false},
        {AC::HeadsQ, "Hq", "Hq", "Query heads", U::Count, kInAll, 4, false},
        {AC::HeadsKv, "Hkv", "Hkv", "Key/value heads (fewer than Hq: grouped-query attention)", U::Count, kInAll, 4,
         false},
        {AC::SeqQ, "Nq", "Nq",
         "Query length; ? for a packed batch of several sequences (their lengths are data, not in the trace)",
         U::Count, kInAll, 6, false},
        {AC::SeqK, "Nk", "Nk",
         "Key length; ? for a paged KV cache or a packed batch (the lengths are data, not in the trace)",
         U::Count, kInAll, 6, false},
        {AC::HeadDim, "D", "D", "Head dimension", U::Count, kInAll, 4, false},
        {AC::Dtype, "dtype", "dtype", "Element type of the query, as the trace names it", U::Text, kInAll, -14, false},
        {AC::Causal, "Causal", "causal",
         "yes: is_causal (top-left, as PyTorch's); no: no mask; -: a mask tensor or not recorded (every pair "
         "counted)",
         U::Text, kInAll, -12, false},
        {AC::Calls, "Calls", "calls", "Calls in the group", U::Count, kAttTextHtml, 6, false},
        {AC::Start, "Start", "start", "When the call starts, from the start of the trace", U::Duration, kInGui, 0,
         false},
        {AC::Cpu, "CPU (time)", "CPU total",
         "The call's CPU span (the manual pattern: first matmul to last); - for ops replayed from a CUDA graph and "
         "kernels with no op (they did not run on the CPU here)",
         U::Duration, kInAll, 11, false},
        {AC::Device, "Device (time)", "device", "Summed time of the kernels, copies and sets its ops launched",
         U::Duration, kInAll, 11, false},
        {AC::StepShare, "% of step GPU", "% of step GPU",
         "Its device time over the busy time of its GPU in its ProfilerStep (or the whole trace without steps)",
         U::Share, kInGui, 0, false},
        {AC::GpuShare, "% GPU", "% GPU", "The group's device time over the busy time of the GPUs its calls ran on",
         U::Share, kAttTextHtml, 7, false},
        {AC::Kernels, "Kernels", "kernels", "Kernels, copies and sets it launched", U::Count, kInGui, 0, false},
        {AC::Flops, "FLOP", "FLOP per call",
         "2 x visible pairs x (D + Dv) forward; backward 2.5x forward (FlashAttention, with recompute); ? where the "
         "trace does not give the sequences' lengths (hover the Notes)",
         U::Count, kInAll, 13, false},
        {AC::Tflops, "TFLOP/s", "TFLOP/s", "FLOP over the device time (the CPU time where no kernel ran)",
         U::Count, kInAll, 8, false},
        {AC::Gbs, "GB/s", "GB/s",
         "Ideal bytes (Q, K, V, O once; backward also dO, dQ, dK, dV; a KV cache at its own element size) over the "
         "same time",
         U::Count, kInAll, 8, false},
        {AC::RoofShare, "% of roof", "% of roof",
         "Achieved TFLOP/s over the attainable min(peak of the dtype, ideal bytes' intensity x bandwidth): the "
         "device table's roof for a GPU it lists (device time), the roof measured in our own run for the CPU (CPU "
         "time); - without one",
         U::Share, kInAll, 10, true},
        {AC::BytesModel, "Bytes model", "bytes model",
         "Of ideal (each tensor once), scores (the [Nq, Nk] scores at every pass: 4 forward, 7 backward) and chunked "
         "(K, V re-read per 128-query block), the one whose roofline time max(FLOP / peak, bytes / bandwidth) is "
         "nearest the measured time; 'any' when all three are compute-bound",
         U::Text, kInAll, 0, true},
        {AC::Notes, "Notes", "notes",
         "Why a number is unknown, what the kernel's name adds (causal, window, fp8, paged, head dim: from the name "
         "only), the KV dtype, and whether the call was replayed from a graph",
         U::Text, kAttGuiHtml, 0, false},
};
// clang-format on

std::string dim(double v) { return v > 0 ? std::to_string(int64_t(v)) : std::string("?"); }
std::string rate(bool known, double v) { return known ? printf_string("%.4g", v) : std::string("?"); }

}  // namespace

const std::vector<AttentionColumnInfo>& attention_column_list() { return kAttentionColumns; }

AttentionCellContext attention_context(const AttentionGroup& g, int64_t gpu_busy_ns, const std::vector<Roof>& roofs) {
    AttentionCellContext context;
    context.gpu_busy_ns = gpu_busy_ns;
    if (const Roof* roof = find_roof(roofs, g.first.dtype)) context.fit = roof_fit(g, *roof);
    return context;
}

double attention_value(const AttentionGroup& g, AttentionColumn column, const AttentionCellContext& ctx) {
    const AttentionInstance& a = g.first;
    const AttentionShape& s = a.shape;
    switch (column) {
        case AttentionColumn::Layout: return double(a.layout) * 2 + (a.decode ? 1 : 0);
        case AttentionColumn::Tokens: return double(a.query_tokens);
        case AttentionColumn::Batch: return double(s.batch);
        case AttentionColumn::HeadsQ: return double(s.heads_q);
        case AttentionColumn::HeadsKv: return double(s.heads_kv);
        case AttentionColumn::SeqQ: return double(s.seq_q);
        case AttentionColumn::SeqK: return double(s.seq_k);
        case AttentionColumn::HeadDim: return double(s.head_dim);
        case AttentionColumn::Calls: return double(g.calls);
        case AttentionColumn::Start: return double(a.start_ns - ctx.begin_ns);
        case AttentionColumn::Cpu: return double(g.cpu_ns);
        case AttentionColumn::Device: return double(g.device_ns);
        case AttentionColumn::StepShare: return a.step_gpu_ns > 0 && g.calls == 1 ? a.step_share() : -1;
        case AttentionColumn::GpuShare:
            return g.device_ns > 0 && ctx.gpu_busy_ns > 0 ? double(g.device_ns) / double(ctx.gpu_busy_ns) : -1;
        case AttentionColumn::Kernels: return double(g.kernels);
        case AttentionColumn::Flops: return g.calls > 0 ? g.flops / double(g.calls) : 0;
        case AttentionColumn::Tflops: return g.tflops_per_s();
        case AttentionColumn::Gbs: return g.gb_per_s();
        case AttentionColumn::RoofShare: return ctx.fit.applies ? ctx.fit.share : -1;
        default: return 0;
    }
}

namespace {

// What the call was: whose, which backend, pass and layout, its dtype and mask.
std::string call_cell(const AttentionInstance& a, AttentionColumn column) {
    switch (column) {
        case AC::Library: return a.library;
        case AC::Backend: return backend_text(a);
        case AC::Pass: return a.backward ? "bwd" : "fwd";
        case AC::Layout:
            return to_string(a.layout) + (a.decode ? " decode" : "") +
                   (a.replayed   ? " (graph)"
                    : a.captured ? " (capture)"
                                 : "");
        case AC::Dtype: return a.dtype.empty() ? "?" : a.dtype;
        case AC::Causal: return causal_text(a);
        case AC::Notes: return join(attention_notes(a));
        default: return {};
    }
}

// Its shape: "?" where the trace does not give a dimension.
std::string shape_cell(const AttentionInstance& a, AttentionColumn column, double v) {
    if (column == AC::Batch && a.heads_folded) return "BxH " + dim(v);
    if (column == AC::HeadsQ && a.heads_folded) return "-";
    return dim(v);
}

// Its cost: "?" where the FLOP or the bytes are unknown.
std::string cost_cell(const AttentionGroup& g, AttentionColumn column, double v, const RoofFit& fit) {
    const bool costed = g.flops > 0, timed = g.time_ns > 0;
    switch (column) {
        case AC::Flops: return costed ? format_flops(v) : "?";
        case AC::Tflops: return rate(costed && timed, v);
        case AC::Gbs: return rate(g.bytes > 0 && timed, v);
        default: return !fit.applies ? "-" : fit.bytes.tie ? "any" : to_string(fit.bytes.model);
    }
}

}  // namespace

std::string attention_cell(const AttentionGroup& g, AttentionColumn column, const AttentionCellContext& ctx) {
    const double v = attention_value(g, column, ctx);
    switch (column) {
        case AC::Tokens:
        case AC::Batch:
        case AC::HeadsQ:
        case AC::HeadsKv:
        case AC::SeqQ:
        case AC::SeqK:
        case AC::HeadDim: return shape_cell(g.first, column, v);
        case AC::Calls:
        case AC::Kernels: return std::to_string(int64_t(v));
        case AC::Start: return format_duration_ns(v);
        case AC::Cpu:
        case AC::Device: return v > 0 ? format_duration_ns(v) : "-";
        case AC::StepShare:
        case AC::GpuShare:
        case AC::RoofShare: return v >= 0 ? format_share(v) : "-";
        case AC::Flops:
        case AC::Tflops:
        case AC::Gbs:
        case AC::BytesModel: return cost_cell(g, column, v, ctx.fit);
        default: return call_cell(g.first, column);
    }
}

}  // namespace awb
