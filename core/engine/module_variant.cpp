#include "engine/module_variant.h"

#include <sys/stat.h>
#include <torch/csrc/jit/python/update_graph_executor_opt.h>
#include <torch/script.h>

#include <filesystem>
#include <map>
#include <mutex>

#include "engine/compat.h"
#include "model/run_observer.h"

#if AWB_TORCH2 && __has_include(<torch/csrc/inductor/aoti_package/model_package_loader.h>)
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#define AWB_AOTI 1
#else
#define AWB_AOTI 0
#endif

namespace awb {

namespace {

constexpr const char* kMetadataName = "attnwb.json";

std::string named_module(const std::string& path) { return "module '" + path + "'"; }

// LibTorch's message without its TorchScript traceback: the last line that says something.
std::string torch_reason(const c10::Error& e) {
    const std::string text = e.what_without_backtrace();
    std::string last, line;
    for (size_t start = 0; start <= text.size();) {
        const size_t end = std::min(text.find('\n', start), text.size());
        line = text.substr(start, end - start);
        if (line.find_first_not_of(" \t~^") != std::string::npos) last = line;
        start = end + 1;
    }
    const std::string first = text.substr(0, text.find('\n'));
    return first == last || last.empty() ? first : first + " ... " + last;
}

std::string shape_text(const at::Tensor& t) {
    std::string out = "[";
    for (int64_t i = 0; i < t.dim(); ++i) out += (i ? ", " : "") + std::to_string(t.size(i));
    return out + "]";
}

// The file's state, so that a module exported again while the workbench runs is loaded again.
std::string file_key(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return path;
    return path + "|" + std::to_string(st.st_size) + "|" + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec);
}

struct LoadedModule {
    std::string path;
    ModuleFormat format = ModuleFormat::TorchScript;
    ModuleMetadata meta;
    std::optional<torch::jit::Module> script;
    size_t arguments = 0, required = 0;  // TorchScript forward's, without self
#if AWB_AOTI
    std::unique_ptr<torch::inductor::AOTIModelPackageLoader> aoti;
#endif
};

ModuleMetadata parse_or_throw(const std::string& text, const std::string& path) {
    if (text.empty()) return {};
    std::vector<SpecProblem> problems;
    ModuleMetadata meta = parse_module_metadata(text, path, problems);
    if (!problems.empty()) throw InvalidInput(std::move(problems));
    return meta;
}

void load_torchscript(LoadedModule& m, const at::Device& device) {
    torch::jit::ExtraFilesMap extra{{kMetadataName, ""}};
    m.script = torch::jit::load(m.path, device, extra);
    m.script->eval();
    m.meta = parse_or_throw(extra[kMetadataName], m.path);
    const auto method = m.script->find_method("forward");
    if (!method) throw InvalidInput({{"variant", named_module(m.path) + " has no forward method"}});
    const auto& args = method->function().getSchema().arguments();
    m.arguments = args.empty() ? 0 : args.size() - 1;
    for (size_t i = 1; i < args.size(); ++i)
        if (!args[i].default_value()) ++m.required;
}

#if AWB_AOTI
void load_aoti(LoadedModule& m, const at::Device& device) {
    const auto metadata = torch::inductor::AOTIModelPackageLoader::load_metadata_from_package(m.path, "model");
    const auto it = metadata.find(kMetadataName);
    if (it != metadata.end()) m.meta = parse_or_throw(it->second, m.path);
    const auto compiled_for = metadata.find("AOTI_DEVICE_KEY");
    if (m.meta.device.empty() && compiled_for != metadata.end()) m.meta.device = compiled_for->second;
    const std::string wanted = device.is_cuda() ? "cuda" : "cpu";
    if (!m.meta.device.empty() && m.meta.device != wanted)
        throw InvalidInput(
            {{"device", named_module(m.path) + " was compiled for " + m.meta.device + ", the spec runs on " + wanted +
                            " (export it again with --device " + wanted + ")"}});
    m.aoti = std::make_unique<torch::inductor::AOTIModelPackageLoader>(m.path, "model", false, 1,
                                                                       device.is_cuda() ? device.index() : -1);
}
#endif

std::shared_ptr<const LoadedModule> load_module(const std::string& path, const at::Device& device) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const LoadedModule>> cache;
    const std::string key = file_key(path) + "@" + device.str();
    std::lock_guard lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    auto m = std::make_shared<LoadedModule>();
    m->path = path;
    m->format = module_format(path).value_or(ModuleFormat::TorchScript);
    try {
        if (m->format == ModuleFormat::TorchScript) {
            load_torchscript(*m, device);
        } else {
#if AWB_AOTI
            load_aoti(*m, device);
#else
            throw InvalidInput(
                {{"variant", named_module(path) + " is an AOTInductor package, which needs LibTorch 2.x (this is " +
                                 std::string(TORCH_VERSION) + "; scripts/build.sh --torch2)"}});
#endif
        }
    } catch (const c10::Error& e) {
        throw InvalidInput({{"variant", "LibTorch " + std::string(TORCH_VERSION) + " cannot load " +
                                            named_module(path) + ": " + torch_reason(e)}});
    } catch (const std::runtime_error& e) {
        if (dynamic_cast<const InvalidInput*>(&e)) throw;
        throw InvalidInput({{"variant", "cannot load " + named_module(path) + ": " + e.what()}});
    }
    cache[key] = m;
    return m;
}

