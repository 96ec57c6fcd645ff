#include "model/module_file.h"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "model/run_observer.h"
#include "model/units.h"
#include "model/variant_catalog.h"

namespace awb {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string hex(const unsigned char* bytes, unsigned n) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (unsigned i = 0; i < n; ++i) {
        out += digits[bytes[i] >> 4];
        out += digits[bytes[i] & 15];
    }
    return out;
}

std::string sha256_of(std::FILE* f, const std::string& path) {
    std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
        throw InvalidInput({{"variant", "cannot hash '" + path + "': OpenSSL's SHA-256 is unavailable"}});
    std::vector<unsigned char> buffer(1 << 20);
    size_t n;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), f)) > 0) EVP_DigestUpdate(ctx.get(), buffer.data(), n);
    if (std::ferror(f)) throw InvalidInput({{"variant", "cannot read '" + path + "': " + std::strerror(errno)}});
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned size = 0;
    EVP_DigestFinal_ex(ctx.get(), digest, &size);
    return hex(digest, size);
}

// "the module 'mine.pt2' ..." prefix for the problems of one file.
std::string named(const std::string& path) { return "module '" + path + "' "; }

std::string string_field(const nlohmann::json& j, const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// A mask the module applies itself must be the spec's; an attention module with no mask input and no
// mask of its own cannot apply the spec's.
template <class Add>
void check_mask(const ModuleMetadata& meta, const RunSpec& s, const std::vector<std::string>& inputs, Add add) {
    const auto spec_mask = [&] {
        return to_string(s.mask) + (s.mask == MaskKind::Window ? " " + std::to_string(s.window) : std::string());
    };
    if (meta.mask && *meta.mask != MaskKind::None) {
        if (*meta.mask != s.mask || (s.mask == MaskKind::Window && meta.window != s.window))
            add("mask",
                "applies a " + to_string(*meta.mask) +
                    (*meta.mask == MaskKind::Window ? " " + std::to_string(meta.window) : std::string()) +
                    " mask itself, the spec's mask is " + spec_mask() + " (use --mask " + to_string(*meta.mask) +
                    (*meta.mask == MaskKind::Window ? " --window " + std::to_string(meta.window) : std::string()) +
                    ")");
        return;
    }
    if (s.mask != MaskKind::None && meta.semantics == "attention" && inputs.empty())
        add("mask",
            "takes no mask input (keep_mask, key_lengths) and applies none itself, so it cannot apply the spec's " +
                spec_mask() + " mask (export it with --inputs keep_mask, or run --mask none)");
}

}  // namespace

bool is_module_path(std::string_view variant) { return module_format(variant).has_value(); }

std::optional<ModuleFormat> module_format(std::string_view path) {
    if (ends_with(path, ".pt2")) return ModuleFormat::AOTInductor;
    if (ends_with(path, ".pt")) return ModuleFormat::TorchScript;
    return std::nullopt;
}

std::string to_string(ModuleFormat f) { return f == ModuleFormat::AOTInductor ? "aotinductor" : "torchscript"; }

std::string module_stem(std::string_view path) { return std::filesystem::path(path).stem().string(); }

const std::vector<std::string>& module_input_names() {
    static const std::vector<std::string> names = {"keep_mask", "key_lengths"};
    return names;
}

ModuleMetadata parse_module_metadata(const std::string& text, const std::string& path,
                                     std::vector<SpecProblem>& problems) {
    ModuleMetadata m;
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        problems.push_back({"variant", named(path) + "has metadata attnwb.json that is not a JSON object"});
        return m;
    }
    m.present = true;
    m.name = string_field(j, "name");
    m.description = string_field(j, "description");
    m.torch_version = string_field(j, "torch_version");
    m.semantics = string_field(j, "semantics");
    m.device = string_field(j, "device");
    m.dtype = string_field(j, "dtype");
    m.reference = string_field(j, "reference");
    if (const auto layout = string_field(j, "layout"); !layout.empty()) {
        m.layout = parse_layout(layout);
        if (!m.layout)
            problems.push_back({"variant", named(path) + "metadata: layout '" + layout + "' is not bhnd or bnhd"});
    }
    if (const auto mask = string_field(j, "mask"); !mask.empty()) {
        m.mask = parse_mask(mask);
        if (!m.mask)
            problems.push_back(
                {"variant", named(path) + "metadata: mask '" + mask + "' is not none, causal or window"});
    }
    if (j.contains("window") && j["window"].is_number_integer()) m.window = j["window"].get<int64_t>();
    if (j.contains("inputs") && j["inputs"].is_array())
        for (const auto& v : j["inputs"])
            if (v.is_string()) m.inputs.push_back(v.get<std::string>());
    if (j.contains("seq") && j["seq"].is_object()) {
        m.seq_min = j["seq"].value("min", int64_t(0));
        m.seq_max = j["seq"].value("max", int64_t(0));
    }
    m.seq_equal = j.contains("seq_equal") && j["seq_equal"].is_boolean() && j["seq_equal"].get<bool>();
    if (j.contains("static") && j["static"].is_object())
        for (const auto& [key, value] : j["static"].items())
            if (value.is_number_integer()) m.static_sizes[key] = value.get<int64_t>();
    if (!m.semantics.empty() && m.semantics != "attention" && m.semantics != "custom")
        problems.push_back(
            {"variant", named(path) + "metadata: semantics '" + m.semantics + "' is not attention or custom"});
    return m;
}

