// The attention calls as text (attnwb inspect --attention), their totals and their share of the GPUs'
// busy time.
#include <algorithm>

#include "analysis/attention.h"
#include "analysis/gpu_breakdown.h"
#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

std::string dim(int64_t v) { return v > 0 ? std::to_string(v) : std::string("?"); }
std::string text_or(bool present, const std::string& text, const char* absent) {
    return present ? text : std::string(absent);
}
std::string duration_or_dash(int64_t ns) { return text_or(ns > 0, format_duration_ns(double(ns)), "-"); }

std::vector<std::string> shape_cells(const AttentionInstance& a) {
    const AttentionShape& s = a.shape;
    return {dim(a.query_tokens),
            a.heads_folded ? "BxH " + dim(s.batch) : dim(s.batch),
            text_or(!a.heads_folded, dim(s.heads_q), "-"),
            dim(s.heads_kv),
            dim(s.seq_q),
            dim(s.seq_k),
            dim(s.head_dim)};
}

std::vector<std::string> cost_cells(const AttentionGroup& g) {
    const bool costed = g.flops > 0, timed = g.time_ns > 0;
    return {text_or(costed, format_flops(g.flops / double(g.calls)), "?"),
            text_or(costed && timed, printf_string("%.4g", g.tflops_per_s()), "?"),
            text_or(g.bytes > 0 && timed, printf_string("%.4g", g.gb_per_s()), "?")};
}

std::vector<std::string> roof_cells(const AttentionGroup& g, const std::vector<Roof>& roofs) {
    const Roof* roof = find_roof(roofs, g.first.dtype);
    const RoofFit fit = roof ? roof_fit(g, *roof) : RoofFit{};
    if (!fit.applies) return {"-", "-"};
    return {format_share(fit.share), fit.bytes.tie ? "=" : to_string(fit.bytes.model)};
}

template <typename T>
void append(std::vector<T>& to, std::vector<T> more) {
    to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

std::string group_row(const AttentionGroup& g, int64_t gpu_busy_ns, const std::vector<Roof>& roofs) {
    const std::vector<std::string> c = attention_cells(g, gpu_busy_ns, roofs);
    std::string out = printf_string(
        "%-14.14s %-30.30s %-4s %-16.16s %7s %9s %4s %4s %6s %6s %4s %-14.14s %-12s %6s %11s %11s %7s %13s %8s %8s",
        c[0].c_str(), c[1].c_str(), c[2].c_str(), c[3].c_str(), c[4].c_str(), c[5].c_str(), c[6].c_str(), c[7].c_str(),
        c[8].c_str(), c[9].c_str(), c[10].c_str(), c[11].c_str(), c[12].c_str(), c[13].c_str(), c[14].c_str(),
        c[15].c_str(), c[16].c_str(), c[17].c_str(), c[18].c_str(), c[19].c_str());
    if (!roofs.empty()) out += printf_string(" %10s  %s", c[20].c_str(), c[21].c_str());
    out += "\n";
    for (const std::string& note : attention_notes(g.first)) out += "    " + note + "\n";
    return out;
}

}  // namespace

const std::vector<std::string>& attention_columns() {
    static const std::vector<std::string> columns = {
        "library", "backend", "pass",      "layout",     "tokens", "B",         "Hq",     "Hkv",   "Nq",
        "Nk",      "D",       "dtype",     "causal",     "calls",  "CPU total", "device", "% GPU", "FLOP per call",
        "TFLOP/s", "GB/s",    "% of roof", "bytes model"};
    return columns;
}

std::vector<std::string> attention_cells(const AttentionGroup& g, int64_t gpu_busy_ns, const std::vector<Roof>& roofs) {
    const AttentionInstance& a = g.first;
    std::vector<std::string> cells = {a.library, backend_text(a), a.backward ? "bwd" : "fwd",
                                      to_string(a.layout) + (a.decode ? " decode" : "") +
                                          (a.replayed   ? " (graph)"
                                           : a.captured ? " (capture)"
                                                        : "")};
    append(cells, shape_cells(a));
    append(cells, {a.dtype.empty() ? "?" : a.dtype, causal_text(a), std::to_string(g.calls), duration_or_dash(g.cpu_ns),
                   duration_or_dash(g.device_ns),
                   text_or(g.device_ns > 0 && gpu_busy_ns > 0,
                           format_share(double(g.device_ns) / double(std::max<int64_t>(gpu_busy_ns, 1))), "-")});
    append(cells, cost_cells(g));
    append(cells, roof_cells(g, roofs));
    return cells;
}

std::vector<std::string> attention_notes(const AttentionInstance& a) {
    std::vector<std::string> notes;
    if (!a.missing.empty())
        notes.push_back((a.costed() ? "" : a.bytes > 0 ? "FLOPs unknown: " : "FLOPs and bytes unknown: ") + a.missing);
    if (!a.kv_dtype.empty()) notes.push_back("K, V: " + a.kv_dtype);
    if (!a.name_facts.empty()) notes.push_back("from the kernel's name: " + a.name_facts);
    if (a.replayed) notes.push_back("ops recorded while the graph was captured, kernels replayed: no CPU time here");
    if (a.captured)
        notes.push_back(
            "called while a CUDA graph was captured: its kernels were recorded into the graph, not run (no device time "
            "here)");
    return notes;
}

