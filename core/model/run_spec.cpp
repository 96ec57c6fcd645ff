#include "model/run_spec.h"

#include <unistd.h>

#include <algorithm>
#include <functional>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <cstdio>

#include "model/module_file.h"
#include "model/variant_catalog.h"

namespace awb {

namespace {

template <typename E, size_t N>
std::optional<E> parse_enum(std::string_view s, const std::pair<const char*, E> (&table)[N]) {
    std::string lower(s);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const auto& [name, value] : table)
        if (lower == name) return value;
    return std::nullopt;
}

template <typename E, size_t N>
std::string enum_name(E v, const std::pair<const char*, E> (&table)[N]) {
    for (const auto& [name, value] : table)
        if (value == v) return name;
    return "?";
}

const std::pair<const char*, Dtype> kDtypes[] = {{"float32", Dtype::Float32},
                                                 {"float64", Dtype::Float64},
                                                 {"float16", Dtype::Float16},
                                                 {"bfloat16", Dtype::BFloat16}};
const std::pair<const char*, Dtype> kDtypeAliases[] = {
    {"fp32", Dtype::Float32}, {"float", Dtype::Float32}, {"fp64", Dtype::Float64}, {"double", Dtype::Float64},
    {"fp16", Dtype::Float16}, {"half", Dtype::Float16},  {"bf16", Dtype::BFloat16}};
const std::pair<const char*, Mode> kModes[] = {{"forward", Mode::Forward}, {"train", Mode::Train}};
const std::pair<const char*, MaskKind> kMasks[] = {{"none", MaskKind::None},
                                                   {"causal", MaskKind::Causal},
                                                   {"padding", MaskKind::Padding},
                                                   {"window", MaskKind::Window}};
const std::pair<const char*, Layout> kLayouts[] = {{"bhnd", Layout::BHND}, {"bnhd", Layout::BNHD}};
const std::pair<const char*, SdpaBackend> kBackends[] = {{"auto", SdpaBackend::Auto},
                                                         {"math", SdpaBackend::Math},
                                                         {"flash", SdpaBackend::Flash},
                                                         {"efficient", SdpaBackend::Efficient},
                                                         {"cudnn", SdpaBackend::CuDNN}};

std::string gib(double bytes) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / double(1ull << 30));
    return buf;
}

}  // namespace

RunSpec article_spec(DeviceKind device) {
    RunSpec s;
    if (device == DeviceKind::CUDA) {
        s.device = DeviceSpec{DeviceKind::CUDA, -1};
        s.dtype = Dtype::Float16;
    }
    return s;
}

RunSpec with_variant(const RunSpec& base, const std::string& variant) {
    RunSpec s = base;
    if (is_module_path(variant)) {
        s.variant = module_stem(variant);
        s.module = absolute_module_path(variant);
    } else if (variant != base.variant || base.module.empty()) {
        s.variant = variant;
        s.module.clear();
        s.module_inputs.clear();
    }
    if (s.variant != "sdpa" || !s.module.empty()) s.sdpa_backend = SdpaBackend::Auto;
    return s;
}

std::string to_string(Dtype v) { return enum_name(v, kDtypes); }
std::string to_string(Mode v) { return enum_name(v, kModes); }
std::string to_string(MaskKind v) { return enum_name(v, kMasks); }
std::string to_string(Layout v) { return enum_name(v, kLayouts); }
std::string to_string(SdpaBackend v) { return enum_name(v, kBackends); }
std::string to_string(const DeviceSpec& v) {
    std::string base = v.kind == DeviceKind::CUDA ? "cuda" : v.kind == DeviceKind::CPU ? "cpu" : "other";
    return v.index >= 0 && v.kind == DeviceKind::CUDA ? base + ":" + std::to_string(v.index) : base;
}

std::optional<Dtype> parse_dtype(std::string_view s) {
    if (auto d = parse_enum(s, kDtypes)) return d;
    return parse_enum(s, kDtypeAliases);
}
std::optional<Mode> parse_mode(std::string_view s) { return parse_enum(s, kModes); }
std::optional<MaskKind> parse_mask(std::string_view s) { return parse_enum(s, kMasks); }
std::optional<Layout> parse_layout(std::string_view s) { return parse_enum(s, kLayouts); }
std::optional<SdpaBackend> parse_sdpa_backend(std::string_view s) { return parse_enum(s, kBackends); }

