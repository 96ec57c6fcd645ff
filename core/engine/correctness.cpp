#include "engine/correctness.h"

#include <c10/core/GradMode.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <cstdio>

#include "engine/device_caps.h"
#include "engine/engine_guard.h"
#include "engine/environment_probe.h"
#include "engine/module_variant.h"
#include "engine/thread_count_scope.h"
#include "engine/variants.h"

namespace awb {

namespace {

struct StepTensors {
    at::Tensor output, grad_q, grad_k, grad_v;  // leaf layout, the variant's dtype
};

// The gradient fed to the output's backward: unit-scale normal values, made once in the spec's dtype
// (the float64 reference gets the same values). A loss such as out.square().mean() would scale every
// gradient by 1 / numel: at (2, 8, 512, 64) they fall below float16's normal range (6.1e-5) and the
// check would measure float16's subnormals, not the variant's backward.
at::Tensor output_gradient(const RunSpec& s) {
    at::manual_seed(s.seed + 1);
    return at::randn({s.batch, s.heads, s.seq_q, s.head_dim},
                     at::TensorOptions().dtype(torch_dtype(s.dtype)).device(torch_device(s.device)));
}

// Forward and backward of a variant on the given inputs (leaves in the spec's layout), gradients kept.
StepTensors run_with_grads(const AttentionVariant& variant, const AttentionInputs& in, const at::Tensor& grad_out) {
    const at::Tensor out = variant.forward(in.q_view(), in.k_view(), in.v_view());
    out.backward(grad_out.to(out.scalar_type()));
    return {out.detach(), in.q.grad(), in.k.grad(), in.v.grad()};
}

AttentionInputs as_float64(const AttentionInputs& in) {
    AttentionInputs out = in;
    out.q = in.q.detach().to(at::kDouble).set_requires_grad(true);
    out.k = in.k.detach().to(at::kDouble).set_requires_grad(true);
    out.v = in.v.detach().to(at::kDouble).set_requires_grad(true);
    return out;
}

StepTensors reference_step(const RunSpec& spec, const AttentionInputs& in, const at::Tensor& grad_out) {
    auto manual = make_variant("manual");
    manual->prepare(spec);
    return run_with_grads(*manual, as_float64(in), grad_out);
}

TensorError compare(const std::string& name, const at::Tensor& x_in, const at::Tensor& ref, double tolerance) {
    TensorError e;
    e.name = name;
    if (!x_in.defined() || !ref.defined()) {
        e.finite = false;
        return e;
    }
    const auto x = x_in.to(at::kDouble);
    const auto ref_finite = ref.isfinite();
    e.finite = x.isfinite().logical_or(ref_finite.logical_not()).all().item<bool>();
    const auto diff = (x - ref).abs().masked_fill(ref_finite.logical_not(), 0.0);
    const auto ref_abs = ref.abs().masked_fill(ref_finite.logical_not(), 0.0);
    e.max_abs_error = diff.max().item<double>();
    e.ref_max_abs = ref_abs.max().item<double>();
    const auto significant = ref_abs.ge(1e-3 * e.ref_max_abs).logical_and(ref_abs.gt(0));
    e.max_rel_error =
        significant.any().item<bool>()
            ? (diff / ref_abs.clamp_min(1e-300)).masked_fill(significant.logical_not(), 0.0).max().item<double>()
            : 0.0;
    e.error = e.ref_max_abs > 0 ? e.max_abs_error / e.ref_max_abs : e.max_abs_error;
    e.passed = e.finite && e.error <= tolerance;
    return e;
}

// The sequence dimension of a leaf: 2 for [B,H,N,D], 1 for [B,N,H,D].
int64_t seq_dim(Layout layout) { return layout == Layout::BHND ? 2 : 1; }

MaskCheck padded_keys_check(const RunSpec& spec, const StepTensors& t) {
    MaskCheck c{"padded keys get no gradient", true, ""};
    double worst = 0;
    for (int64_t b = 0; b < spec.batch; ++b) {
        const int64_t len = spec.key_lengths[size_t(b)];
        if (len >= spec.seq_k) continue;
        for (const auto* g : {&t.grad_k, &t.grad_v}) {
            const auto padded = (*g)[b].narrow(seq_dim(spec.layout) - 1, len, spec.seq_k - len);
            worst = std::max(worst, padded.abs().max().to(at::kDouble).item<double>());
        }
    }
    c.passed = worst == 0;
    char buf[128];
    std::snprintf(buf, sizeof buf, "max |grad| over padded key positions of k and v: %g (must be exactly 0)", worst);
    c.detail = buf;
    return c;
}

std::string describe_rows(const at::Tensor& rows) {
    if (rows.isnan().all().item<bool>()) return "NaN";
    if (rows.eq(0).all().item<bool>()) return "zeros";
    if (rows.isfinite().all().item<bool>()) return "finite non-zero values";
    return "mixed NaN/inf and values";
}

// A probe with one batch entry whose keys are all padded away: validate() refuses such specs, but a
// variant must still not let that entry contaminate the others, and its behaviour is worth knowing.
MaskCheck fully_masked_rows_check(const RunSpec& spec, double tolerance) {
    RunSpec probe = spec;
    probe.batch = 2;
    probe.seq_q = probe.seq_k = std::min<int64_t>(spec.seq_k, 32);
    probe.mask = MaskKind::Padding;
    probe.key_lengths = {probe.seq_k, 0};
    auto v = make_variant(probe);
    v->prepare(probe);
    probe.mode = Mode::Forward;  // the probe's outputs only: NaN rows would make every gradient NaN
    const AttentionInputs in = make_inputs(probe);
    auto ref_in = as_float64(in);
    at::Tensor out, ref;
    {
        c10::NoGradGuard no_grad;
        out = v->forward(in.q_view(), in.k_view(), in.v_view());
        auto manual = make_variant("manual");
        manual->prepare(probe);
        ref = manual->forward(ref_in.q_view(), ref_in.k_view(), ref_in.v_view());
    }
    const auto kept = compare("output", out[0], ref[0], tolerance);
    MaskCheck c{"rows that see no key", kept.passed, ""};
    c.detail = "a batch entry with every key padded gives " + describe_rows(out[1]) +
               " (float64 manual: " + describe_rows(ref[1]) + "); the other entry " +
               (kept.passed ? "matches the reference" : "is contaminated (error " + std::to_string(kept.error) + ")");
    return c;
}

constexpr const char* kManualReference = "the float64 manual formula with the spec's mask";

// What a variant is compared with: the shared float64 manual step, or for a module of unknown
// semantics (or with --reference) a TorchScript module's own float64 step on the same inputs.
struct Reference {
    StepTensors tensors;
    std::string describe = kManualReference;
    bool masked_probe = true;  // the padding probe applies (built-ins; modules that take a mask)
};

Reference module_reference(const RunSpec& s, const AttentionInputs& in, const at::Tensor& grad_out,
                           const StepTensors& manual, const std::string& reference_module) {
    Reference r{manual};
    const ModuleMetadata meta = module_metadata(s);
    r.masked_probe = !module_extra_inputs(meta, s).empty() && meta.semantics == "attention";
    if (reference_module.empty() && meta.semantics == "attention") return r;
    auto ref = make_module_reference(s, reference_module, r.describe);
    r.tensors = run_with_grads(*ref, as_float64(in), grad_out);
    return r;
}

VariantCheck check_one(const RunSpec& spec, const std::string& name, const StepTensors& manual,
                       const at::Tensor& grad_out, double tolerance, const std::string& reference_module) {
    VariantCheck vc;
    RunSpec s = with_variant(spec, name);
    if (!s.module.empty() && !module_has_backward(s)) s.mode = Mode::Forward;  // compiled code: the output only
    vc.variant = s.variant;
    vc.reference = kManualReference;
    try {
        auto variant = make_variant(s);
        variant->prepare(s);
        const AttentionInputs in = make_inputs(s);
        const Reference ref =
            s.module.empty() ? Reference{manual} : module_reference(s, in, grad_out, manual, reference_module);
        vc.reference = ref.describe;
        if (!s.module.empty() && !module_has_backward(s)) {
            c10::NoGradGuard no_grad;  // compiled code: the output only
            vc.tensors = {compare("output", variant->forward(in.q_view(), in.k_view(), in.v_view()), ref.tensors.output,
                                  tolerance)};
            vc.note =
                "output only: an AOTInductor package's compiled code has no backward (check its TorchScript export for "
                "the gradients)";
        } else {
            const StepTensors t = run_with_grads(*variant, in, grad_out);
            vc.tensors = {compare("output", t.output, ref.tensors.output, tolerance),
                          compare("grad_q", t.grad_q, ref.tensors.grad_q, tolerance),
                          compare("grad_k", t.grad_k, ref.tensors.grad_k, tolerance),
                          compare("grad_v", t.grad_v, ref.tensors.grad_v, tolerance)};
            if (s.mask == MaskKind::Padding && ref.masked_probe) vc.mask_checks.push_back(padded_keys_check(s, t));
        }
        if (ref.masked_probe) {
            try {
                vc.mask_checks.push_back(fully_masked_rows_check(s, tolerance));
            } catch (const InvalidInput&
                         e) {  // the probe's padding mask with a backend that has no kernel for masks (flash on CUDA)
                vc.note = "rows that see no key: not probed: " + format_problems(e.problems());
            }
        }
    } catch (const InvalidInput& e) {
        if (s.module.empty())
            throw;  // an SDPA backend with no kernel for the spec: bad input with LibTorch's reasons, as in profile
        vc.failure = format_problems(e.problems());  // a module that does not fit: the other variants go on
    } catch (const c10::Error& e) {
        vc.failure = e.what_without_backtrace();
    } catch (const std::exception& e) {
        vc.failure = e.what();
    }
    vc.passed = vc.failure.empty() &&
                std::all_of(vc.tensors.begin(), vc.tensors.end(), [](auto& t) { return t.passed; }) &&
                std::all_of(vc.mask_checks.begin(), vc.mask_checks.end(), [](auto& m) { return m.passed; });
    return vc;
}

}  // namespace

CheckReport check_variants(const RunSpec& spec_in, const std::vector<std::string>& variants, double tolerance,
                           RunObserver* observer, const std::string& reference_module) {
    RunSpec spec = spec_in;
    spec.mode = Mode::Train;
    const DeviceCaps caps = query_device_caps();
    auto problems = validate(with_variant(spec, "manual"), caps);
    for (const auto& name : variants)
        for (auto& p : validate(with_variant(spec, name), caps))
            if (p.field == "variant" || p.field == "sdpa_backend") problems.push_back(std::move(p));
    if (!reference_module.empty() && module_format(reference_module) != ModuleFormat::TorchScript)
        problems.push_back({"reference", "'" + reference_module +
                                             "' is not a TorchScript file (.pt): only TorchScript runs in float64"});
    else if (!reference_module.empty())
        for (auto& p : check_module_file(reference_module)) problems.push_back({"reference", p.message});
    if (variants.empty()) problems.push_back({"variants", "no variant to check"});
    if (!problems.empty()) throw InvalidInput(std::move(problems));

    CheckReport report;
    report.spec = spec;
    report.tolerance = tolerance > 0 ? tolerance : default_tolerance(spec.dtype);
    translate_failures("checking " + shape_string(spec), [&] {
        ThreadCountScope threads(spec.threads);
        report.environment = probe_environment(spec);
        for (const auto& name : variants)
            if (const RunSpec s = with_variant(spec, name); !s.module.empty() && s.module != spec.module)
                report.environment.modules.push_back(module_identity(s.module));
        if (!reference_module.empty())
            report.environment.modules.push_back(module_identity(absolute_module_path(reference_module)));
        if (observer) observer->on_progress(0, int(variants.size()) + 1, "float64 reference");
        const RunSpec ref_spec = with_variant(spec, "manual");
        const at::Tensor grad_out = output_gradient(spec);
        const StepTensors ref = reference_step(ref_spec, make_inputs(ref_spec), grad_out);
        for (size_t i = 0; i < variants.size(); ++i) {
            if (i > 0 && observer && observer->finish_requested()) {
                report.interrupted = true;  // keep the variants checked so far
                break;
            }
            throw_if_cancelled(observer);
            if (observer) observer->on_progress(int(i) + 1, int(variants.size()) + 1, variants[i]);
            report.variants.push_back(check_one(spec, variants[i], ref, grad_out, report.tolerance, reference_module));
        }
    });
    return report;
}

}  // namespace awb
