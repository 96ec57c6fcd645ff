#include "analysis/collective_findings.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "model/bench_stats.h"
#include "model/device_roofs.h"
#include "model/printf_string.h"
#include "model/recorded_steps.h"
#include "model/units.h"

namespace awb {

namespace {

// Each rank's median ProfilerStep (its steps' spans on the CPU); the trace's span for a rank without steps.
std::map<int32_t, int64_t> step_ns_by_rank(const Trace& trace) {
    std::map<int32_t, int64_t> out;
    const StepSpans steps(trace);
    for (const auto& [rank, spans] : steps.by_rank()) {
        std::vector<double> d;
        for (const StepSpans::Span& s : spans) d.push_back(double(s.end_ns - s.start_ns));
        out[rank] = int64_t(std::llround(quantile(d, 0.5)));
    }
    if (out.empty()) {
        const std::vector<int32_t> ranks = trace.meta().ranks.empty() ? std::vector<int32_t>{-1} : trace.meta().ranks;
        for (int32_t r : ranks) out[r] = trace.end_ns() - trace.begin_ns();
    }
    return out;
}

int64_t median_step(const std::map<int32_t, int64_t>& steps) {
    std::vector<double> v;
    for (const auto& [rank, ns] : steps) v.push_back(double(ns));
    return v.empty() ? 0 : int64_t(std::llround(quantile(v, 0.5)));
}

void straggler(const CollectiveReport& r, int64_t step_ns, const CollectiveThresholds& t, std::vector<Finding>& out) {
    if (r.straggler < 0 || step_ns <= 0) return;
    const auto s =
        std::find_if(r.ranks.begin(), r.ranks.end(), [&](const RankStraggle& x) { return x.rank == r.straggler; });
    // The wait it costs each other rank per step: what that rank could have computed instead.
    const size_t others = std::max<size_t>(r.ranks.size(), 2) - 1;
    const double per_step = double(s->caused_wait_ns) / std::max(r.steps, 1) / double(others);
    const double share = per_step / double(step_ns);
    if (share < t.straggler_share) return;
    Finding f;
    f.rule = "straggler";
    f.weight = share;
    f.title = printf_string(
        "Rank %d is the straggler: each of the other %zu ranks waited %s per step for it (%s of a %s step)",
        r.straggler, others, format_duration_ns(per_step).c_str(), format_share(share).c_str(),
        format_duration_ns(double(step_ns)).c_str());
    f.evidence.push_back(printf_string("it arrived last at %lld of %zu collectives; the others waited %s there in all",
                                       (long long)s->last_arrivals, r.matched.size(),
                                       format_duration_ns(double(s->caused_wait_ns)).c_str()));
    std::vector<const MatchedCollective*> worst;
    for (const MatchedCollective& m : r.matched)
        if (m.last_rank == r.straggler) worst.push_back(&m);
    std::sort(worst.begin(), worst.end(), [](auto* a, auto* b) { return a->skew_ns > b->skew_ns; });
    for (size_t i = 0; i < worst.size() && i < 3; ++i)
        f.evidence.push_back(printf_string("%s (group %s, step %d): arrival skew %s", worst[i]->name.c_str(),
                                           worst[i]->group.c_str(), worst[i]->step,
                                           format_duration_ns(double(worst[i]->skew_ns)).c_str()));
    f.action = printf_string(
        "Look at what rank %d does before these collectives (the Collectives tab marks them on every rank's lane): "
        "more data than the others (sequence lengths, batch composition), extra work on that rank only (logging, "
        "evaluation, checkpoints), a slower GPU or host. Balance the work per rank before tuning the collectives.",
        r.straggler);
    out.push_back(std::move(f));
}

void exposed(const OverlapReport& o, const std::map<int32_t, int64_t>& step_ns, int steps,
             const CollectiveThresholds& t, std::vector<Finding>& out) {
    const CommOverlap* worst = nullptr;
    double worst_share = 0;
    for (const CommOverlap& row : o.rows) {
        if (row.step >= 0) continue;
        const auto it = step_ns.find(row.rank);
        if (it == step_ns.end() || it->second <= 0) continue;
        const double share = double(row.exposed_ns()) / std::max(steps, 1) / double(it->second);
        if (share > worst_share) {
            worst_share = share;
            worst = &row;
        }
    }
    if (!worst || worst_share < t.exposed_share) return;
    Finding f;
    f.rule = "exposed-communication";
    f.weight = worst_share;
    f.title =
        printf_string("%s of a step is exposed communication on rank %d: %s per step with nothing computing beside it",
                      format_share(worst_share).c_str(), worst->rank,
                      format_duration_ns(double(worst->exposed_ns()) / std::max(steps, 1)).c_str());
    f.evidence.push_back(printf_string("rank %d communicates %s, %s of it hidden under computation (%s)", worst->rank,
                                       format_duration_ns(double(worst->comm_ns)).c_str(),
                                       format_duration_ns(double(worst->hidden_ns)).c_str(),
                                       format_share(worst->hidden_share()).c_str()));
    std::vector<std::pair<int64_t, std::string>> by;
    for (const auto& [name, ns] : worst->exposed_by_collective) by.emplace_back(ns, name);
    std::sort(by.rbegin(), by.rend());
    for (size_t i = 0; i < by.size() && i < 3; ++i)
        f.evidence.push_back(by[i].second + ": " + format_duration_ns(double(by[i].first)) + " exposed");
    f.action =
        "Overlap the communication with computation: issue the collectives earlier and wait later (async_op=True), "
        "DDP's gradient buckets (bucket_cap_mb) or FSDP's forward/backward prefetch; in tensor parallelism, sequence "
        "parallelism or fusing the all-reduce with the next GEMM. If a rank is late (a straggler), fix that first: "
        "its lateness shows here as exposed time on the others.";
    out.push_back(std::move(f));
}

void latency_bound(const CollectiveReport& r, const std::map<int32_t, int64_t>& step_ns, const CollectiveThresholds& t,
                   std::vector<Finding>& out) {
    std::map<int32_t, std::pair<int64_t, int64_t>> small;  // rank -> (count, time)
    std::map<std::string, int64_t> names;
    for (const CollectiveCall& c : r.calls)
        if (c.bytes >= 0 && c.bytes < t.small_bytes) {
            ++small[c.rank].first;
            small[c.rank].second += c.duration_ns();
            ++names[c.name];
        }
    for (const auto& [rank, s] : small) {
        const auto it = step_ns.find(rank);
        const int steps = std::max(r.steps, 1);
        if (it == step_ns.end() || it->second <= 0) continue;
        const double per_step = double(s.first) / steps, share = double(s.second) / steps / double(it->second);
        if (per_step < t.small_per_step || share < t.small_share) continue;
        Finding f;
        f.rule = "latency-bound";
        f.weight = share;
        f.title = printf_string(
            "%.0f collectives of under %s per step on rank %d take %s of the step: each pays the launch and "
            "latency cost more than it moves data",
            per_step, format_bytes(t.small_bytes).c_str(), rank, format_share(share).c_str());
        std::string kinds;
        for (const auto& [name, n] : names) kinds += (kinds.empty() ? "" : ", ") + name + " " + std::to_string(n);
        f.evidence.push_back("small collectives on every rank: " + kinds);
        f.action =
            "Coalesce them: bucket small tensors into one flat buffer (DDP's buckets, all_gather_into_tensor / "
            "reduce_scatter_tensor on a flattened parameter group, torch.distributed's coalescing manager).";
        out.push_back(std::move(f));
        return;  // one finding for the run: the first rank where it holds
    }
}

// A group within one node: at most 8 ranks, all in one block of 8 (how launchers number a node's GPUs).
bool within_a_node(const std::vector<int32_t>& ranks) {
    if (ranks.empty() || ranks.size() > 8) return false;
    return std::all_of(ranks.begin(), ranks.end(), [&](int32_t r) { return r / 8 == ranks.front() / 8; });
}

void low_bandwidth(const CollectiveReport& r, const std::string& device, const CollectiveThresholds& t,
                   std::vector<Finding>& out) {
    const DeviceRoof* roof = device.empty() ? nullptr : find_device_roof(device);
    if (!roof || roof->link_gb_s <= 0) return;
    std::vector<double> busbw;
    for (const MatchedCollective& m : r.matched) {
        if (m.bytes < t.large_bytes || m.busbw_gbps() <= 0 || m.name == "send_recv") continue;
        const CollectiveCall& first = r.calls[size_t(m.ranks.front().call)];
        if (within_a_node(first.group_ranks)) busbw.push_back(m.busbw_gbps());
    }
    if (busbw.empty()) return;
    const double median = quantile(busbw, 0.5);
    if (median >= t.link_share * roof->link_gb_s) return;
    Finding f;
    f.rule = "low-bandwidth";
    f.weight = 1.0 - median / roof->link_gb_s;
    f.title = printf_string(
        "Large collectives within a node move %.1f GB/s of bus bandwidth (median of %zu), %s of the %s's NVLink (%.0f "
        "GB/s a direction)",
        median, busbw.size(), format_share(median / roof->link_gb_s).c_str(), std::string(roof->name).c_str(),
        roof->link_gb_s);
    f.evidence.push_back(printf_string(
        "collectives of %s or more over groups of at most 8 ranks in one block of 8, bus bandwidth as nccl-tests "
        "counts it "
        "over the transfer time (the shortest rank's duration)",
        format_bytes(t.large_bytes).c_str()));
    f.action =
        "Check what the collectives go through: NCCL_DEBUG=INFO says the transport (P2P/NVLink, SHM, NET); a PCIe "
        "board or "
        "a group that spans nodes has less bandwidth than NVLink (then this is expected). Otherwise look at the NCCL "
        "algorithm "
        "and protocol (the kernel names say them), NCCL_P2P_DISABLE or NCCL_NVLS_ENABLE settings, and other traffic on "
        "the links.";
    out.push_back(std::move(f));
}

}  // namespace

void collective_findings(const Trace& trace, const RunAnalysis& analysis, std::vector<Finding>& out,
                         const std::string& device, const CollectiveThresholds& t) {
    if (analysis.collectives.calls.empty()) return;
    const std::map<int32_t, int64_t> steps = step_ns_by_rank(trace);
    straggler(analysis.collectives, median_step(steps), t, out);
    exposed(analysis.overlap, steps, analysis.collectives.steps, t, out);
    latency_bound(analysis.collectives, steps, t, out);
    low_bandwidth(analysis.collectives, device, t, out);
}

}  // namespace awb