std::optional<DeviceSpec> parse_device(std::string_view s) {
    if (s == "cpu") return DeviceSpec{DeviceKind::CPU, -1};
    if (s == "cuda") return DeviceSpec{DeviceKind::CUDA, -1};
    if (s.size() > 5 && s.substr(0, 5) == "cuda:") {
        int index = 0;
        for (char c : s.substr(5)) {
            if (c < '0' || c > '9' || index > 1000) return std::nullopt;
            index = index * 10 + (c - '0');
        }
        return DeviceSpec{DeviceKind::CUDA, index};
    }
    return std::nullopt;
}

int64_t element_size(Dtype dtype) {
    switch (dtype) {
        case Dtype::Float64: return 8;
        case Dtype::Float32: return 4;
        case Dtype::Float16:
        case Dtype::BFloat16: return 2;
    }
    return 4;
}

bool sdpa_holds_scores(const RunSpec& s, const DeviceCaps& caps) {
    if (!caps.sdpa_backend_selectable) return true;  // LibTorch 1.13: the math path only
    switch (s.sdpa_backend) {
        case SdpaBackend::Math: return true;
        case SdpaBackend::Flash:
        case SdpaBackend::Efficient:
        case SdpaBackend::CuDNN: return false;
        case SdpaBackend::Auto: break;
    }
    // Auto on 2.x: the CPU runs its flash kernel for every dtype and mask we have (measured,
    // tests/engine/test_sdpa_backends.cpp); CUDA picks flash, efficient or cuDNN, none of which take float64.
    return s.device.kind == DeviceKind::CUDA && s.dtype == Dtype::Float64;
}

int64_t estimate_peak_bytes(const RunSpec& s, bool sdpa_fused) {
    // Computed in double so that absurd sizes saturate instead of overflowing.
    const double e = double(element_size(s.dtype));
    const double q = double(s.batch) * s.heads * s.seq_q * s.head_dim;
    const double kv = double(s.batch) * s.heads * s.seq_k * s.head_dim;  // after GQA expansion
    const VariantInfo* info = find_variant(s.variant);
    const double scores = info && info->blockwise ? double(s.batch) * s.heads * std::min(s.block_size, s.seq_q) *
                                                        std::min(s.block_size, s.seq_k)
                                                  : double(s.batch) * s.heads * s.seq_q * s.seq_k;
    const bool train = s.mode == Mode::Train;
    int copies = info ? (train ? info->score_buffers_train : info->score_buffers_forward) : 6;
    if (s.mask != MaskKind::None) copies += train ? 2 : 1;  // masked scores (+ their gradient)
    if (sdpa_fused && s.variant == "sdpa") copies = 0;      // a fused kernel keeps no [Nq, Nk] buffer
    const double tensors = (q + 2 * kv) * (train ? 3 : 1)   // inputs, expanded K/V, their gradients
                           + q * (train ? 3 : 1)            // output (+ square, grad)
                           + scores * copies;
    const double bytes = tensors * e;
    return bytes >= 9.0e18 ? int64_t(9e18) : int64_t(bytes);
}

int64_t device_available_bytes(const RunSpec& s, const DeviceCaps& caps) {
    if (s.device.kind == DeviceKind::CPU) return caps.cpu_available_bytes;
    const int index = std::max(0, s.device.index);
    if (index < int(caps.cuda_free_bytes.size())) return caps.cuda_free_bytes[index];
    return -1;
}

namespace {

// A built-in's name, or a module file this LibTorch can load.
std::vector<SpecProblem> variant_problems(const RunSpec& s, const DeviceCaps& caps) {
    if (s.module.empty()) {
        if (find_variant(s.variant)) return {};
        return {{"variant", "'" + s.variant + "' is not a known variant (known: " + variant_names() +
                                ", or a module file .pt/.pt2)"}};
    }
    auto out = check_module_file(s.module);
    if (module_format(s.module) == ModuleFormat::AOTInductor && !caps.torch_version.empty() &&
        caps.torch_version[0] < '2')
        out.push_back({"variant", "module '" + s.module +
                                      "' is an AOTInductor package, which needs LibTorch 2.x (this is " +
                                      caps.torch_version + "; scripts/build.sh --torch2)"});
    return out;
}

}  // namespace

