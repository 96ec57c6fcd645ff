#include "analysis/checklist.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "analysis/results_text.h"
#include "model/recorded_steps.h"
#include "model/printf_string.h"
#include "model/units.h"

namespace awb {

namespace {

// What failed in a variant's check, in words: its own failure, else each tensor or mask check that
// failed with its error against the tolerance ("grad_k error 3.10e-05 = 3.1x the tolerance").
std::string variant_failure_text(const VariantCheck& v, double tolerance) {
    if (!v.failure.empty()) return v.failure;
    std::vector<std::string> parts;
    for (const auto& t : v.tensors)
        if (!t.passed)
            parts.push_back(t.finite ? printf_string("%s error %.2e = %.1fx the tolerance", t.name.c_str(), t.error,
                                                     tolerance > 0 ? t.error / tolerance : 0.0)
                                     : t.name + " not finite");
    for (const auto& mc : v.mask_checks)
        if (!mc.passed) parts.push_back(mc.name + ": " + mc.detail);
    return parts.empty() ? "no failing tensor recorded" : join(parts);
}

// The spec a measurement is about: the run's (when known), else the benchmark's, the check's.
const RunSpec* primary_spec(const Measurements& m) {
    if (m.run && m.run->spec_known) return &m.run->spec;
    if (m.bench) return &m.bench->spec;
    return nullptr;
}

// Equal but for the sequence lengths (and what follows them): points of one sweep curve.
RunSpec curve_key(RunSpec s) {
    s.seq_q = s.seq_k = 0;
    s.key_lengths.clear();
    s.seed = 0;
    return s;
}

RunSpec point_key(RunSpec s) {
    s.seed = 0;
    return s;
}

// The sweep's ok points on spec's curve (all ok points when spec is null).
std::vector<const SweepPoint*> curve_points(const SweepResult& sweep, const RunSpec* spec) {
    std::vector<const SweepPoint*> out;
    for (const auto& p : sweep.points)
        if (p.status == PointStatus::Ok && (!spec || curve_key(p.spec) == curve_key(*spec))) out.push_back(&p);
    return out;
}

bool only_check(const Measurements& m) { return m.check && !m.run && !m.bench && !m.sweep; }

ChecklistItem item(const char* id, const char* label) { return {id, label, ItemState::NotApplicable, ""}; }

void set(ChecklistItem& it, bool pass, std::string reason) {
    it.state = pass ? ItemState::Pass : ItemState::Fail;
    it.reason = std::move(reason);
}

ChecklistItem environment_item(const Measurements& m) {
    ChecklistItem it = item("environment", "torch version, device, driver, dtype and shapes recorded");
    std::vector<std::pair<std::string, const Environment*>> envs;
    if (m.run) envs.push_back({"the run", &m.run->environment});
    if (m.bench) envs.push_back({"the benchmark", &m.bench->environment});
    if (m.sweep) envs.push_back({"the sweep", &m.sweep->environment});
    if (m.check) envs.push_back({"the check", &m.check->environment});
    std::vector<std::string> missing;
    for (const auto& [who, e] : envs) {
        std::vector<std::string> gaps;
        if (e->torch_version.empty()) gaps.push_back("torch version");
        if (e->device.empty()) gaps.push_back("device");
        if (e->device_name.empty()) gaps.push_back("device name");
        if (e->device.rfind("cuda", 0) == 0 && e->driver_version.empty()) gaps.push_back("driver");
        if (e->device.rfind("cuda", 0) == 0 && e->cuda_version.empty()) gaps.push_back("CUDA version");
        if (!gaps.empty()) missing.push_back(who + " does not record its " + join(gaps, ", "));
    }
    if (m.run && !m.run->spec_known)
        missing.push_back(
            "the run is an imported trace without our metadata: no dtype or [B, H, N, D] (per-op shapes only)");
    for (size_t i = 1; i < envs.size(); ++i) {
        const Environment& a = *envs[0].second;
        const Environment& b = *envs[i].second;
        if (!a.torch_version.empty() && !b.torch_version.empty() && a.torch_version != b.torch_version)
            missing.push_back(envs[0].first + " ran on torch " + a.torch_version + ", " + envs[i].first + " on " +
                              b.torch_version);
        if (!a.device_name.empty() && !b.device_name.empty() && a.device_name != b.device_name)
            missing.push_back(envs[0].first + " ran on " + a.device_name + ", " + envs[i].first + " on " +
                              b.device_name);
    }
    if (!missing.empty()) {
        set(it, false, join(missing));
        return it;
    }
    if (envs.empty()) {
        set(it, false, "nothing was measured");
        return it;
    }
    const Environment& e = *envs[0].second;
    std::string reason = "torch " + e.torch_version + ", " + e.device + " (" + e.device_name + ")";
    reason += e.device.rfind("cuda", 0) == 0 ? ", CUDA " + e.cuda_version + ", driver " + e.driver_version
                                             : ", no driver on CPU";
    const RunSpec* spec = primary_spec(m);
    if (spec)
        reason += ", " + to_string(spec->dtype) + ", " + shape_string(*spec) + " [B,H,N,D]";
    else if (m.sweep)
        reason += ", " + to_string(m.sweep->plan.base.dtype) + " and the shapes of every point";
    else if (m.check)
        reason += ", " + to_string(m.check->spec.dtype) + ", " + shape_string(m.check->spec) + " [B,H,N,D]";
    for (const ModuleIdentity& module : e.modules) reason += "; module " + describe_module(module);
    set(it, true, reason);
    return it;
}

ChecklistItem scope_item(const Measurements& m) {
    ChecklistItem it = item("scope", "forward, backward or full step stated");
    const RunSpec* spec = primary_spec(m);
    if (!spec && m.sweep) spec = &m.sweep->plan.base;
    if (spec)
        set(it, true,
            spec->mode == Mode::Train ? "a full step: forward + backward (mode train)"
                                      : "forward only (mode forward, no backward)");
    else if (m.check)
        set(it, true, "forward + backward: the check compares the output and the q, k, v gradients");
    else
        set(it, false, "the trace does not say what a step holds (forward, backward or a full training step)");
    return it;
}

// k of the first step span in the trace (PyTorch numbers steps from the profiler's start), -1 if none.
int first_profiler_step(const Trace& trace) {
    int first = -1;
    for (size_t i : step_span_events(trace))
        if (const int k = profiler_step_number(trace.events()[i].name); first < 0 || k < first) first = k;
    return first;
}

std::string sync_words(const std::string& device) {
    return device.rfind("cuda", 0) == 0 ? "timed after torch.cuda.synchronize" : "CPU ops are synchronous";
}

ChecklistItem warmup_item(const Measurements& m) {
    ChecklistItem it = item("warm-up", "warm-up done, timing synchronised");
    if (only_check(m)) {
        it.reason = "a correctness check times nothing";
        return it;
    }
    std::vector<std::string> ok, bad;
    if (m.run) {
        int first = -1;
        for (const auto& s : m.run->steps)
            if (s.action == ScheduleAction::Record || s.action == ScheduleAction::RecordAndSave) {
                first = s.step;
                break;
            }
        const std::string device = m.run->spec_known ? to_string(m.run->spec.device) : m.run->environment.device;
        int first_in_trace = first_profiler_step(m.run->trace);
        if (!m.run->spec_known) {  // a foreign trace's steps are its ProfilerStep#k spans, not a schedule of ours
            if (first_in_trace < 0) first_in_trace = first;
            first = -1;
        }
        if (first < 0 && first_in_trace > 0)
            ok.push_back(
                printf_string("the first recorded step is ProfilerStep#%d: %d step(s) ran before it (wait/warmup)",
                              first_in_trace, first_in_trace));
        else if (first < 0 && first_in_trace == 0)
            bad.push_back(
                "ProfilerStep#0 is recorded: the cold first step (allocator, lazy initialisation) is in the profile; "
                "use schedule(wait >= 1 or warmup >= 1)");
        else if (first < 0)
            bad.push_back("the run has no step records: whether warm-up steps ran before the recorded ones is unknown");
        else if (first == 0)
            bad.push_back(
                "step 0 (cold: allocator, lazy initialisation, kernel selection) is among the recorded steps; "
                "use wait >= 1 or warmup >= 1");
        else
            ok.push_back(printf_string("profiled steps start at step %d (wait=%d, warmup=%d), ", first,
                                       m.run->options.wait, m.run->options.warmup) +
                         sync_words(device));
    }
    if (m.bench) {
        if (m.bench->warmup_iterations < 1)
            bad.push_back("the benchmark timed without warm-up iterations (--warmup 0)");
        else
            ok.push_back(printf_string("benchmark: cold iteration apart, %d warm-up iteration(s), timer ",
                                       m.bench->warmup_iterations) +
                         m.bench->timer);
    }
    if (m.sweep) {
        if (m.sweep->plan.bench.warmup < 1)
            bad.push_back("the sweep timed without warm-up iterations (--warmup 0)");
        else
            ok.push_back(printf_string("sweep: %d warm-up iteration(s) per point, ", m.sweep->plan.bench.warmup) +
                         sync_words(to_string(m.sweep->plan.base.device)));
    }
    if (bad.empty())
        set(it, true, join(ok));
    else
        set(it, false, join(bad));
    return it;
}

ChecklistItem collected_item(const Measurements& m) {
    ChecklistItem it = item("collected", "self time, call counts, shapes and memory collected");
    if (only_check(m)) {
        it.reason = "a correctness check times nothing";
        return it;
    }
    if (m.run && m.run->trace.events().empty() && m.run->spec_known) {  // read from a report: its options say
        const ProfileOptions& o = m.run->options;
        if (!o.record_shapes || !o.profile_memory)
            set(it, false,
                std::string("the run was profiled without ") +
                    (o.record_shapes ? "" : "input shapes (record_shapes) ") +
                    (o.profile_memory ? "" : "memory (profile_memory)"));
        else
            set(it, true, "self and total time, calls, input shapes and memory (record_shapes and profile_memory on)");
        return it;
    }
    if (m.run) {
        const Trace& trace = m.run->trace;
        bool shapes = false;
        for (const auto& e : trace.events())
            if (!e.shapes().empty()) {
                shapes = true;
                break;
            }
        const bool memory = !trace.memory().empty() || m.run->device_peak_bytes > 0;
        std::vector<std::string> gaps;
        if (trace.events().empty()) gaps.push_back("operator events");
        if (!shapes) gaps.push_back("input shapes (record_shapes)");
        if (!memory) gaps.push_back("memory (profile_memory)");
        if (!gaps.empty()) {
            set(it, false, "the profile has no " + join(gaps, ", no ") + ": re-profile with them on");
            return it;
        }
        set(it, true,
            printf_string("self and total time, calls and input shapes of %zu events; %zu [memory] events",
                          trace.events().size(), trace.memory().size()) +
                (m.run->device_peak_bytes > 0 ? ", CUDA allocator peak " + format_mib(m.run->device_peak_bytes) : ""));
        return it;
    }
    if (m.sweep && m.sweep->plan.profile) {
        const ProfileOptions& o = m.sweep->plan.profile_options;
        if (!o.record_shapes || !o.profile_memory) {
            set(it, false,
                std::string("the sweep profiled each point without ") + (o.record_shapes ? "" : "shapes ") +
                    (o.profile_memory ? "" : "memory"));
            return it;
        }
        set(it, true, "an operator table (self time, calls, shapes, memory) for each sweep point");
        return it;
    }
    set(it, false,
        "profiler-off timings only: no self times, call counts or shapes; profile the same spec "
        "(attnwb profile, or Run in the workbench) to see where the time goes");
    return it;
}

ChecklistItem lengths_item(const Measurements& m) {
    ChecklistItem it = item("lengths", "several sequence lengths measured");
    if (only_check(m)) {
        it.reason = "a correctness check at one shape";
        return it;
    }
    std::set<int64_t> lengths;
    if (m.sweep)
        for (const SweepPoint* p : curve_points(*m.sweep, primary_spec(m))) lengths.insert(p->spec.seq_k);
    std::string list;
    for (int64_t n : lengths) list += (list.empty() ? "" : ", ") + std::to_string(n);
    if (lengths.size() >= 3) {
        set(it, true, "N = " + list + " measured" + (primary_spec(m) ? " for this spec" : ""));
        return it;
    }
    const RunSpec* spec = primary_spec(m);
    std::string reason = m.sweep ? (lengths.empty() ? std::string("the sweep has no finished point of this spec")
                                                    : "only N = " + list + " measured")
                         : spec  ? "one length measured (N = " + std::to_string(spec->seq_k) + ")"
                                 : std::string("one trace, one length");
    set(it, false,
        reason +
            "; time and memory are not linear in N: sweep three or more (attnwb sweep --seq 256,512,1024,2048, "
            "or Sweep in the workbench)");
    return it;
}

ChecklistItem profiler_off_item(const Measurements& m) {
    ChecklistItem it = item("profiler-off", "re-measured with the profiler off");
    if (only_check(m)) {
        it.reason = "a correctness check times nothing";
        return it;
    }
    const double profiled = m.run ? median_recorded_step_ns(*m.run) : -1;
    auto overhead = [&](double off_ns) {
        return profiled > 0 && off_ns > 0
                   ? printf_string("; profiled step %s (%.2fx)", format_ms(profiled).c_str(), profiled / off_ns)
                   : std::string();
    };
    const RunSpec* run_spec = m.run && m.run->spec_known ? &m.run->spec : nullptr;
    if (m.bench && (!run_spec || point_key(m.bench->spec) == point_key(*run_spec))) {
        const TimingStats& t = m.bench->timing;
        std::string reason = "profiler-off median " + format_ms(t.median_ns) + " (p10 " + format_ms(t.p10_ns) +
                             ", p90 " + format_ms(t.p90_ns) + printf_string(", %d samples)", t.repeats);
        if (m.bench->profiler_overhead > 0)
            reason += printf_string("; profiled step %s (%.2fx)", format_ms(m.bench->profiled_step_ns).c_str(),
                                    m.bench->profiler_overhead);
        else
            reason += overhead(t.median_ns);
        set(it, true, reason);
        return it;
    }
    if (m.sweep) {
        if (!run_spec) {
            set(it, true, "every sweep point is timed with the profiler off");
            return it;
        }
        for (const auto& p : m.sweep->points)
            if (p.status == PointStatus::Ok && point_key(p.spec) == point_key(*run_spec)) {
                set(it, true,
                    "the sweep's point of this spec: profiler-off median " + format_ms(p.bench.timing.median_ns) +
                        overhead(p.bench.timing.median_ns));
                return it;
            }
    }
    std::string reason =
        m.bench || m.sweep ? "the benchmark or sweep does not cover this run's spec" : "only profiled step times";
    if (profiled > 0) reason += " (median " + format_ms(profiled) + ", profiler overhead included)";
    set(it, false,
        reason + ": time the same spec with the profiler off (attnwb bench, or a sweep point in the workbench)");
    return it;
}

// The manual formula in float32/float64: what the other variants are checked against.
bool is_reference(const std::string& variant, Dtype dtype) {
    return variant == "manual" && (dtype == Dtype::Float32 || dtype == Dtype::Float64);
}

ChecklistItem numerical_item(const Measurements& m) {
    ChecklistItem it = item("numerical", "numerical correctness checked against the reference");
    // The (variant, dtype) pairs whose timings are reported.
    std::set<std::pair<std::string, Dtype>> measured;
    if (m.run && m.run->spec_known) measured.insert({m.run->spec.variant, m.run->spec.dtype});
    if (m.bench) measured.insert({m.bench->spec.variant, m.bench->spec.dtype});
    if (m.sweep)
        for (const auto& p : m.sweep->points) measured.insert({p.spec.variant, p.spec.dtype});
    if (!m.check) {
        if (m.run && !m.run->spec_known && measured.empty()) {
            set(it, false, "an imported trace: nothing says which attention it ran or whether it was checked");
            return it;
        }
        std::string names;
        for (const auto& [v, d] : measured)
            if (!is_reference(v, d)) names += (names.empty() ? "" : ", ") + v + " " + to_string(d);
        if (names.empty() && !measured.empty()) {
            it.reason = "the manual formula in float32/float64 is the reference the other variants are checked against";
            return it;
        }
        set(it, false,
            "not checked: " + names + " against the float64 reference (attnwb check --variant ... --dtype ...)");
        return it;
    }
    const CheckReport& c = *m.check;
    std::vector<std::string> bad;
    for (const auto& v : c.variants)
        if (!v.passed) bad.push_back(v.variant + " out of tolerance (" + variant_failure_text(v, c.tolerance) + ")");
    for (const auto& entry : measured) {
        const std::string& variant = entry.first;  // not a structured binding: the lambda below captures it
        const Dtype dtype = entry.second;
        if (is_reference(variant, dtype)) continue;
        const bool covered =
            c.spec.dtype == dtype && std::any_of(c.variants.begin(), c.variants.end(),
                                                 [&](const VariantCheck& v) { return v.variant == variant; });
        if (!covered) bad.push_back(variant + " " + to_string(dtype) + " was not checked");
    }
    if (!bad.empty()) {
        set(it, false, join(bad));
        return it;
    }
    double worst = 0;
    std::string names;
    for (const auto& v : c.variants) {
        names += (names.empty() ? "" : ", ") + v.variant;
        for (const auto& t : v.tensors) worst = std::max(worst, t.error);
    }
    set(it, true,
        names + " in " + to_string(c.spec.dtype) +
            printf_string(": output and q, k, v gradients within %.1e of the float64 reference (worst %.2e)",
                          c.tolerance, worst) +
            (c.spec.mask != MaskKind::None ? ", mask semantics checked" : ""));
    return it;
}

}  // namespace

size_t points_on_curve(const SweepResult& sweep, const RunSpec& spec) { return curve_points(sweep, &spec).size(); }

std::string to_string(ItemState s) {
    switch (s) {
        case ItemState::Pass: return "pass";
        case ItemState::Fail: return "fail";
        case ItemState::NotApplicable: break;
    }
    return "n/a";
}

std::vector<ChecklistItem> measurement_checklist(const Measurements& m) {
    return {environment_item(m), scope_item(m),        warmup_item(m),   collected_item(m),
            lengths_item(m),     profiler_off_item(m), numerical_item(m)};
}

std::string format_checklist(const std::vector<ChecklistItem>& items) {
    int pass = 0, fail = 0, na = 0;
    for (const auto& i : items) (i.state == ItemState::Pass ? pass : i.state == ItemState::Fail ? fail : na)++;
    std::string out =
        printf_string("Measurement checklist: %d of %zu pass, %d fail, %d n/a\n", pass, items.size(), fail, na);
    for (const auto& i : items)
        out += printf_string("  [%-4s] ", to_string(i.state).c_str()) + i.label + ": " + i.reason + "\n";
    return out;
}

nlohmann::json checklist_json(const std::vector<ChecklistItem>& items) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& i : items)
        out.push_back({{"id", i.id}, {"label", i.label}, {"state", to_string(i.state)}, {"reason", i.reason}});
    return out;
}

std::vector<ChecklistItem> checklist_from_json(const nlohmann::json& j) {
    std::vector<ChecklistItem> out;
    for (const auto& e : j) {
        ChecklistItem i{e.at("id").get<std::string>(), e.at("label").get<std::string>(), ItemState::NotApplicable,
                        e.at("reason").get<std::string>()};
        const std::string state = e.at("state").get<std::string>();
        i.state = state == "pass" ? ItemState::Pass : state == "fail" ? ItemState::Fail : ItemState::NotApplicable;
        out.push_back(std::move(i));
    }
    return out;
}

}  // namespace awb