std::vector<std::string> module_extra_inputs(const ModuleMetadata& meta, const RunSpec& spec) {
    return spec.module_inputs.empty() ? meta.inputs : spec.module_inputs;
}

std::vector<SpecProblem> check_module_against_spec(const ModuleMetadata& meta, const RunSpec& s,
                                                   const std::string& path) {
    std::vector<SpecProblem> out;
    auto add = [&](const std::string& field, const std::string& what) { out.push_back({field, named(path) + what}); };
    for (const auto& input : module_extra_inputs(meta, s)) {
        const auto& known = module_input_names();
        if (std::find(known.begin(), known.end(), input) == known.end())
            add("module_inputs",
                "takes an input '" + input + "' the workbench cannot make (known: keep_mask, key_lengths)");
    }
    if (!meta.present) return out;
    check_mask(meta, s, module_extra_inputs(meta, s), add);
    const std::string device = s.device.kind == DeviceKind::CUDA ? "cuda" : "cpu";
    if (!meta.device.empty() && meta.device != device)
        add("device", "was compiled for " + meta.device + ", the spec runs on " + to_string(s.device) +
                          " (export it again with --device " + device + ")");
    if (!meta.dtype.empty() && meta.dtype != to_string(s.dtype))
        add("dtype", "was compiled for " + meta.dtype + ", the spec asks for " + to_string(s.dtype) +
                         " (export it again with --dtype " + to_string(s.dtype) + ")");
    if (meta.layout && *meta.layout != s.layout)
        add("layout", "takes " + to_string(*meta.layout) + " tensors, the spec's layout is " + to_string(s.layout) +
                          " (use --layout " + to_string(*meta.layout) + ")");
    const std::pair<const char*, int64_t> sizes[] = {
        {"batch", s.batch}, {"heads", s.heads}, {"kv_heads", s.kv_heads}, {"head_dim", s.head_dim}};
    for (const auto& [field, value] : sizes) {
        const auto it = meta.static_sizes.find(field);
        if (it != meta.static_sizes.end() && it->second != value)
            add(field, "was exported for " + std::string(field) + " " + std::to_string(it->second) +
                           " only, the spec has " + std::to_string(value));
    }
    if (meta.seq_equal && s.seq_q != s.seq_k)
        add("seq_k", "was exported with one length for queries and keys, the spec has seq_q " +
                         std::to_string(s.seq_q) + " and seq_k " + std::to_string(s.seq_k));
    for (const auto& [field, n] : {std::pair<const char*, int64_t>{"seq_q", s.seq_q}, {"seq_k", s.seq_k}}) {
        if (meta.seq_min > 0 && meta.seq_min == meta.seq_max && n != meta.seq_min)
            add(field, "was exported for a static N of " + std::to_string(meta.seq_min) + ", the spec has " +
                           std::to_string(n));
        else if ((meta.seq_min > 0 && n < meta.seq_min) || (meta.seq_max > 0 && n > meta.seq_max))
            add(field, "accepts N from " + std::to_string(meta.seq_min) + " to " +
                           (meta.seq_max > 0 ? std::to_string(meta.seq_max) : std::string("any")) + ", the spec has " +
                           std::to_string(n));
    }
    return out;
}

std::string describe_module(const ModuleIdentity& id) {
    return id.name + ": " + id.path + " (" + id.format +
           (id.size_bytes >= 0 ? ", " + format_bytes(id.size_bytes) : "") + ", sha256 " + id.sha256.substr(0, 12) +
           ", exported by " +
           (id.exported_by.empty() ? std::string("an unknown torch (no attnwb metadata)") : id.exported_by) + ")";
}

ModuleIdentity identify_module(const std::string& path) {
    ModuleIdentity id;
    id.path = absolute_module_path(path);
    id.name = module_stem(path);
    const auto format = module_format(path);
    id.format = format ? to_string(*format) : "";
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(id.path.c_str(), "rb"), std::fclose);
    if (!f) throw InvalidInput({{"variant", "cannot read module '" + path + "': " + std::strerror(errno)}});
    struct stat st {};
    if (::fstat(fileno(f.get()), &st) == 0) id.size_bytes = int64_t(st.st_size);
    id.sha256 = sha256_of(f.get(), path);
    return id;
}

std::string absolute_module_path(const std::string& path) {
    std::error_code ec;
    const auto abs = std::filesystem::absolute(path, ec);
    return ec ? path : abs.lexically_normal().string();
}

std::vector<SpecProblem> check_module_file(const std::string& path) {
    std::vector<SpecProblem> out;
    if (!is_module_path(path)) {
        out.push_back({"variant", "'" + path + "' is not a module file (a TorchScript .pt or an AOTInductor .pt2)"});
        return out;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        out.push_back({"variant", "cannot read module '" + path + "': " + std::strerror(errno)});
    else if (!S_ISREG(st.st_mode))
        out.push_back({"variant", "module '" + path + "' is not a regular file"});
    const std::string stem = module_stem(path);
    if (find_variant(stem))
        out.push_back({"variant", "module '" + path + "' would be named '" + stem +
                                      "', which is a built-in variant: rename the file"});
    return out;
}

}  // namespace awb