namespace {

using AddProblem = std::function<void(std::string, std::string)>;

// The sizes positive and heads a multiple of kv_heads; false when a size is not positive.
bool check_sizes(const RunSpec& s, const AddProblem& add) {
    const std::pair<const char*, int64_t> sizes[] = {{"batch", s.batch}, {"heads", s.heads}, {"kv_heads", s.kv_heads},
                                                     {"seq_q", s.seq_q}, {"seq_k", s.seq_k}, {"head_dim", s.head_dim}};
    bool sizes_ok = true;
    for (const auto& [field, value] : sizes) {
        if (value <= 0) {
            add(field, std::to_string(value) + " must be a positive integer");
            sizes_ok = false;
        }
    }
    if (s.heads > 0 && s.kv_heads > 0 && s.heads % s.kv_heads != 0)
        add("kv_heads", std::to_string(s.kv_heads) + " does not divide heads = " + std::to_string(s.heads) +
                            " (grouped-query attention needs heads to be a multiple of kv_heads)");
    return sizes_ok;
}

// The device exists in this LibTorch and on this machine, and the dtype runs on it.
void check_device_and_dtype(const RunSpec& s, const DeviceCaps& caps, const std::string& torch, const AddProblem& add) {
    const bool cuda = s.device.kind == DeviceKind::CUDA;
    if (cuda && !caps.cuda_built) {
        add("device", "'" + to_string(s.device) + "' requested but " + torch +
                          " was built without CUDA; use cpu, or the CUDA build (scripts/build.sh --torch2)");
    } else if (cuda && !caps.cuda_available) {
        add("device", "'" + to_string(s.device) + "' requested but no CUDA GPU is visible (" + torch +
                          " has CUDA; check the NVIDIA driver and CUDA_VISIBLE_DEVICES); use cpu");
    } else if (cuda && s.device.index >= caps.cuda_device_count) {
        add("device", "'" + to_string(s.device) + "' does not exist: " + std::to_string(caps.cuda_device_count) +
                          " CUDA device(s), indices 0.." + std::to_string(caps.cuda_device_count - 1));
    }
    if (!cuda && s.dtype == Dtype::Float16 && !caps.cpu_float16)
        add("dtype",
            "float16 is not supported on cpu by LibTorch 1.13 (its CPU matmul has no half kernel); "
            "use float32, float64 or bfloat16, or a cuda device");
    if (cuda && caps.cuda_available && s.dtype == Dtype::BFloat16 && !caps.cuda_bf16)
        add("dtype", "bfloat16 is not supported by this GPU; use float16 or float32");
}

// Key lengths only with mask padding (one per batch entry, each in 1..seq_k), a window only with mask window.
void check_mask(const RunSpec& s, const AddProblem& add) {
    if (s.mask == MaskKind::Padding) {
        if (int64_t(s.key_lengths.size()) != s.batch) {
            add("key_lengths", "padding needs one key length per batch entry: got " +
                                   std::to_string(s.key_lengths.size()) + " for batch = " + std::to_string(s.batch));
        }
        for (size_t i = 0; i < s.key_lengths.size(); ++i) {
            const int64_t len = s.key_lengths[i];
            if (len < 1 || len > s.seq_k)
                add("key_lengths", "entry " + std::to_string(i) + " = " + std::to_string(len) +
                                       " must be in 1..seq_k = " + std::to_string(s.seq_k) +
                                       " (a length of 0 would mask every key of that row)");
        }
    } else if (!s.key_lengths.empty()) {
        add("key_lengths", "given but mask is '" + to_string(s.mask) + "'; key lengths only apply to mask padding");
    }
    if (s.mask == MaskKind::Window && s.window < 1)
        add("window", std::to_string(s.window) + ": mask window needs the window's length in keys, >= 1 (--window W)");
    if (s.mask != MaskKind::Window && s.window != 0)
        add("window", "given (" + std::to_string(s.window) + ") but mask is '" + to_string(s.mask) +
                          "'; a window only applies to mask window");
}

// An SDPA backend other than auto: only for variant sdpa, with a LibTorch that selects backends, one it has.
void check_sdpa_backend(const RunSpec& s, const DeviceCaps& caps, const std::string& torch, const AddProblem& add) {
    if (s.sdpa_backend == SdpaBackend::Auto) return;
    const std::string name = to_string(s.sdpa_backend);
    if (s.variant != "sdpa") {
        add("sdpa_backend", "'" + name + "' only applies to variant sdpa (variant is '" + s.variant + "')");
    } else if (!caps.sdpa_backend_selectable) {
        add("sdpa_backend", "'" + name + "' cannot be chosen: " + torch +
                                " has no backend selection (it came with LibTorch 2.0); use auto");
    } else {
        const auto& usable = s.device.kind == DeviceKind::CUDA ? caps.cuda_sdpa_backends : caps.cpu_sdpa_backends;
        if (std::find(usable.begin(), usable.end(), name) == usable.end()) {
            std::string avail = "auto";
            for (const auto& b : usable) avail += ", " + b;
            add("sdpa_backend", "'" + name + "' is not available on " + to_string(s.device) + " with " + torch +
                                    " (available: " + avail + ")");
        }
    }
}

}  // namespace