void set_step_gpu_time(std::vector<AttentionInstance>& calls, const std::vector<GpuBreakdown>& gpu) {
    for (AttentionInstance& a : calls) {
        a.step_gpu_ns = 0;
        if (a.device_ns <= 0) continue;
        for (const GpuBreakdown& row : gpu) {
            if (row.rank != a.rank || row.device_index != a.device_index) continue;
            const bool holds = row.step >= 0 && a.device_start_ns >= row.start_ns && a.device_start_ns < row.end_ns;
            if (row.step < 0 || holds)
                a.step_gpu_ns = row.busy_ns;  // the whole trace's row comes first; a step's replaces it
            if (holds) break;
        }
    }
}

AttentionTotals attention_totals(const std::vector<AttentionInstance>& calls, const std::vector<GpuBreakdown>& gpu) {
    AttentionTotals t;
    std::vector<std::pair<int32_t, int>> devices;
    for (const AttentionInstance& a : calls) {
        ++t.calls;
        t.cpu_ns += a.cpu_ns();
        t.device_ns += a.device_ns;
        t.flops += a.flops;
        if (!a.costed()) {
            ++t.uncosted_calls;
            t.device_uncosted_ns += a.device_ns;
        }
        if (a.device_ns > 0 &&
            std::find(devices.begin(), devices.end(), std::pair{a.rank, a.device_index}) == devices.end())
            devices.emplace_back(a.rank, a.device_index);
    }
    for (const GpuBreakdown& row : gpu)
        if (row.step < 0 &&
            std::find(devices.begin(), devices.end(), std::pair{row.rank, row.device_index}) != devices.end())
            t.gpu_busy_ns += row.busy_ns;
    return t;
}

std::string format_attention_totals(const AttentionTotals& t) {
    std::string out = printf_string("%lld call%s, CPU %s, device %s", (long long)t.calls, t.calls == 1 ? "" : "s",
                                    format_duration_ns(double(t.cpu_ns)).c_str(),
                                    t.device_ns > 0 ? format_duration_ns(double(t.device_ns)).c_str() : "none");
    if (t.gpu_busy_ns > 0)
        out += printf_string(" (%s of the GPUs' busy time, %s)", format_share(t.gpu_share()).c_str(),
                             format_duration_ns(double(t.gpu_busy_ns)).c_str());
    out += t.flops > 0 ? printf_string(", %s in all", format_flops(t.flops).c_str()) : std::string(", no FLOP count");
    if (t.uncosted_calls > 0)
        out += printf_string("; without a FLOP count: %lld call%s", (long long)t.uncosted_calls,
                             t.uncosted_calls == 1 ? "" : "s") +
               (t.device_ns > 0 ? printf_string(", %s = %s of the attention device time",
                                                format_duration_ns(double(t.device_uncosted_ns)).c_str(),
                                                format_share(1.0 - t.covered()).c_str())
                                : std::string());
    return out;
}

std::string format_attention(const std::vector<AttentionInstance>& instances, const std::vector<Roof>& roofs,
                             const std::vector<GpuBreakdown>& gpu) {
    if (instances.empty())
        return "Attention calls: none found (no scaled_dot_product_attention op, no library or engine attention op "
               "or kernel the rules "
               "know (attnwb inspect --attention-rules), and no matmul -> softmax -> matmul with matching recorded "
               "shapes: "
               "record_shapes=True is needed for the manual pattern)\n";
    const std::vector<AttentionGroup> groups = group_attention(instances);
    const AttentionTotals totals = attention_totals(instances, gpu);
    std::string out = printf_string("Attention calls: %zu in %zu groups: %s\n(%s)\n", instances.size(), groups.size(),
                                    format_attention_totals(totals).c_str(), attention_conventions().c_str());
    for (const Roof& r : roofs)
        out += printf_string("Roof for %s: %s, %s, %s, ridge %.1f FLOP/byte (%s)\n", r.dtype.c_str(), r.device.c_str(),
                             format_flop_rate(r.peak_tflops).c_str(), format_bandwidth(r.memory_tb_s).c_str(),
                             r.ridge(), r.source.c_str());
    if (!roofs.empty()) out += "B" + bytes_model_convention().substr(1) + "\n";
    const std::vector<std::string>& h = attention_columns();
    out += printf_string(
        "%-14s %-30s %-4s %-16s %7s %9s %4s %4s %6s %6s %4s %-14s %-12s %6s %11s %11s %7s %13s %8s %8s", h[0].c_str(),
        h[1].c_str(), h[2].c_str(), h[3].c_str(), h[4].c_str(), h[5].c_str(), h[6].c_str(), h[7].c_str(), h[8].c_str(),
        h[9].c_str(), h[10].c_str(), h[11].c_str(), h[12].c_str(), h[13].c_str(), h[14].c_str(), h[15].c_str(),
        h[16].c_str(), h[17].c_str(), h[18].c_str(), h[19].c_str());
    out += roofs.empty() ? "\n" : printf_string(" %10s  %s\n", h[20].c_str(), h[21].c_str());
    for (const AttentionGroup& g : groups) out += group_row(g, totals.gpu_busy_ns, roofs);
    return out;
}

}  // namespace awb
