#include "results/run_json.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <fstream>
#include <stdexcept>

#include "model/printf_string.h"
#include "model/run_observer.h"
#include "model/units.h"

namespace awb {

using nlohmann::json;

namespace {

template <typename T, typename Parse>
void read_enum(const json& j, const char* key, T& out, Parse parse, std::vector<SpecProblem>& problems) {
    if (!j.contains(key)) return;
    if (!j[key].is_string()) {
        problems.push_back({key, "must be a string"});
        return;
    }
    const auto s = j[key].get<std::string>();
    if (auto v = parse(s))
        out = *v;
    else
        problems.push_back({key, "'" + s + "' is not a valid value"});
}

template <typename T>
void read_number(const json& j, const char* key, T& out, std::vector<SpecProblem>& problems) {
    if (!j.contains(key)) return;
    if (!j[key].is_number_integer()) {
        problems.push_back({key, "must be an integer, got " + j[key].dump()});
        return;
    }
    try {
        out = checked_int<T>(j[key]);
    } catch (const json::exception&) {
        problems.push_back({key, "is out of range, got " + j[key].dump()});
    }
}

}  // namespace

void to_json(json& j, const RunSpec& s) {
    j = json{{"variant", s.variant},
             {"batch", s.batch},
             {"heads", s.heads},
             {"kv_heads", s.kv_heads},
             {"seq_q", s.seq_q},
             {"seq_k", s.seq_k},
             {"head_dim", s.head_dim},
             {"dtype", to_string(s.dtype)},
             {"device", to_string(s.device)},
             {"mode", to_string(s.mode)},
             {"mask", to_string(s.mask)},
             {"key_lengths", s.key_lengths},
             {"layout", to_string(s.layout)},
             {"seed", s.seed},
             {"threads", s.threads},
             {"sdpa_backend", to_string(s.sdpa_backend)},
             {"block_size", s.block_size}};
    if (s.mask == MaskKind::Window || s.window != 0) j["window"] = s.window;
    if (!s.module.empty()) j["module"] = s.module;
    if (!s.module_inputs.empty()) j["module_inputs"] = s.module_inputs;
}

void from_json(const json& j, RunSpec& s) {
    std::vector<SpecProblem> problems;
    if (!j.is_object()) throw InvalidInput(std::vector<SpecProblem>{{"spec", "must be a JSON object"}});
    if (j.contains("variant")) {
        if (j["variant"].is_string())
            s.variant = j["variant"].get<std::string>();
        else
            problems.push_back({"variant", "must be a string"});
    }
    if (j.contains("module")) {
        if (j["module"].is_string())
            s.module = j["module"].get<std::string>();
        else
            problems.push_back({"module", "must be a string (the module file's path)"});
    }
    if (j.contains("module_inputs")) {
        s.module_inputs.clear();
        const auto& m = j["module_inputs"];
        if (!m.is_array()) problems.push_back({"module_inputs", "must be an array of input names"});
        for (const auto& v : m.is_array() ? m : json::array()) {
            if (v.is_string())
                s.module_inputs.push_back(v.get<std::string>());
            else
                problems.push_back({"module_inputs", "must be an array of input names, got " + v.dump()});
        }
    }
    read_number(j, "batch", s.batch, problems);
    read_number(j, "heads", s.heads, problems);
    read_number(j, "kv_heads", s.kv_heads, problems);
    read_number(j, "seq_q", s.seq_q, problems);
    read_number(j, "seq_k", s.seq_k, problems);
    read_number(j, "head_dim", s.head_dim, problems);
    read_number(j, "seed", s.seed, problems);
    read_number(j, "threads", s.threads, problems);
    read_number(j, "block_size", s.block_size, problems);
    if (j.contains("window")) read_number(j, "window", s.window, problems);
    read_enum(j, "dtype", s.dtype, parse_dtype, problems);
    read_enum(j, "device", s.device, parse_device, problems);
    read_enum(j, "mode", s.mode, parse_mode, problems);
    read_enum(j, "mask", s.mask, parse_mask, problems);
    read_enum(j, "layout", s.layout, parse_layout, problems);
    read_enum(j, "sdpa_backend", s.sdpa_backend, parse_sdpa_backend, problems);
    if (j.contains("key_lengths")) {
        const auto& k = j["key_lengths"];
        s.key_lengths.clear();
        if (!k.is_array()) {
            problems.push_back({"key_lengths", "must be an array of integers"});
        } else {
            for (const auto& v : k) {
                if (!v.is_number_integer()) {
                    problems.push_back({"key_lengths", "must be an array of integers, got " + v.dump()});
                    break;
                }
                s.key_lengths.push_back(checked_int<int64_t>(v));
            }
        }
    }
    if (!problems.empty()) throw InvalidInput(std::move(problems));
}

void to_json(json& j, const ProfileOptions& o) {
    j = json{{"wait", o.wait},
             {"warmup", o.warmup},
             {"active", o.active},
             {"repeat", o.repeat},
             {"record_shapes", o.record_shapes},
             {"profile_memory", o.profile_memory},
             {"with_stack", o.with_stack}};
}

void from_json(const json& j, ProfileOptions& o) {
    std::vector<SpecProblem> problems;
    read_number(j, "wait", o.wait, problems);
    read_number(j, "warmup", o.warmup, problems);
    read_number(j, "active", o.active, problems);
    read_number(j, "repeat", o.repeat, problems);
    for (auto [key, field] : {std::pair{"record_shapes", &o.record_shapes},
                              std::pair{"profile_memory", &o.profile_memory}, std::pair{"with_stack", &o.with_stack}}) {
        if (!j.contains(key)) continue;
        if (j[key].is_boolean())
            *field = j[key].get<bool>();
        else
            problems.push_back({key, "must be true or false"});
    }
    if (!problems.empty()) throw InvalidInput(std::move(problems));
}

void to_json(json& j, const Environment& e) {
    j = json{{"torch_version", e.torch_version},
             {"device", e.device},
             {"device_name", e.device_name},
             {"cuda_version", e.cuda_version},
             {"driver_version", e.driver_version},
             {"blas", e.blas},
             {"allocator", e.allocator},
             {"threads", e.threads},
             {"build_type", e.build_type},
             {"compiler", e.compiler},
             {"host", e.host},
             {"os", e.os},
             {"timestamp_utc", e.timestamp_utc}};
    if (!e.recorded_by.empty()) j["recorded_by"] = e.recorded_by;
    if (e.memory_bytes >= 0) j["memory_bytes"] = e.memory_bytes;
    if (!e.modules.empty()) {
        j["modules"] = json::array();
        for (const auto& m : e.modules)
            j["modules"].push_back({{"name", m.name},
                                    {"path", m.path},
                                    {"format", m.format},
                                    {"size_bytes", m.size_bytes},
                                    {"sha256", m.sha256},
                                    {"exported_by", m.exported_by}});
    }
}

void from_json(const json& j, Environment& e) {
    auto str = [&](const char* key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : ""; };
    e.torch_version = str("torch_version");
    e.device = str("device");
    e.device_name = str("device_name");
    e.cuda_version = str("cuda_version");
    e.driver_version = str("driver_version");
    e.blas = str("blas");
    e.allocator = str("allocator");
    e.threads = int_or<int>(j, "threads", 0);
    e.build_type = str("build_type");
    e.compiler = str("compiler");
    e.host = str("host");
    e.os = str("os");
    e.timestamp_utc = str("timestamp_utc");
    e.recorded_by = str("recorded_by");
    e.memory_bytes =
        j.contains("memory_bytes") && j["memory_bytes"].is_number_integer() ? checked_magnitude(j["memory_bytes"]) : -1;
    e.modules.clear();
    if (j.contains("modules") && j["modules"].is_array())
        for (const auto& m : j["modules"]) {
            if (!m.is_object()) continue;
            auto text = [&](const char* key) {
                return m.contains(key) && m[key].is_string() ? m[key].get<std::string>() : "";
            };
            e.modules.push_back(
                {text("name"), text("path"), text("format"),
                 m.contains("size_bytes") && m["size_bytes"].is_number_integer() ? m["size_bytes"].get<int64_t>() : -1,
                 text("sha256"), text("exported_by")});
        }
}

void to_json(json& j, const Interval& i) {
    j = i.valid ? json{{"low", i.low},
                       {"high", i.high},
                       {"level", i.level},
                       {"resamples", i.resamples},
                       {"method", "percentile bootstrap"}}
                : json(nullptr);
}

void to_json(json& j, const DeviceProperties& d) {
    j = {{"id", d.id}, {"name", d.name}};
    if (d.total_global_mem >= 0) j["totalGlobalMem"] = d.total_global_mem;
    if (d.compute_major >= 0) j["computeMajor"] = d.compute_major, j["computeMinor"] = d.compute_minor;
    if (d.num_sms >= 0) j["numSms"] = d.num_sms;
}

void to_json(json& j, const TraceQuality& q) {
    j = {{"clean", q.clean()},
         {"skipped_events", q.import.skipped_events},
         {"warnings", q.import.warnings},
         {"negative_durations", q.import.negative_durations},
         {"device_work", q.device_work},
         {"overlapping_device", q.overlapping_device},
         {"cpu_ops", q.cpu_ops},
         {"spilling_cpu", q.spilling_cpu},
         {"launched", q.launched},
         {"launched_before", q.launched_before}};
}

void to_json(json& j, const KernelRow& k) {
    const DeviceLaunch& l = k.launch;
    j = json{{"name", k.name},
             {"kind", to_string(k.kind)},
             {"class", class_key(k.cls)},
             {"device", k.device_index},
             {"calls", k.calls},
             {"total_us", double(k.total_ns) / 1e3},
             {"avg_us", k.avg_ns() / 1e3},
             {"min_us", double(k.min_ns) / 1e3},
             {"max_us", double(k.max_ns) / 1e3}};
    auto maybe = [&j](const char* key, auto value, bool present) { j[key] = present ? json(value) : json(nullptr); };
    maybe("grid", l.grid, l.grid[0] > 0);
    maybe("block", l.block, l.block[0] > 0);
    maybe("registers_per_thread", l.registers_per_thread, l.registers_per_thread >= 0);
    maybe("shared_memory_bytes", l.shared_memory_bytes, l.shared_memory_bytes >= 0);
    maybe("blocks_per_sm", l.blocks_per_sm, l.blocks_per_sm >= 0);
    maybe("warps_per_sm", l.warps_per_sm, l.warps_per_sm >= 0);
    maybe("est_achieved_occupancy_pct", k.mean_occupancy_pct, k.mean_occupancy_pct >= 0);
    maybe("bytes", l.bytes, l.bytes > 0);
}

json kernel_classes_json(const std::vector<KernelRow>& rows) {
    json out = json::array();
    const std::vector<KernelRow> classes = kernels_by_class(rows);
    int64_t all = 0;
    for (const auto& k : classes) all += k.total_ns;
    for (const auto& k : classes)
        out.push_back({{"class", class_key(k.cls)},
                       {"name", k.name},
                       {"device", k.device_index},
                       {"calls", k.calls},
                       {"total_us", double(k.total_ns) / 1e3},
                       {"share", all > 0 ? double(k.total_ns) / double(all) : 0.0}});
    return out;
}

void to_json(json& j, const Roof& r) {
    j = json{{"device", r.device},
             {"dtype", r.dtype},
             {"peak_tflops", r.peak_tflops},
             {"memory_tb_s", r.memory_tb_s},
             {"ridge_flop_per_byte", r.ridge()},
             {"measured", r.measured},
             {"source", r.source}};
}

void from_json(const json& j, Roof& r) {
    auto num = [&](const char* key) { return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0; };
    r.device = j.value("device", std::string());
    r.dtype = j.value("dtype", std::string());
    r.peak_tflops = num("peak_tflops");
    r.memory_tb_s = num("memory_tb_s");
    r.measured = j.value("measured", false);
    r.source = j.value("source", std::string());
}

namespace {
double us(int64_t ns) { return double(ns) / 1000.0; }
}  // namespace

void to_json(json& j, const AttentionInstance& a) {
    auto dim = [](int64_t v) { return v > 0 ? json(v) : json(nullptr); };
    auto known = [](double v, bool present) { return present ? json(v) : json(nullptr); };
    const AttentionShape& s = a.shape;
    const bool costed = a.costed();
    j = {{"event", a.event},
         {"op", a.op},
         {"library", a.library},
         {"backend", to_string(a.backend)},
         {"implementation", a.implementation},
         {"pass", a.backward ? "backward" : "forward"},
         {"layout", to_string(a.layout)},
         {"decode", a.decode},
         {"query_tokens", dim(a.query_tokens)},
         {"key_tokens", dim(a.key_tokens)},
         {"batch", dim(s.batch)},
         {"heads_folded", a.heads_folded},
         {"heads_q", dim(s.heads_q)},
         {"heads_kv", dim(s.heads_kv)},
         {"seq_q", dim(s.seq_q)},
         {"seq_k", dim(s.seq_k)},
         {"kv_length", dim(s.seq_k)},
         {"head_dim", dim(s.head_dim)},
         {"head_dim_v", dim(s.head_dim_v)},
         {"dtype", a.dtype},
         {"kv_dtype", a.kv_dtype.empty() ? json(nullptr) : json(a.kv_dtype)},
         {"causal", a.causal == 1   ? json("top-left")
                    : a.causal == 2 ? json("bottom-right")
                    : a.causal == 0 ? json(false)
                                    : json(nullptr)},
         {"window", a.window > 0 ? json(a.window) : json(nullptr)},
         {"mean_key_length", a.mean_keys > 0 ? json(a.mean_keys) : json(nullptr)},
         {"from_kernel_name", a.name_facts.empty() ? json(nullptr) : json(a.name_facts)},
         {"missing", a.missing.empty() ? json(nullptr) : json(a.missing)},
         {"replayed", a.replayed},
         {"kernel_only", a.kernel_only},
         {"captured", a.captured},
         {"rank", a.rank < 0 ? json(nullptr) : json(a.rank)},
         {"thread", a.thread},
         {"start_us", double(a.start_ns) / 1e3},
         {"span_us", double(a.span_ns()) / 1e3},
         {"cpu_us", double(a.cpu_ns()) / 1e3},
         {"device_us", double(a.device_ns) / 1e3},
         {"device", a.device_index < 0 ? json(nullptr) : json(a.device_index)},
         {"device_start_us", a.device_ns > 0 ? json(double(a.device_start_ns) / 1e3) : json(nullptr)},
         {"step_gpu_busy_us", a.step_gpu_ns > 0 ? json(double(a.step_gpu_ns) / 1e3) : json(nullptr)},
         {"step_gpu_share", a.step_gpu_ns > 0 ? json(a.step_share()) : json(nullptr)},
         {"kernels", a.kernels},
         {"visible_pairs", known(a.pairs, costed)},
         {"flops", known(a.flops, costed)},
         {"flop_convention", a.backward ? "2.5x forward (FlashAttention, with recompute)" : "2 x pairs x (D + Dv)"},
         {"bytes_ideal", known(a.bytes, a.bytes > 0)},
         {"bytes_scores", known(a.bytes_scores, costed)},
         {"bytes_chunked", known(a.bytes_chunked, costed)},
         {"tflops_per_s", known(a.tflops_per_s(), costed)},
         {"gb_per_s", known(a.gb_per_s(), a.bytes > 0)},
         {"rate_over", a.device_ns > 0 ? "device" : "cpu"}};
    if (a.backward) j["flops_no_recompute"] = known(a.flops_backward_no_recompute, costed);
}

namespace {
int64_t dim_of(const json& j, const char* key) {
    return j.contains(key) && j[key].is_number_integer() ? checked_magnitude(j[key]) : int64_t(-1);
}
double number_or_zero(const json& j, const char* key) {
    return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}
std::string string_or_empty(const json& j, const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

AttentionBackend backend_of(const std::string& name) {
    for (AttentionBackend b :
         {AttentionBackend::Flash, AttentionBackend::MemEfficient, AttentionBackend::Cudnn, AttentionBackend::CpuFlash,
          AttentionBackend::Math, AttentionBackend::Manual, AttentionBackend::Library})
        if (to_string(b) == name) return b;
    return AttentionBackend::Unknown;
}

AttentionLayout layout_of(const std::string& name) {
    for (AttentionLayout l : {AttentionLayout::Varlen, AttentionLayout::Paged})
        if (to_string(l) == name) return l;
    return AttentionLayout::Dense;
}
}  // namespace

void from_json(const json& j, AttentionInstance& a) {
    a.event = int_or<int>(j, "event", -1);
    a.op = j.value("op", std::string());
    a.backend = backend_of(j.value("backend", std::string()));
    a.library = string_or_empty(j, "library");
    a.implementation = string_or_empty(j, "implementation");
    if (a.library.empty())  // a file from before the libraries: SDPA's or the manual pattern
        a.library = a.backend == AttentionBackend::Manual ? "manual" : "PyTorch SDPA";
    a.backward = j.value("pass", std::string()) == "backward";
    a.layout = layout_of(string_or_empty(j, "layout"));
    a.decode = j.value("decode", false);
    a.query_tokens = dim_of(j, "query_tokens");
    a.key_tokens = dim_of(j, "key_tokens");
    a.heads_folded = j.value("heads_folded", false);
    a.shape = {dim_of(j, "batch"), dim_of(j, "heads_q"),  dim_of(j, "heads_kv"),  dim_of(j, "seq_q"),
               dim_of(j, "seq_k"), dim_of(j, "head_dim"), dim_of(j, "head_dim_v")};
    a.dtype = j.value("dtype", std::string());
    a.kv_dtype = string_or_empty(j, "kv_dtype");
    const json causal = j.value("causal", json(nullptr));
    a.causal = causal.is_string()    ? (causal.get<std::string>() == "bottom-right" ? 2 : 1)
               : causal.is_boolean() ? 0
                                     : -1;
    a.window = j.contains("window") && j["window"].is_number_integer() ? checked_magnitude(j["window"]) : 0;
    a.mean_keys = number_or_zero(j, "mean_key_length");
    a.name_facts = string_or_empty(j, "from_kernel_name");
    a.missing = string_or_empty(j, "missing");
    a.replayed = j.value("replayed", false);
    a.kernel_only = j.value("kernel_only", false);
    a.captured = j.value("captured", false);
    a.rank = j.contains("rank") && j["rank"].is_number_integer() ? checked_int<int32_t>(j["rank"]) : -1;
    a.thread = j.value("thread", uint64_t(0));
    a.start_ns = timestamp_ns(j, "start_us");
    a.end_ns = a.start_ns + duration_ns(j, j.contains("span_us") ? "span_us" : "cpu_us");
    a.device_ns = duration_ns(j, "device_us");
    a.device_index = j.contains("device") && j["device"].is_number_integer() ? checked_int<int>(j["device"]) : -1;
    a.device_start_ns =
        j.contains("device_start_us") && j["device_start_us"].is_number() ? timestamp_ns(j, "device_start_us") : 0;
    a.step_gpu_ns =
        j.contains("step_gpu_busy_us") && j["step_gpu_busy_us"].is_number() ? duration_ns(j, "step_gpu_busy_us") : 0;
    a.kernels = int_or<int64_t>(j, "kernels", 0);
    a.pairs = number_or_zero(j, "visible_pairs");
    a.flops = number_or_zero(j, "flops");
    a.flops_backward_no_recompute = number_or_zero(j, "flops_no_recompute");
    a.bytes = number_or_zero(j, "bytes_ideal");
    a.bytes_scores = number_or_zero(j, "bytes_scores");
    a.bytes_chunked = number_or_zero(j, "bytes_chunked");
}

void to_json(json& j, const GpuBreakdown& b) {
    j = {{"rank", b.rank < 0 ? json(nullptr) : json(b.rank)},
         {"device", b.device_index},
         {"step", b.step < 0 ? json(nullptr) : json(b.step)},
         {"start_us", double(b.start_ns) / 1e3},
         {"end_us", double(b.end_ns) / 1e3},
         {"span_us", double(b.span_ns()) / 1e3},
         {"events", b.kernels}};
    const std::pair<const char*, int64_t> parts[] = {{"busy", b.busy_ns},
                                                     {"computation", b.computation_ns},
                                                     {"communication", b.communication_ns},
                                                     {"memcpy", b.memcpy_ns},
                                                     {"memset", b.memset_ns},
                                                     {"idle", b.idle_ns},
                                                     {"exposed_communication", b.exposed_communication_ns},
                                                     {"exposed_memcpy", b.exposed_memcpy_ns}};
    for (const auto& [name, ns] : parts) {
        j[std::string(name) + "_us"] = double(ns) / 1e3;
        j[std::string(name) + "_share"] = b.share(ns);
    }
    json classes = json::object();
    for (int c = 0; c < kKernelClassCount; ++c)
        if (const int64_t ns = b.class_ns[size_t(c)]; ns > 0)
            classes[class_key(KernelClass(c))] = {{"us", double(ns) / 1e3}, {"share", b.share(ns)}};
    j["by_class"] = classes;
}

void to_json(json& j, const OperatorRow& r) {
    j = json{{"name", r.name},
             {"device_type", r.device == DeviceKind::CUDA ? "cuda" : "cpu"},
             {"calls", r.calls},
             {"self_cpu_us", us(r.self_cpu_ns)},
             {"cpu_total_us", us(r.cpu_total_ns)},
             {"self_device_us", us(r.self_device_ns)},
             {"device_total_us", us(r.device_total_ns)},
             {"cpu_memory_bytes", r.cpu_memory_bytes},
             {"self_cpu_memory_bytes", r.self_cpu_memory_bytes},
             {"device_memory_bytes", r.device_memory_bytes},
             {"self_device_memory_bytes", r.self_device_memory_bytes}};
    if (!r.input_shapes.empty()) j["input_shapes"] = r.input_shapes;
    if (r.user_annotation) j["user_annotation"] = true;
}

void from_json(const json& j, OperatorRow& r) {
    if (!j.is_object() || !j.contains("name") || !j["name"].is_string())
        throw std::runtime_error("operator row without a name");
    r.name = j["name"].get<std::string>();
    r.device = j.value("device_type", std::string("cpu")) == "cuda" ? DeviceKind::CUDA : DeviceKind::CPU;
    r.input_shapes = j.value("input_shapes", std::string());
    r.user_annotation = j.value("user_annotation", false);
    r.calls = int_or<int64_t>(j, "calls", 0);
    r.self_cpu_ns = duration_ns(j, "self_cpu_us");
    r.cpu_total_ns = duration_ns(j, "cpu_total_us");
    r.self_device_ns = duration_ns(j, "self_device_us");
    r.device_total_ns = duration_ns(j, "device_total_us");
    r.cpu_memory_bytes = int_or<int64_t>(j, "cpu_memory_bytes", 0);
    r.self_cpu_memory_bytes = int_or<int64_t>(j, "self_cpu_memory_bytes", 0);
    r.device_memory_bytes = int_or<int64_t>(j, "device_memory_bytes", 0);
    r.self_device_memory_bytes = int_or<int64_t>(j, "self_device_memory_bytes", 0);
}

void to_json(json& j, const StepRecord& s) {
    j = json{{"step", s.step}, {"action", to_string(s.action)}, {"wall_us", us(s.wall_ns)}};
}

void from_json(const json& j, StepRecord& s) {
    s.step = int_or<int>(j, "step", 0);
    const auto action = j.value("action", std::string("none"));
    for (auto a : {ScheduleAction::None, ScheduleAction::Warmup, ScheduleAction::Record, ScheduleAction::RecordAndSave})
        if (to_string(a) == action) s.action = a;
    s.wall_ns = duration_ns(j, "wall_us");
}

namespace {

json points_json(const std::vector<MemoryPoint>& points) {
    json out = json::array();
    for (const auto& p : points) out.push_back({double(p.ts_ns) / 1000.0, p.bytes});
    return out;
}

}  // namespace

json to_json(const ProfileReport& r) {
    json j;
    j["schema"] = kProfileReportSchema;
    j["schema_version"] = kProfileReportVersion;
    j["environment"] = r.environment;
    j["spec"] = r.spec;
    if (!r.spec_known) j["spec_known"] = false;
    j["options"] = r.options;
    j["grouped_by_shape"] = r.grouped_by_shape;
    j["device_columns"] = r.device_columns;
    j["operators"] = r.operators;
    j["peak_memory_bytes"] = r.peak_memory_bytes;
    j["peak_memory_source"] = r.peak_memory_source;
    json series = json::array();
    for (const auto& s : r.memory_series) {
        json points = json::array();
        for (const auto& p : s.points) points.push_back({us(p.ts_ns), p.bytes});
        series.push_back({{"device", s.device == DeviceKind::CUDA ? "cuda" : "cpu"},
                          {"device_index", s.device_index},
                          {"peak_bytes", s.peak_bytes},
                          {"peak_ts_us", us(s.peak_ts_ns)},
                          {"allocations", s.allocations},
                          {"frees", s.frees},
                          {"allocated_bytes", s.allocated_bytes},
                          {"freed_bytes", s.freed_bytes},
                          {"points_ts_us_bytes", points}});
        if (s.has_totals()) {  // the allocator's totals (absolute), where the trace has them
            series.back()["peak_allocated_bytes"] = s.peak_allocated_bytes;
            series.back()["peak_allocated_ts_us"] = us(s.peak_allocated_ts_ns);
            series.back()["allocated_ts_us_bytes"] = points_json(s.allocated_points);
        }
        if (s.peak_reserved_bytes >= 0) {
            series.back()["peak_reserved_bytes"] = s.peak_reserved_bytes;
            series.back()["peak_reserved_ts_us"] = us(s.peak_reserved_ts_ns);
            series.back()["reserved_ts_us_bytes"] = points_json(s.reserved_points);
        }
    }
    j["memory_series"] = series;
    j["steps"] = r.steps;
    j["attention"] = r.attention;
    j["roofs"] = r.roofs;
    if (r.attention_gpu_busy_ns > 0) j["attention_gpu_busy_us"] = us(r.attention_gpu_busy_ns);
    return j;
}

ProfileReport report_from_json(const json& j) {
    check_schema(j, kProfileReportSchema, kProfileReportVersion, "profile report");
    return read_or_throw("profile report", [&] {
        ProfileReport r;
        r.spec = j.at("spec").get<RunSpec>();
        r.spec_known = j.value("spec_known", true);
        r.options = j.at("options").get<ProfileOptions>();
        r.environment = j.at("environment").get<Environment>();
        r.grouped_by_shape = j.value("grouped_by_shape", false);
        r.operators = j.at("operators").get<std::vector<OperatorRow>>();
        // Reports written before the analysis recorded it: a CUDA run, or operators with device time.
        r.device_columns = j.contains("device_columns")
                               ? j.at("device_columns").get<bool>()
                               : r.spec.device.kind == DeviceKind::CUDA ||
                                     std::any_of(r.operators.begin(), r.operators.end(),
                                                 [](const OperatorRow& o) { return o.self_device_ns > 0; });
        r.peak_memory_bytes = int_or<int64_t>(j, "peak_memory_bytes", 0);
        r.peak_memory_source = j.value("peak_memory_source", std::string());
        for (const auto& s : array_or_empty(j, "memory_series")) {
            MemorySeries m;
            m.device = s.value("device", std::string("cpu")) == "cuda" ? DeviceKind::CUDA : DeviceKind::CPU;
            m.device_index = int_or<int>(s, "device_index", -1);
            m.peak_bytes = int_or<int64_t>(s, "peak_bytes", 0);
            m.peak_ts_ns = timestamp_ns(s, "peak_ts_us");
            m.allocations = int_or<int64_t>(s, "allocations", 0);
            m.frees = int_or<int64_t>(s, "frees", 0);
            m.allocated_bytes = int_or<int64_t>(s, "allocated_bytes", 0);
            m.freed_bytes = int_or<int64_t>(s, "freed_bytes", 0);
            for (const auto& p : array_or_empty(s, "points_ts_us_bytes"))
                m.points.push_back({checked_ns_of_us(p.at(0), 4e15), checked_magnitude(p.at(1))});
            m.peak_allocated_bytes = int_or<int64_t>(s, "peak_allocated_bytes", -1);
            m.peak_reserved_bytes = int_or<int64_t>(s, "peak_reserved_bytes", -1);
            if (m.peak_allocated_bytes >= 0) m.peak_allocated_ts_ns = timestamp_ns(s, "peak_allocated_ts_us");
            if (m.peak_reserved_bytes >= 0) m.peak_reserved_ts_ns = timestamp_ns(s, "peak_reserved_ts_us");
            for (const auto& p : array_or_empty(s, "allocated_ts_us_bytes"))
                m.allocated_points.push_back({checked_ns_of_us(p.at(0), 4e15), checked_magnitude(p.at(1))});
            for (const auto& p : array_or_empty(s, "reserved_ts_us_bytes"))
                m.reserved_points.push_back({checked_ns_of_us(p.at(0), 4e15), checked_magnitude(p.at(1))});
            r.memory_series.push_back(std::move(m));
        }
        r.steps = array_or_empty(j, "steps").get<std::vector<StepRecord>>();
        r.attention = array_or_empty(j, "attention").get<std::vector<AttentionInstance>>();
        r.roofs = array_or_empty(j, "roofs").get<std::vector<Roof>>();
        r.attention_gpu_busy_ns = j.contains("attention_gpu_busy_us") && j["attention_gpu_busy_us"].is_number()
                                      ? duration_ns(j, "attention_gpu_busy_us")
                                      : 0;
        return r;
    });
}

}  // namespace awb