std::vector<SpecProblem> validate(const RunSpec& s, const DeviceCaps& caps) {
    std::vector<SpecProblem> out;
    const AddProblem add = [&](std::string field, std::string msg) {
        out.push_back({std::move(field), std::move(msg)});
    };
    for (auto& p : variant_problems(s, caps)) out.push_back(std::move(p));
    const bool sizes_ok = check_sizes(s, add);
    const std::string torch = caps.torch_version.empty() ? "this LibTorch" : "LibTorch " + caps.torch_version;
    check_device_and_dtype(s, caps, torch, add);
    check_mask(s, add);
    if (s.block_size < 1) add("block_size", std::to_string(s.block_size) + " must be a positive integer");
    if (s.threads < 0) add("threads", std::to_string(s.threads) + " must be >= 0 (0 = LibTorch's default)");
    check_sdpa_backend(s, caps, torch, add);
    if (sizes_ok) {
        const int64_t need = estimate_peak_bytes(s, !sdpa_holds_scores(s, caps));
        const int64_t have = device_available_bytes(s, caps);
        if (have >= 0 && need > have)
            add("memory", "estimated peak " + gib(double(need)) + " for " + shape_string(s) + " " + to_string(s.dtype) +
                              " exceeds the " + gib(double(have)) + " available on " + to_string(s.device) +
                              "; reduce batch, heads or sequence length");
    }
    return out;
}

double visible_pairs(int64_t seq_q, int64_t seq_k, bool causal, int64_t window) {
    if (seq_q <= 0 || seq_k <= 0) return 0;
    if (window > 0) {
        // Row i: keys max(0, i - W + 1) .. min(i, Nk - 1). Rows below both W and Nk see i + 1 keys; the
        // rest are summed row by row (O(Nq), once per spec).
        double pairs = 0;
        for (int64_t i = 0; i < seq_q; ++i) {
            const int64_t first = std::max<int64_t>(0, i - window + 1), last = std::min(i, seq_k - 1);
            if (last >= first) pairs += double(last - first + 1);
        }
        return pairs;
    }
    if (!causal) return double(seq_q) * double(seq_k);
    // Top-left: rows 0..Nk-1 see i+1 keys, later rows (Nq > Nk) all Nk.
    const double full = double(std::min(seq_q, seq_k));
    return full * (full + 1) / 2 + double(std::max<int64_t>(0, seq_q - seq_k)) * double(seq_k);
}

double spec_pairs_per_head(const RunSpec& s) {
    if (s.mask == MaskKind::Padding && !s.key_lengths.empty() && int64_t(s.key_lengths.size()) == s.batch) {
        double keys = 0;
        for (int64_t len : s.key_lengths) keys += double(std::clamp<int64_t>(len, 0, s.seq_k));
        return double(s.seq_q) * keys / double(s.batch);
    }
    return visible_pairs(s.seq_q, s.seq_k, s.mask == MaskKind::Causal, s.mask == MaskKind::Window ? s.window : 0);
}

double attention_flops(const RunSpec& s) {
    const double pairs = spec_pairs_per_head(s);
    const double forward = 4.0 * double(s.batch) * double(s.heads) * pairs * double(s.head_dim);
    return s.mode == Mode::Train ? 3.0 * forward : forward;
}

std::string format_problems(const std::vector<SpecProblem>& problems) {
    std::string out;
    for (const auto& p : problems) out += p.field + ": " + p.message + "\n";
    return out;
}

std::string shape_string(const RunSpec& s) {
    std::string heads = std::to_string(s.heads);
    if (s.kv_heads != s.heads) heads += "/" + std::to_string(s.kv_heads);
    std::string seq = std::to_string(s.seq_q);
    if (s.seq_k != s.seq_q) seq += "x" + std::to_string(s.seq_k);
    return std::to_string(s.batch) + "x" + heads + "x" + seq + "x" + std::to_string(s.head_dim);
}

std::optional<SpecProblem> unwritable_output(const std::string& field, const std::string& path) {
    const auto slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    if (::access(dir.c_str(), W_OK) == 0) return std::nullopt;
    return SpecProblem{field, "cannot write '" + path + "': folder '" + dir + "': " + std::strerror(errno)};
}

}  // namespace awb
