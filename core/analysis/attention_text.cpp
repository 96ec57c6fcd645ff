// The attention calls as text (attnwb inspect --attention), their totals and their share of the GPUs'
// busy time.
#include <algorithm>

#include <functional>

#include "analysis/attention.h"
#include "analysis/attention_columns.h"
#include "analysis/gpu_breakdown.h"
#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

// The text table's columns: every text column, the roof's two only where a roof applies.
std::vector<AttentionColumnInfo> text_columns(bool roofs) {
    std::vector<AttentionColumnInfo> out;
    for (const AttentionColumnInfo& c : columns_in(attention_column_list(), kInText))
        if (roofs || !c.needs_roof) out.push_back(c);
    return out;
}

std::string text_line(const std::vector<AttentionColumnInfo>& columns,
                      const std::function<std::string(const AttentionColumnInfo&)>& cell) {
    std::string out;
    for (size_t i = 0; i < columns.size(); ++i)
        out += (i == 0                       ? ""
                : columns[i].text_width == 0 ? "  "
                                             : " ") +
               fit_cell(cell(columns[i]), columns[i].text_width);
    return out + "\n";
}

}  // namespace

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
    const std::vector<AttentionColumnInfo> columns = text_columns(!roofs.empty());
    out += text_line(columns, [](const AttentionColumnInfo& c) { return std::string(c.text_title); });
    for (const AttentionGroup& g : groups) {
        const AttentionCellContext context = attention_context(g, totals.gpu_busy_ns, roofs);
        out += text_line(columns, [&](const AttentionColumnInfo& c) { return attention_cell(g, c.id, context); });
        for (const std::string& note : attention_notes(g.first)) out += "    " + note + "\n";
    }
    return out;
}

}  // namespace awb
