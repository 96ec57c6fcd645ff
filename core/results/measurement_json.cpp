#include "results/measurement_json.h"

#include <cstdio>
#include <stdexcept>

#include "analysis/sweep_analysis.h"
#include "io/json_read.h"
#include "model/printf_string.h"
#include "results/run_json.h"

namespace awb {

using nlohmann::json;

namespace {

json file_header(const char* schema) { return json{{"schema", schema}, {"schema_version", kResultsVersion}}; }

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

}  // namespace

// Found by ADL from nlohmann's serializer, so in namespace awb (not the anonymous one).
void to_json(json& j, const TimingStats& t) {
    j = json{{"repeats", t.repeats},     {"iterations_per_sample", t.iterations_per_sample},
             {"median_ns", t.median_ns}, {"p10_ns", t.p10_ns},
             {"p90_ns", t.p90_ns},       {"min_ns", t.min_ns},
             {"max_ns", t.max_ns},       {"mean_ns", t.mean_ns}};
}

void from_json(const json& j, TimingStats& t) {
    t.repeats = int_at<int>(j, "repeats");
    t.iterations_per_sample = int_at<int>(j, "iterations_per_sample");
    t.median_ns = j.at("median_ns").get<double>();
    t.p10_ns = j.at("p10_ns").get<double>();
    t.p90_ns = j.at("p90_ns").get<double>();
    t.min_ns = j.at("min_ns").get<double>();
    t.max_ns = j.at("max_ns").get<double>();
    t.mean_ns = j.at("mean_ns").get<double>();
}

void to_json(json& j, const PowerFit& f) {
    j = json{
        {"exponent", f.exponent}, {"coefficient", f.coefficient}, {"r_squared", f.r_squared}, {"points", f.points}};
}

void to_json(json& j, const TensorError& e) {
    j = json{{"name", e.name},
             {"max_abs_error", e.max_abs_error},
             {"max_rel_error", e.max_rel_error},
             {"ref_max_abs", e.ref_max_abs},
             {"error", e.error},
             {"finite", e.finite},
             {"passed", e.passed}};
}

void from_json(const json& j, TensorError& e) {
    e.name = j.at("name").get<std::string>();
    e.max_abs_error = j.at("max_abs_error").get<double>();
    e.max_rel_error = j.at("max_rel_error").get<double>();
    e.ref_max_abs = j.at("ref_max_abs").get<double>();
    e.error = j.at("error").get<double>();
    e.finite = j.at("finite").get<bool>();
    e.passed = j.at("passed").get<bool>();
}

void to_json(json& j, const MaskCheck& m) { j = json{{"name", m.name}, {"passed", m.passed}, {"detail", m.detail}}; }

void from_json(const json& j, MaskCheck& m) {
    m.name = j.at("name").get<std::string>();
    m.passed = j.at("passed").get<bool>();
    m.detail = j.at("detail").get<std::string>();
}

void to_json(json& j, const VariantCheck& v) {
    j = json{{"variant", v.variant},
             {"failure", v.failure},
             {"tensors", v.tensors},
             {"mask_checks", v.mask_checks},
             {"passed", v.passed}};
    if (!v.reference.empty()) j["reference"] = v.reference;
    if (!v.note.empty()) j["note"] = v.note;
}

void from_json(const json& j, VariantCheck& v) {
    v.variant = j.at("variant").get<std::string>();
    v.failure = j.at("failure").get<std::string>();
    v.tensors = j.at("tensors").get<std::vector<TensorError>>();
    v.mask_checks = j.at("mask_checks").get<std::vector<MaskCheck>>();
    v.passed = j.at("passed").get<bool>();
    v.reference = j.contains("reference") && j["reference"].is_string() ? j["reference"].get<std::string>() : "";
    v.note = j.contains("note") && j["note"].is_string() ? j["note"].get<std::string>() : "";
}

void to_json(json& j, const BenchOptions& o) {
    j = json{{"warmup", o.warmup},
             {"budget_s", o.budget_s},
             {"min_repeats", o.min_repeats},
             {"max_repeats", o.max_repeats},
             {"min_sample_s", o.min_sample_s},
             {"measure_memory", o.measure_memory},
             {"measure_roof", o.measure_roof}};
}

void from_json(const json& j, BenchOptions& o) {
    o.warmup = int_at<int>(j, "warmup");
    o.budget_s = j.at("budget_s").get<double>();
    o.min_repeats = int_at<int>(j, "min_repeats");
    o.max_repeats = int_at<int>(j, "max_repeats");
    o.min_sample_s = j.at("min_sample_s").get<double>();
    o.measure_memory = j.at("measure_memory").get<bool>();
    o.measure_roof = j.value("measure_roof", true);
}

void to_json(json& j, const BenchResult& r) {
    j = json{{"spec", r.spec},
             {"options", r.options},
             {"environment", r.environment},
             {"timer", r.timer},
             {"cold_ns", r.cold_ns},
             {"warmup_iterations", r.warmup_iterations},
             {"timing", r.timing},
             {"samples_ns", r.samples_ns},
             {"flops", r.flops},
             {"gflops_per_s", r.gflops_per_s},
             {"bytes_ideal", r.bytes},
             {"roof", r.roof},
             {"roof_share", roof_share(r)},
             {"peak_bytes", r.peak_bytes},
             {"peak_source", r.peak_source},
             {"profiled_step_ns", r.profiled_step_ns},
             {"profiler_overhead", r.profiler_overhead}};
    if (r.interrupted) j["interrupted"] = true;
}

void from_json(const json& j, BenchResult& r) {
    r.spec = j.at("spec").get<RunSpec>();
    r.options = j.at("options").get<BenchOptions>();
    r.environment = j.at("environment").get<Environment>();
    r.timer = j.at("timer").get<std::string>();
    r.cold_ns = j.at("cold_ns").get<double>();
    r.warmup_iterations = int_at<int>(j, "warmup_iterations");
    r.timing = j.at("timing").get<TimingStats>();
    r.samples_ns = j.at("samples_ns").get<std::vector<double>>();
    r.flops = j.at("flops").get<double>();
    r.gflops_per_s = j.at("gflops_per_s").get<double>();
    r.bytes = j.value("bytes_ideal", 0.0);
    if (j.contains("roof")) r.roof = j.at("roof").get<Roof>();
    r.peak_bytes = int_at<int64_t>(j, "peak_bytes");
    r.peak_source = j.at("peak_source").get<std::string>();
    r.profiled_step_ns = j.at("profiled_step_ns").get<double>();
    r.profiler_overhead = j.at("profiler_overhead").get<double>();
    r.interrupted = j.value("interrupted", false);
}

void to_json(json& j, const SweepPlan& p) {
    std::vector<std::string> dtypes;
    for (auto d : p.dtypes) dtypes.push_back(to_string(d));
    j = json{{"base", p.base},           {"seq_lengths", p.seq_lengths},
             {"batches", p.batches},     {"heads", p.heads},
             {"head_dims", p.head_dims}, {"variants", p.variants},
             {"dtypes", dtypes},         {"bench", p.bench},
             {"profile", p.profile},     {"profile_options", p.profile_options}};
}

void from_json(const json& j, SweepPlan& p) {
    p.base = j.at("base").get<RunSpec>();
    p.seq_lengths = int_list_at<int64_t>(j, "seq_lengths");
    p.batches = int_list_at<int64_t>(j, "batches");
    p.heads = int_list_at<int64_t>(j, "heads");
    p.head_dims = int_list_at<int64_t>(j, "head_dims");
    p.variants = j.at("variants").get<std::vector<std::string>>();
    p.dtypes.clear();
    for (const auto& name : j.at("dtypes").get<std::vector<std::string>>()) {
        const auto d = parse_dtype(name);
        if (!d) throw InvalidInput(std::vector<SpecProblem>{{"dtypes", "'" + name + "' is not a dtype"}});
        p.dtypes.push_back(*d);
    }
    p.bench = j.at("bench").get<BenchOptions>();
    p.profile = j.at("profile").get<bool>();
    p.profile_options = j.at("profile_options").get<ProfileOptions>();
}

void to_json(json& j, const SweepPoint& p) {
    j = json{{"index", p.index}, {"spec", p.spec}, {"status", to_string(p.status)}, {"reason", p.reason}};
    if (p.status == PointStatus::Ok) j["bench"] = p.bench;
    if (!p.operators.empty()) j["operators"] = p.operators;
    if (p.ran_on) j["ran_on"] = *p.ran_on;
}

void from_json(const json& j, SweepPoint& p) {
    p.spec = j.at("spec").get<RunSpec>();
    const auto status = j.at("status").get<std::string>();
    if (!parse_point_status(status, p.status))
        throw std::runtime_error("sweep point status '" + status + "' is not ok, refused, failed or cancelled");
    p.reason = j.at("reason").get<std::string>();
    p.bench = BenchResult{};
    p.bench.spec = p.spec;
    if (p.status == PointStatus::Ok) p.bench = j.at("bench").get<BenchResult>();
    p.operators = j.value("operators", std::vector<OperatorRow>{});
    p.index = j.contains("index") ? int_at<int>(j, "index") : -1;  // files before sharded sweeps: by position
    p.ran_on.reset();
    if (j.contains("ran_on")) p.ran_on = j.at("ran_on").get<Environment>();
}

json bench_file_json(const BenchResult& r) {
    json j = file_header(kBenchSchema);
    j["result"] = r;
    return j;
}

BenchResult bench_from_file_json(const json& j) {
    check_schema(j, kBenchSchema, kResultsVersion, "bench file");
    return read_or_throw("bench file", [&] { return j.at("result").get<BenchResult>(); });
}

json sweep_file_json(const SweepResult& r, const SweepAnalysis& a) {
    json j = file_header(kSweepSchema);
    j["environment"] = r.environment;
    j["plan"] = r.plan;
    j["planned_points"] = r.planned_points;
    j["stopped_early"] = r.stopped_early;
    j["shard"] = {{"index", r.shard.index}, {"count", r.shard.count}, {"chosen_by", r.shard.chosen_by}};
    if (!r.merged_from.empty()) j["merged_from"] = r.merged_from;
    if (r.mixed_environments) j["mixed_environments"] = true;
    j["points"] = r.points;
    // Derived, for readers that do not recompute: the loader ignores them and calls analyze_sweep().
    json fits = json::array(), crossovers = json::array();
    for (const auto& f : a.fits)
        fits.push_back(
            {{"metric", f.metric}, {"series", f.series}, {"fit", f.fit}, {"exponent_interval", f.exponent_interval}});
    for (const auto& c : a.crossovers)
        crossovers.push_back({{"metric", c.metric},
                              {"series_a", c.series_a},
                              {"series_b", c.series_b},
                              {"n", c.at.n},
                              {"n_before", c.at.n_before},
                              {"n_after", c.at.n_after},
                              {"a_lower_after", c.at.a_lower_after},
                              {"within_noise", c.within_noise},
                              {"n_interval", c.n_interval},
                              {"resampled_share", c.resampled_share}});
    j["fits"] = fits;
    j["crossovers"] = crossovers;
    return j;
}

SweepResult sweep_from_file_json(const json& j) {
    check_schema(j, kSweepSchema, kResultsVersion, "sweep file");
    return read_or_throw("sweep file", [&] {
        SweepResult r;
        r.environment = j.at("environment").get<Environment>();
        r.plan = j.at("plan").get<SweepPlan>();
        r.planned_points = int_at<int>(j, "planned_points");
        r.stopped_early = j.at("stopped_early").get<bool>();
        r.points = j.at("points").get<std::vector<SweepPoint>>();
        for (size_t i = 0; i < r.points.size(); ++i)
            if (r.points[i].index < 0) r.points[i].index = int(i);
        if (j.contains("shard")) {
            const json& s = j.at("shard");
            r.shard.index = int_at<int>(s, "index");
            r.shard.count = int_at<int>(s, "count");
            r.shard.chosen_by = s.value("chosen_by", "");
            if (r.shard.count < 1 || r.shard.index < 0 || r.shard.index >= r.shard.count)
                throw std::runtime_error("shard " + std::to_string(r.shard.index) + " of " +
                                         std::to_string(r.shard.count) + " is not a shard (0 <= index < count)");
        }
        r.merged_from = j.value("merged_from", std::vector<std::string>{});
        r.mixed_environments = j.value("mixed_environments", false);
        return r;
    });
}

json check_file_json(const CheckReport& r) {
    json j = file_header(kCheckSchema);
    j["spec"] = r.spec;
    j["environment"] = r.environment;
    j["tolerance"] = r.tolerance;
    j["tolerance_rule"] = "max|x - ref| / max|ref| <= tolerance, ref = float64 manual attention on the same inputs";
    j["variants"] = r.variants;
    j["all_passed"] = r.all_passed();
    if (r.interrupted) j["interrupted"] = true;
    return j;
}

CheckReport check_from_file_json(const json& j) {
    check_schema(j, kCheckSchema, kResultsVersion, "check file");
    return read_or_throw("check file", [&] {
        CheckReport r;
        r.spec = j.at("spec").get<RunSpec>();
        r.environment = j.at("environment").get<Environment>();
        r.tolerance = j.at("tolerance").get<double>();
        r.variants = j.at("variants").get<std::vector<VariantCheck>>();
        r.interrupted = j.value("interrupted", false);
        return r;
    });
}

std::string sweep_csv(const SweepResult& r) {
    std::string out =
        "variant,dtype,batch,heads,kv_heads,seq_q,seq_k,head_dim,mode,mask,block_size,status,median_ms,p10_ms,p90_ms,"
        "min_ms,repeats,cold_ms,gflops_per_s,roof_share,peak_bytes,profiler_overhead,reason\n";
    char buf[512];
    for (const auto& p : r.points) {
        const auto& s = p.spec;
        const auto& t = p.bench.timing;
        const bool ok = p.status == PointStatus::Ok;
        std::snprintf(buf, sizeof buf, "%s,%s,%lld,%lld,%lld,%lld,%lld,%lld,%s,%s,%lld,%s,", s.variant.c_str(),
                      to_string(s.dtype).c_str(), (long long)s.batch, (long long)s.heads, (long long)s.kv_heads,
                      (long long)s.seq_q, (long long)s.seq_k, (long long)s.head_dim, to_string(s.mode).c_str(),
                      to_string(s.mask).c_str(), (long long)s.block_size, to_string(p.status).c_str());
        out += buf;
        if (ok) {
            std::snprintf(buf, sizeof buf, "%.6f,%.6f,%.6f,%.6f,%d,%.6f,%.3f,%s,%lld,%s,", t.median_ns / 1e6,
                          t.p10_ns / 1e6, t.p90_ns / 1e6, t.min_ns / 1e6, t.repeats, p.bench.cold_ns / 1e6,
                          p.bench.gflops_per_s,
                          p.bench.roof.known() ? printf_string("%.4f", roof_share(p.bench)).c_str() : "",
                          (long long)p.bench.peak_bytes,
                          p.bench.profiler_overhead > 0 ? std::to_string(p.bench.profiler_overhead).c_str() : "");
            out += buf;
        } else {
            out += ",,,,,,,,,,";
        }
        out += csv_field(p.reason) + "\n";
    }
    return out;
}

std::string results_kind(const json& j) {
    if (!j.is_object() || !j.contains("schema") || !j["schema"].is_string()) return {};
    const auto s = j["schema"].get<std::string>();
    const std::string prefix = "attention-workbench/";
    if (s.rfind(prefix, 0) != 0) return {};
    return s.substr(prefix.size());
}

}  // namespace awb