// TorchScript runs op by op, as eager does: the graph executor's optimisation (on by default) would
// profile the first calls, then compile fusion groups and a DifferentiableGraph inside the recorded
// steps (40 ms of JIT work in the third call of a 1x2x128x16 module), and the profile would show
// fusion groups instead of the aten ops the attention view and the advisor read. The setting is
// per thread; this restores it.
class OpByOp {
public:
    OpByOp() : before_(torch::jit::getGraphExecutorOptimize()) { torch::jit::setGraphExecutorOptimize(false); }
    ~OpByOp() { torch::jit::setGraphExecutorOptimize(before_); }
    OpByOp(const OpByOp&) = delete;
    OpByOp& operator=(const OpByOp&) = delete;

private:
    bool before_;
};

// The module's extra inputs for a spec, made once in prepare (outside the profiled steps).
std::vector<at::Tensor> extra_inputs(const std::vector<std::string>& names, const RunSpec& spec) {
    std::vector<at::Tensor> out;
    const auto device = torch_device(spec.device);
    for (const auto& name : names) {
        if (name == "keep_mask") {
            const auto hidden = masked_out_positions(spec);
            const auto keep = hidden.defined()
                                  ? hidden.logical_not()
                                  : at::ones({1, 1, 1, 1}, at::TensorOptions().dtype(at::kBool).device(device));
            out.push_back(keep.expand({spec.batch, 1, spec.seq_q, spec.seq_k}).contiguous());
        } else if (name == "key_lengths") {
            out.push_back(
                spec.mask == MaskKind::Padding
                    ? key_lengths_tensor(spec).view({spec.batch})
                    : at::full({spec.batch}, spec.seq_k, at::TensorOptions().dtype(at::kLong).device(device)));
        }
    }
    return out;
}

class ModuleAttention final : public AttentionVariant {
public:
    explicit ModuleAttention(std::string name) : name_(std::move(name)) {}
    std::string name() const override { return name_; }

    void prepare(const RunSpec& spec) override {
        module_ = load_module(spec.module, torch_device(spec.device));
        if (auto problems = check_module_against_spec(module_->meta, spec, spec.module); !problems.empty())
            throw InvalidInput(std::move(problems));
        if (module_->format == ModuleFormat::AOTInductor && spec.mode == Mode::Train)
            throw InvalidInput(
                {{"mode", named_module(spec.module) +
                              " is an AOTInductor package: its compiled code has no "
                              "backward, so it runs --mode forward only (its TorchScript export trains)"}});
        const auto names = module_extra_inputs(module_->meta, spec);
        const size_t passed = 3 + names.size();
        if (module_->script && (passed > module_->arguments || passed < module_->required))
            throw InvalidInput(
                {{"variant", named_module(spec.module) + "'s forward takes " + std::to_string(module_->arguments) +
                                 " inputs, the workbench passes " + std::to_string(passed) + " (q, k, v" +
                                 (names.empty() ? "" : ", " + join(names)) +
                                 "): see the calling convention in docs/modules.md, or --module-inputs"}});
        extras_ = extra_inputs(names, spec);
        layout_ = spec.layout;
        checked_ = false;
    }

    // [B,H,N,D] in and out: the module's own layout on the way in and back.
    at::Tensor forward(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) const override {
        if (layout_ == Layout::BHND) return call(q, k, v);
        return call(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)).transpose(1, 2);
    }
    at::Tensor forward_inputs(const AttentionInputs& in) const override { return call(in.q, in.k, in.v); }

private:
    static std::string join(const std::vector<std::string>& names) {
        std::string out;
        for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
        return out;
    }

    at::Tensor call(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) const {
        if (checked_) return run(q, k, v);
        at::Tensor out;
        try {
            out = run(q, k, v);
        } catch (const c10::Error& e) {  // the first call: the inputs do not fit the module
            throw InvalidInput({{"variant", named_module(module_->path) + " cannot run q " + shape_text(q) + " " +
                                                std::string(c10::toString(q.scalar_type())) + ": " + torch_reason(e)}});
        }
        if (!out.sizes().equals(q.sizes()))
            throw InvalidInput(
                {{"variant", named_module(module_->path) + " returned " + shape_text(out) + " for q " + shape_text(q) +
                                 ": forward must return the attention output in q's shape"}});
        checked_ = true;
        return out;
    }

    at::Tensor run(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) const {
        if (module_->script) {
            std::vector<c10::IValue> args{q, k, v};
            for (const auto& e : extras_) args.emplace_back(e);
            auto script = *module_->script;  // a handle: forward is not const
            const OpByOp op_by_op;
            const c10::IValue result = script.forward(std::move(args));
            if (!result.isTensor())
                throw InvalidInput({{"variant", named_module(module_->path) + "'s forward returned a " +
                                                    result.tagKind() + ", not a tensor"}});
            return result.toTensor();
        }
#if AWB_AOTI
        std::vector<at::Tensor> args{q, k, v};
        args.insert(args.end(), extras_.begin(), extras_.end());
        auto outputs = module_->aoti->run(args);
        if (outputs.empty()) throw InvalidInput({{ "variant", named_module(module_->path) + " returned no tensor" }});
        return outputs.front();
#else
        throw InvalidInput({{"variant", named_module(module_->path) + " cannot run on this LibTorch"}});
#endif
    }

    std::string name_;
    std::shared_ptr<const LoadedModule> module_;
    std::vector<at::Tensor> extras_;
    Layout layout_ = Layout::BHND;
    mutable bool checked_ = false;
};

}  // namespace

std::unique_ptr<AttentionVariant> make_module_variant(const RunSpec& spec) {
    return std::make_unique<ModuleAttention>(spec.variant.empty() ? module_stem(spec.module) : spec.variant);
}

ModuleMetadata module_metadata(const RunSpec& spec) {
    return load_module(spec.module, torch_device(spec.device))->meta;
}

bool module_has_backward(const RunSpec& spec) { return module_format(spec.module) == ModuleFormat::TorchScript; }

ModuleIdentity module_identity(const std::string& path) {
    static std::mutex mutex;
    static std::map<std::string, ModuleIdentity> cache;
    const std::string key = file_key(path);
    {
        std::lock_guard lock(mutex);
        if (auto it = cache.find(key); it != cache.end()) return it->second;
    }
    ModuleIdentity id = identify_module(path);
    try {
        const auto meta = load_module(path, at::Device(at::kCPU))->meta;
        if (!meta.torch_version.empty()) id.exported_by = "torch " + meta.torch_version;
    } catch (const std::exception&) {  // a module that does not load is refused where it runs
    }
    std::lock_guard lock(mutex);
    cache[key] = id;
    return id;
}

std::unique_ptr<AttentionVariant> make_module_reference(const RunSpec& spec, const std::string& reference_path,
                                                        std::string& describe) {
    std::string path = reference_path;
    if (!path.empty()) {
        describe = "the reference module '" + path + "' in float64";
    } else if (module_format(spec.module) == ModuleFormat::TorchScript) {
        path = spec.module;
        describe = "the module itself in float64 (TorchScript runs any dtype)";
    } else if (const auto meta = module_metadata(spec); !meta.reference.empty()) {
        path = (std::filesystem::path(spec.module).parent_path() / meta.reference).string();
        describe = "its TorchScript export '" + meta.reference + "' in float64";
    } else {
        throw InvalidInput(
            {{"reference", named_module(spec.module) + " is compiled code for one dtype and names no TorchScript "
                                                       "reference in its metadata: give --reference PATH.pt"}});
    }
    if (module_format(path) != ModuleFormat::TorchScript)
        throw InvalidInput(
            {{"reference", "'" + path + "' is not a TorchScript file (.pt): only TorchScript runs in float64"}});
    RunSpec ref = with_variant(spec, path);
    ref.dtype = Dtype::Float64;
    auto variant = make_module_variant(ref);
    variant->prepare(ref);
    return variant;
}

std::unique_ptr<AttentionVariant> make_variant(const RunSpec& spec) {
    if (!spec.module.empty()) return make_module_variant(spec);
    return make_variant(spec.variant);
}

}  // namespace awb
