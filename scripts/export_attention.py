#!/usr/bin/env python3
"""Exports a user's attention function or nn.Module for the workbench (`attnwb --variant PATH.pt|PATH.pt2`).

    python scripts/export_attention.py MODULE:FUNCTION [options]

MODULE is a python file (examples/softcap.py) or an importable module (mypkg.attn); FUNCTION a function
forward(q, k, v[, extra inputs]) or an nn.Module class (made with no arguments) or instance.

Writes OUT/NAME.pt (TorchScript: torch.jit.script, else torch.jit.trace with a warning) and OUT/NAME.pt2
(AOTInductor: torch.export with the sequence length dynamic, then torch._inductor.aoti_compile_and_package),
each with the metadata attnwb.json the workbench reads (core/model/module_file.h), then loads both back,
runs them at two sequence lengths against the eager function and prints the max abs error.

Calling convention: forward(q, k, v[, keep_mask][, key_lengths]) in the order --inputs lists them;
q [B, H, Nq, D], k and v [B, KVH, Nk, D] (layout bhnd; bnhd: [B, N, H, D]); returns q's shape.
keep_mask: bool [B, 1, Nq, Nk], True where a query may see a key. key_lengths: int64 [B].

The .pt2 needs torch >= 2.6 (this file's venv: /root/.cache/attention-workbench/venv-torch-2.11.0/bin/python);
the .pt also works with Debian's torch 1.13 (/usr/bin/python3) for the workbench's 1.13 build.
Exit status: 0 all written and verified, 1 something failed (each failure is one line on stderr), 2 bad usage.
"""
import argparse
import importlib
import importlib.util
import inspect
import json
import math
import os
import subprocess
import sys
import time
import warnings

# Inductor's build cache: our own, so that .so files built by other torch.compile runs without the link fix below
# (the CPU ISA probe's among them) are not reused.
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(os.path.expanduser("~"), ".cache", "attention-workbench",
                                                             "inductor-export"))
import torch  # noqa: E402

warnings.filterwarnings("ignore", category=FutureWarning)  # torch 2.11 pytree deprecations while exporting

INPUT_NAMES = ("keep_mask", "key_lengths")
BUILTIN_VARIANTS = ("manual", "sdpa", "chunked")  # core/model/variant_catalog.cpp: a module may not take their names
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64}
TOLERANCE = {"float64": 1e-9, "float32": 1e-4, "float16": 1e-2, "bfloat16": 6e-2}  # max abs error vs eager
METADATA_NAME = "attnwb.json"


class ExportError(Exception):
    """One line for the user: what failed and torch's reason, summarized."""


def summarize(exc, limit=400):
    """The first meaningful lines of torch's (often very long) message, on one line."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    skip = ("Traceback", "File ", "Set TORCH_LOGS", "For more information", "from user code", "The following call")
    lines = [ln for ln in lines if not ln.startswith(skip)]
    text = " | ".join(lines[:3]) if lines else type(exc).__name__
    text = f"{type(exc).__name__}: {text}"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def has_aoti():
    return hasattr(torch, "export") and hasattr(getattr(torch, "_inductor", None), "aoti_compile_and_package")


def fix_inductor_build(portable):
    """Two fixes to how Inductor (torch 2.11) builds the .pt2's shared library, by wrapping its private helpers.

    1. It links with -L<python's LIBDIR> before -L<torch/lib>. With Debian's python that LIBDIR is
       /usr/lib/x86_64-linux-gnu, which holds Debian's libtorch 1.13: -ltorch finds that one, --as-needed drops it,
       and the .so ends up with torch's symbols undefined and no NEEDED libtorch. Python then cannot load it
       ("undefined symbol: aoti_torch_dtype_float32") and Inductor's CPU ISA probe fails the same way, so the
       kernels lose their vectorization (AOTI_CPU_ISA "INVALID_VEC_ISA"). AOT code does not link libpython, so
       python's LIBDIR is dropped when it holds another libtorch.
    2. portable: -march=x86-64-v3 and AVX2 kernels instead of -march=native (which ties the file to this CPU)."""
    import torch._inductor.cpp_builder as cb
    from torch.utils.cpp_extension import TORCH_LIB_PATH
    python_args = cb._get_python_related_args

    def python_args_without_other_libtorch():
        include_dirs, lib_dirs = python_args()
        keep = [d for d in lib_dirs if not (os.path.exists(os.path.join(d or "", "libtorch_cpu.so"))
                                            and os.path.realpath(d) != os.path.realpath(TORCH_LIB_PATH))]
        return include_dirs, keep
    cb._get_python_related_args = python_args_without_other_libtorch
    if portable:
        os.environ["ATEN_CPU_CAPABILITY"] = "avx2"  # Inductor's ISA pick follows it
        optimization_cflags = cb._get_optimization_cflags

        def portable_cflags(*args, **kwargs):
            cflags, ldflags = optimization_cflags(*args, **kwargs)
            return ["march=x86-64-v3" if f == "march=native" else f for f in cflags], ldflags
        cb._get_optimization_cflags = portable_cflags


# ----------------------------------------------------------------------------------------------- loading
def load_target(target):
    """MODULE:FUNCTION -> (the object, its name)."""
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise ExportError(f"'{target}' is not MODULE:FUNCTION (e.g. examples/softcap.py:softcap)")
    if module_name.endswith(".py") or os.sep in module_name or os.path.isfile(module_name):
        path = os.path.abspath(module_name)
        if not os.path.isfile(path):
            raise ExportError(f"no python file '{module_name}'")
        name = os.path.splitext(os.path.basename(path))[0]
        sys.path.insert(0, os.path.dirname(path))  # its own imports of siblings
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # TorchScript resolves qualified names through sys.modules
        try:
            spec.loader.exec_module(module)
        except Exception as e:
            raise ExportError(f"cannot import '{module_name}': {summarize(e)}")
    else:
        sys.path.insert(0, os.getcwd())  # as `python -m` would: modules under the current directory
        try:
            module = importlib.import_module(module_name)
        except Exception as e:
            raise ExportError(f"cannot import module '{module_name}': {summarize(e)}")
    if not hasattr(module, attr):
        found = sorted(n for n, o in vars(module).items()
                       if not n.startswith("_") and (inspect.isfunction(o) or inspect.isclass(o))
                       and getattr(o, "__module__", None) == module.__name__)
        raise ExportError(f"'{module_name}' has no '{attr}' (it defines: {', '.join(found) or 'nothing callable'})")
    return getattr(module, attr), attr


# The wrappers the export scripts and exports when FUNCTION is a plain function: TorchScript compiles the
# global _USER_FN (set before scripting) recursively. One per arity: forward(q, k, v[, extra1[, extra2]]).
_USER_FN = None


class _Call3(torch.nn.Module):
    def forward(self, q, k, v):
        return _USER_FN(q, k, v)


class _Call4(torch.nn.Module):
    def forward(self, q, k, v, extra1):
        return _USER_FN(q, k, v, extra1)


class _Call5(torch.nn.Module):
    def forward(self, q, k, v, extra1, extra2):
        return _USER_FN(q, k, v, extra1, extra2)


def check_arity(fn, inputs, what, method=False):
    """The calling convention passes 3 + n_inputs tensors: a forward needing more, or taking fewer, is refused."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    takes_more = any(p.kind == p.VAR_POSITIONAL for p in params)
    n = 3 + len(inputs) + (1 if method else 0)  # + self
    if len(required) > n or (len(positional) < n and not takes_more):
        names = ", ".join(["q", "k", "v"] + list(inputs))
        raise ExportError(f"{what} takes ({', '.join(p.name for p in positional)}), the workbench calls it with "
                          f"{n - (1 if method else 0)} tensors ({names}): --inputs lists the extra ones after q, k, v "
                          "(keep_mask, key_lengths)")


def make_module(obj, inputs):
    """The nn.Module to script/export: the user's module, or a wrapper of the user's function."""
    global _USER_FN
    if isinstance(obj, torch.nn.Module) or (inspect.isclass(obj) and issubclass(obj, torch.nn.Module)):
        cls = obj if inspect.isclass(obj) else type(obj)
        check_arity(cls.forward, inputs, f"{cls.__name__}.forward", method=True)
    elif callable(obj):
        check_arity(obj, inputs, getattr(obj, "__name__", "the function"))
    if isinstance(obj, torch.nn.Module):
        return obj.eval()
    if inspect.isclass(obj) and issubclass(obj, torch.nn.Module):
        try:
            return obj().eval()
        except Exception as e:
            raise ExportError(f"cannot make {obj.__name__}() without arguments: {summarize(e)} "
                              "(give a function or a module-level instance instead)")
    if not callable(obj):
        raise ExportError(f"'{obj!r}' is neither a function nor an nn.Module")
    _USER_FN = obj
    return (_Call3, _Call4, _Call5)[len(inputs)]().eval()


# ----------------------------------------------------------------------------------------------- inputs
def seq_dim(layout):
    return 2 if layout == "bhnd" else 1


def make_inputs(a, nq, nk, dtype=None, device=None, seed=0):
    """q, k, v and the extra inputs in the order a.inputs lists them (a padding-like keep mask, so that
    keep_mask and key_lengths agree and every query sees at least one key)."""
    dtype = dtype or DTYPES[a.dtype]
    device = device or a.device
    g = torch.Generator().manual_seed(seed)

    def shaped(heads, n):
        shape = (a.batch, heads, n, a.head_dim) if a.layout == "bhnd" else (a.batch, n, heads, a.head_dim)
        return torch.randn(shape, generator=g, dtype=torch.float64).to(device=device, dtype=dtype)

    q, k, v = shaped(a.heads, nq), shaped(a.kv_heads, nk), shaped(a.kv_heads, nk)
    lengths = torch.tensor([max(1, nk - (b * nk) // (2 * max(a.batch, 1))) for b in range(a.batch)],
                           dtype=torch.int64, device=device)
    keep = (torch.arange(nk, device=device).view(1, 1, 1, nk) < lengths.view(-1, 1, 1, 1)).expand(a.batch, 1, nq, nk)
    extra = {"keep_mask": keep.contiguous(), "key_lengths": lengths}
    return [q, k, v] + [extra[name] for name in a.inputs]


def reference_attention(args, a):
    """float64 softmax(Q K^T / sqrt(D) + mask) V: the extra inputs' mask and the module's own (--mask)."""
    q, k, v = (t.double() for t in args[:3])
    if a.layout == "bnhd":
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    if k.size(1) != q.size(1):
        k, v = (t.repeat_interleave(q.size(1) // t.size(1), 1) for t in (k, v))
    nq, nk = q.size(2), k.size(2)
    keep = torch.ones(q.size(0), 1, nq, nk, dtype=torch.bool, device=q.device)
    extra = dict(zip(a.inputs, args[3:]))
    if "keep_mask" in extra:
        keep &= extra["keep_mask"]
    if "key_lengths" in extra:
        keep &= torch.arange(nk, device=q.device).view(1, 1, 1, nk) < extra["key_lengths"].view(-1, 1, 1, 1)
    i = torch.arange(nq, device=q.device).view(nq, 1)
    j = torch.arange(nk, device=q.device).view(1, nk)
    if a.mask in ("causal", "window"):
        keep &= j <= i
    if a.mask == "window":
        keep &= j > i - a.window
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
    out = torch.softmax(scores.masked_fill(~keep, float("-inf")), -1) @ v
    return out.transpose(1, 2) if a.layout == "bnhd" else out


# ----------------------------------------------------------------------------------------------- metadata
def build_metadata(a, obj_name, fmt, description, seq=None, reference=None, extra=None):
    meta = {"format_version": 1, "name": obj_name, "description": description,
            "torch_version": torch.__version__.split("+")[0], "layout": a.layout, "inputs": list(a.inputs),
            "semantics": a.semantics}
    if a.mask != "none":
        meta["mask"] = a.mask
        if a.mask == "window":
            meta["window"] = a.window
    if fmt == "pt2":
        meta["device"] = a.device
        meta["dtype"] = a.dtype
        meta["seq"] = seq
        meta["static"] = {"batch": a.batch, "heads": a.heads, "kv_heads": a.kv_heads, "head_dim": a.head_dim}
        if reference:
            meta["reference"] = reference
    meta.update(extra or {})
    return json.dumps(meta, indent=1)


def read_pt_metadata(path):
    files = {METADATA_NAME: ""}
    torch.jit.load(path, map_location="cpu", _extra_files=files)
    return files[METADATA_NAME]


def read_pt2_metadata(path):
    """What the workbench's C++ gets: AOTIModelPackageLoader::load_metadata_from_package (python binding)."""
    loader = torch._C._aoti.AOTIModelPackageLoader
    return dict(loader.load_metadata_from_package(path, "model"))


# ----------------------------------------------------------------------------------------------- exports
def export_pt(module, a, obj_name, path, example):
    """torch.jit.script, else torch.jit.trace (with a warning); saves with the metadata. -> (how, notes)."""
    how, note = "scripted", ""
    try:
        scripted = torch.jit.script(module)
    except Exception as e:
        reason = summarize(e, 240)
        print(f"warning: torch.jit.script failed ({reason}); tracing instead: tracing records the ops of the "
              "example inputs, so Python control flow and sizes read as Python ints are fixed at export",
              file=sys.stderr)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scripted = torch.jit.trace(module, tuple(example), check_trace=False)
        except Exception as e2:
            raise ExportError(f"TorchScript: cannot script ({reason}) nor trace it ({summarize(e2, 240)})")
        how = "traced"
        note = (f" Traced (torch.jit.script failed: {reason}): control flow and sizes taken as Python numbers are "
                f"fixed to the example inputs' ({' x '.join(str(s) for s in example[0].shape)}).")
    description = a.description + note
    # A trace holds for the example's sizes: B, H, KVH, D are recorded as static (the sequence length is checked
    # at other values by the verification below, which fails when the trace fixed it).
    extra = {"static": {"batch": a.batch, "heads": a.heads, "kv_heads": a.kv_heads, "head_dim": a.head_dim}} \
        if how == "traced" else None
    text = build_metadata(a, obj_name, "pt", description.strip(), extra=extra)
    scripted.save(path, _extra_files={METADATA_NAME: text})
    return how


def dynamic_shapes(a, nq, nk):
    d = seq_dim(a.layout)
    shapes = [{d: nq}, {d: nk}, {d: nk}]
    for name in a.inputs:
        shapes.append({2: nq, 3: nk} if name == "keep_mask" else None)
    return tuple(shapes)


def exported_seq_range(ep, a):
    """(min, max, Nq and Nk one symbol?) of the sequence lengths the exported program accepts: torch.export
    narrows a Dim.DYNAMIC range to what the function's guards allow (flex_attention: N > 128)."""
    d = seq_dim(a.layout)
    placeholders = [n for n in ep.graph.nodes if n.op == "placeholder" and isinstance(n.meta.get("val"), torch.Tensor)]
    user_inputs = placeholders[-(3 + len(a.inputs)):]
    sizes = [user_inputs[0].meta["val"].shape[d], user_inputs[1].meta["val"].shape[d]]
    lo, hi, symbols = a.seq_min, a.seq_max, []
    for size in sizes:
        if isinstance(size, int):
            lo, hi = max(lo, size), min(hi, size)
            continue
        expr = size.node.expr
        symbols.append(expr)
        vr = ep.range_constraints.get(expr)
        if vr is not None:
            lo, hi = max(lo, int(vr.lower)), min(hi, int(vr.upper))
    return lo, hi, len(symbols) == 2 and symbols[0] == symbols[1]


def export_program(module, a):
    """torch.export with Nq and Nk two Dim.DYNAMIC (cross attention); when the function needs Nq == Nk (it fails
    on unequal example lengths), one. -> (ExportedProgram, (seq min, seq max), Nq == Nk required)."""
    if a.seq_min == a.seq_max:
        args = make_inputs(a, a.seq_min, a.seq_min)
        try:
            return torch.export.export(module, tuple(args), strict=False), (a.seq_min, a.seq_min), True
        except Exception as e:
            raise ExportError(f"torch.export failed: {summarize(e)}")
    Dim = torch.export.Dim
    n = a.example_seq or min(max(a.seq_min, 512), a.seq_max)
    n2 = n + 8 if n + 8 <= a.seq_max else n - 8  # unequal example lengths, so that nothing ties Nq to Nk
    try:
        nq, nk = Dim.DYNAMIC(min=a.seq_min, max=a.seq_max), Dim.DYNAMIC(min=a.seq_min, max=a.seq_max)
        ep = torch.export.export(module, tuple(make_inputs(a, n, n2)), dynamic_shapes=dynamic_shapes(a, nq, nk),
                                 strict=False)
    except Exception as e:
        cross_error = summarize(e, 200)
        try:
            nq = Dim("N", min=a.seq_min, max=a.seq_max)
            ep = torch.export.export(module, tuple(make_inputs(a, n, n)), dynamic_shapes=dynamic_shapes(a, nq, nq),
                                     strict=False)
        except Exception as e2:
            raise ExportError(f"torch.export failed with a dynamic sequence length {a.seq_min}..{a.seq_max}: "
                              f"{summarize(e2)} (Nq != Nk failed too: {cross_error}; a module that needs one "
                              "fixed N: --seq-min N --seq-max N)")
        print(f"note: exported with Nq == Nk (one Dim): with Nq != Nk it failed: {cross_error}", file=sys.stderr)
    lo, hi, equal = exported_seq_range(ep, a)
    if lo > hi:
        raise ExportError(f"torch.export left no sequence length in {a.seq_min}..{a.seq_max} (guards: "
                          f"{ep.range_constraints})")
    if (lo, hi) != (a.seq_min, a.seq_max):
        print(f"note: the exported program accepts N {lo}..{hi} only (torch.export narrowed "
              f"{a.seq_min}..{a.seq_max} to what the function's guards allow); the metadata says so",
              file=sys.stderr)
    return ep, (lo, hi), equal


def export_pt2(module, a, obj_name, path, reference):
    """-> (seq min, seq max, Nq == Nk required) of the exported program."""
    ep, (lo, hi), seq_equal = export_program(module, a)
    extra = {"seq_equal": True} if seq_equal and lo != hi else None
    description = a.description + (" Nq must equal Nk (exported with one sequence Dim)." if extra else "")
    text = build_metadata(a, obj_name, "pt2", description.strip(), seq={"min": lo, "max": hi}, reference=reference,
                          extra=extra)
    try:
        torch._inductor.aoti_compile_and_package(
            ep, package_path=path, inductor_configs={"aot_inductor.metadata": {METADATA_NAME: text}})
    except Exception as e:
        raise ExportError(f"AOTInductor compile failed: {summarize(e)}")
    return lo, hi, seq_equal


# ----------------------------------------------------------------------------------------------- checks
def check_lengths(seq, seq_equal):
    """(Nq, Nk) pairs to verify at: two lengths in seq = (min, max), and Nq < Nk when the export allows cross
    attention (Nq < Nk: under a causal mask every query still sees a key)."""
    seq_min, seq_max = seq
    if seq_min == seq_max:
        return [(seq_min, seq_min)]
    lo = min(max(seq_min, 37), seq_max)
    hi = min(max(seq_min, 3 * lo + 5), seq_max)
    if hi == lo:
        hi = seq_max if seq_max != lo else seq_min
    return [(lo, lo), (hi, hi)] + ([] if seq_equal else [(lo, hi)])


def max_error(out, expected, q, what):
    if not isinstance(out, torch.Tensor):
        raise ExportError(f"{what} returns {type(out).__name__}, not a tensor")
    if tuple(out.shape) != tuple(q.shape):
        raise ExportError(f"{what} returns shape {list(out.shape)}, the workbench needs q's shape {list(q.shape)}")
    out, expected = out.double(), expected.double()
    diff = (out - expected).abs().masked_fill(out.isnan() & expected.isnan(), 0.0)
    return diff.nan_to_num(nan=float("inf")).max().item()


def verify(a, module, runners, seq, seq_equal):
    """Runs every loaded file and the eager module at the check lengths. -> {label: max abs error}."""
    errors = {label: 0.0 for label in runners}
    for seed, (nq, nk) in enumerate(check_lengths(seq, seq_equal)):
        args = make_inputs(a, nq, nk, seed=seed + 1)
        now = {}
        with torch.no_grad():
            expected = module(*args)
            for label, run in runners.items():
                now[label] = max_error(run(*args), expected, args[0], f"{label} at Nq={nq} Nk={nk}")
                errors[label] = max(errors[label], now[label])
        print(f"  checked at Nq={nq} Nk={nk}: " + ", ".join(f"{lb} max abs error {e:.2e}" for lb, e in now.items()))
    return errors


def check_semantics(a, module, seq, seq_equal):
    """semantics 'attention': the eager module in float64 against softmax(QK^T/sqrt(D) + mask) V."""
    nq, nk = check_lengths(seq, seq_equal)[-1]
    args = make_inputs(a, nq, nk, dtype=torch.float64, device="cpu", seed=9)
    try:
        with torch.no_grad():
            out = module(*args)
    except Exception as e:
        print(f"  semantics: not checked (the function does not run in float64 on CPU: {summarize(e, 160)})")
        return True
    expected = reference_attention(args, a)
    seen = ~expected.isnan().any(-1, keepdim=True)  # queries that see no key: softmax of -inf only (NaN)
    err = max_error(torch.where(seen, out, expected.new_zeros(())), torch.where(seen, expected, expected.new_zeros(())),
                    args[0], "the eager function")
    ok = err < 1e-8
    print(f"  semantics 'attention': eager float64 vs softmax(QK^T/sqrt(D) + mask) V at Nq={nq} Nk={nk}: "
          f"max abs error {err:.2e}" + ("" if ok else " -- NOT attention under that mask: use --semantics custom, "
                                         "or --mask/--window/--inputs as the function really masks"))
    return ok


# ----------------------------------------------------------------------------------------------- main
def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog="See examples/README.md.",
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", metavar="MODULE:FUNCTION")
    p.add_argument("--out", default=".", help="output folder (default .)")
    p.add_argument("--name", help="file stem, the variant's name in the workbench (default FUNCTION)")
    p.add_argument("--formats", help="pt,pt2 (default both where this torch supports them)")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help=".pt2: compiled for (default cpu)")
    p.add_argument("--dtype", default="float32", choices=list(DTYPES), help=".pt2: traced with (default float32)")
    p.add_argument("--batch", type=int, default=1, help="example batch B (static in the .pt2, default 1)")
    p.add_argument("--heads", type=int, default=2, help="example H (static in the .pt2, default 2)")
    p.add_argument("--kv-heads", type=int, help="example KVH, dividing H (static in the .pt2, default H)")
    p.add_argument("--head-dim", type=int, default=64, help="example D (static in the .pt2, default 64)")
    p.add_argument("--seq-min", type=int, default=16, help="smallest sequence length the .pt2 takes (default 16)")
    p.add_argument("--seq-max", type=int, default=8192, help="largest sequence length (default 8192; = min: static)")
    p.add_argument("--example-seq", type=int,
                   help="the sequence length torch.export traces with (default 512 within the range); the guards "
                        "it records may depend on it")
    p.add_argument("--layout", default="bhnd", choices=["bhnd", "bnhd"])
    p.add_argument("--inputs", default="", help="extra inputs after q, k, v in this order: keep_mask,key_lengths")
    p.add_argument("--semantics", default="custom", choices=["attention", "custom"],
                   help="attention: softmax(QK^T/sqrt(D) + the spec's mask) V, checked against the workbench's "
                        "float64 reference; custom: anything else (default)")
    p.add_argument("--mask", default="none", choices=["none", "causal", "window"],
                   help="the mask the module applies itself, internally (default none)")
    p.add_argument("--window", type=int, default=0, help="with --mask window: W keys (query i sees i-W+1..i)")
    p.add_argument("--description", default="", help="free text stored in the metadata")
    p.add_argument("--verify-only", action="store_true", help=argparse.SUPPRESS)  # the fresh process verifying a .pt2
    p.add_argument("--portable", action="store_true",
                   help=".pt2 on CPU: compile for x86-64-v3 (AVX2) instead of -march=native, so that the file runs "
                        "on other x86 CPUs (default: this CPU's ISA, which may fail on CPUs without it)")
    return p.parse_args(argv)


def check_args(a):
    a.inputs = [s for s in a.inputs.split(",") if s]
    a.kv_heads = a.kv_heads or a.heads
    a.name = a.name or a.target.rpartition(":")[2]
    problems = [f"--inputs: unknown '{s}' (known: {', '.join(INPUT_NAMES)})" for s in a.inputs if s not in INPUT_NAMES]
    if len(set(a.inputs)) != len(a.inputs):
        problems.append("--inputs: an input is listed twice")
    if min(a.batch, a.heads, a.kv_heads, a.head_dim) < 1 or a.heads % a.kv_heads:
        problems.append("--batch/--heads/--kv-heads/--head-dim must be >= 1, and --kv-heads must divide --heads")
    if not 2 <= a.seq_min <= a.seq_max:
        problems.append(f"--seq-min {a.seq_min} --seq-max {a.seq_max}: need 2 <= min <= max (torch.export "
                        "specializes lengths 0 and 1)")
    if (a.mask == "window") != (a.window > 0):
        problems.append("--window W > 0 goes with --mask window, and only with it")
    if a.name in BUILTIN_VARIANTS or not a.name or "/" in a.name:
        problems.append(f"--name '{a.name}': pick another (not a path, not a built-in variant: "
                        f"{', '.join(BUILTIN_VARIANTS)})")
    formats = a.formats.split(",") if a.formats else (["pt", "pt2"] if has_aoti() else ["pt"])
    problems += [f"--formats: unknown '{f}' (pt, pt2)" for f in formats if f not in ("pt", "pt2")]
    if "pt2" in formats and not has_aoti():
        problems.append(f"--formats pt2: AOTInductor packages need torch >= 2.6, this is torch {torch.__version__} "
                        f"({sys.executable}); run with the torch 2 venv "
                        "(/root/.cache/attention-workbench/venv-torch-2.11.0/bin/python)")
    if "pt2" in formats and a.device == "cuda" and not torch.cuda.is_available():
        problems.append("--device cuda: this torch sees no CUDA device, and AOTInductor compiles for the device it "
                        "runs on")
    if a.device == "cpu" and a.dtype in ("float16",) and "pt2" in formats:
        print("note: float16 on CPU is slow and compiled through float32 by some kernels", file=sys.stderr)
    a.formats = formats
    return problems


def verify_pt2_elsewhere(a, argv, pt2_path):
    """Loads the .pt2 and runs it against the eager function in a fresh process (this script, --verify-only), so
    that a crash of torch's loader is one line naming the file, not the end of the export. -> passed."""
    args = list(sys.argv[1:] if argv is None else argv) + ["--formats", "pt2", "--verify-only"]
    sys.stdout.flush()
    r = subprocess.run([sys.executable, "-X", "faulthandler", os.path.abspath(__file__)] + args)
    if r.returncode < 0:
        print(f"export_attention: error: pt2: {pt2_path} is written, but torch {torch.__version__}'s loader crashed "
              f"(signal {-r.returncode}) running it in a fresh process; try it with `attnwb check --variant {pt2_path} "
              f"--device {a.device} --mode forward`", file=sys.stderr)
    return r.returncode == 0


def verify_pt2_here(a, module, pt2_path):
    """--verify-only: the .pt2 just written, loaded and run against the eager function. -> exit status."""
    try:
        meta = json.loads(read_pt2_metadata(pt2_path)[METADATA_NAME])
        lo, hi = meta["seq"]["min"], meta["seq"]["max"]
        runner = torch._inductor.aoti_load_package(pt2_path)
        print("verifying the .pt2 against the eager function (a fresh process):")
        err = verify(a, module, {"pt2": runner}, (lo, hi), bool(meta.get("seq_equal")) or lo == hi)["pt2"]
    except Exception as e:
        print(f"export_attention: error: pt2: verification: {summarize(e)}", file=sys.stderr)
        return 1
    if err > TOLERANCE[a.dtype]:
        print(f"export_attention: error: pt2: max abs error {err:.2e} vs the eager function exceeds "
              f"{TOLERANCE[a.dtype]:.0e} for {a.dtype}", file=sys.stderr)
        return 1
    return 0


def export_format(fmt, a, module, obj_name, pt_path, pt2_path, runners):
    """One format written and its metadata read back; a .pt is loaded here into runners.
    -> ((path, what, seconds, metadata), ((seq min, seq max), Nq == Nk) of a .pt2 or None)."""
    t0 = time.perf_counter()
    if fmt == "pt":
        n = min(max(a.seq_min, 64), a.seq_max)
        how = export_pt(module, a, obj_name, pt_path, make_inputs(a, n, n, dtype=torch.float32, device="cpu"))
        meta = json.loads(read_pt_metadata(pt_path))
        runners["pt"] = torch.jit.load(pt_path, map_location=a.device)
        return (pt_path, f"TorchScript ({how})", time.perf_counter() - t0, meta), None
    reference = os.path.basename(pt_path) if "pt" in runners else None
    lo, hi, seq_equal = export_pt2(module, a, obj_name, pt2_path, reference)
    package_meta = read_pt2_metadata(pt2_path)
    text = package_meta.get(METADATA_NAME)
    if text is None:
        raise ExportError(f"{pt2_path}: the package's metadata has no '{METADATA_NAME}'")
    # Loaded and run in a fresh process (verify_pt2_elsewhere): on the H200, torch 2.11's loader crashed (SIGSEGV in
    # _load_aoti) in the process that had just compiled the package, which was fine.
    cpu = a.device == "cpu"
    isa = package_meta.get("AOTI_CPU_ISA" if cpu else "AOTI_COMPUTE_CAPABILITY", "?")
    what = f"AOTInductor ({a.device}, {a.dtype}, compiled for {'CPU ISA' if cpu else 'compute capability'} {isa})"
    return (pt2_path, what, time.perf_counter() - t0, json.loads(text)), ((lo, hi), seq_equal)


def verify_here(a, module, runners, seq, seq_equal):
    """The files loaded here against the eager function, and the semantics check. -> True when something failed."""
    failed = False
    try:
        if runners:
            print("verifying against the eager function:")
            for label, err in verify(a, module, runners, seq, seq_equal).items():
                if err > TOLERANCE[a.dtype]:
                    print(f"export_attention: error: {label}: max abs error {err:.2e} vs the eager function exceeds "
                          f"{TOLERANCE[a.dtype]:.0e} for {a.dtype}", file=sys.stderr)
                    failed = True
        if a.semantics == "attention" and not check_semantics(a, module, seq, seq_equal):
            failed = True
    except ExportError as e:
        print(f"export_attention: error: {e}", file=sys.stderr)
        failed = True
    except Exception as e:
        print(f"export_attention: error: verification: {summarize(e)}", file=sys.stderr)
        failed = True
    return failed


def main(argv=None):
    a = parse_args(argv)
    problems = check_args(a)
    if problems:
        for p in problems:
            print(f"export_attention: error: {p}", file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    if "pt2" in a.formats:
        fix_inductor_build(a.portable and a.device == "cpu")
    t_start = time.perf_counter()
    try:
        obj, obj_name = load_target(a.target)
        module = make_module(obj, a.inputs)
    except ExportError as e:
        print(f"export_attention: error: {e}", file=sys.stderr)
        return 1
    pt_path = os.path.join(a.out, a.name + ".pt")
    pt2_path = os.path.join(a.out, a.name + ".pt2")
    if a.verify_only:
        return verify_pt2_here(a, module, pt2_path)
    print(f"exporting {a.target} ({type(obj).__name__ if isinstance(obj, torch.nn.Module) else obj_name}) with torch "
          f"{torch.__version__}: example {a.batch}x{a.heads}x{{N}}x{a.head_dim} (KVH {a.kv_heads}, {a.layout}), "
          f"N {a.seq_min}..{a.seq_max}, inputs q, k, v{''.join(', ' + s for s in a.inputs)}")
    written, runners, failed = [], {}, False
    seq, seq_equal = (a.seq_min, a.seq_max), a.seq_min == a.seq_max
    for fmt in a.formats:
        try:
            entry, exported_seq = export_format(fmt, a, module, obj_name, pt_path, pt2_path, runners)
            written.append(entry)
            if exported_seq:
                seq, seq_equal = exported_seq
        except ExportError as e:
            print(f"export_attention: error: {fmt}: {e}", file=sys.stderr)
            failed = True
        except Exception as e:  # anything torch raises that the steps above did not name
            print(f"export_attention: error: {fmt}: {summarize(e)}", file=sys.stderr)
            failed = True
    for path, what, seconds, meta in written:
        print(f"wrote {path}: {what}, {os.path.getsize(path) / 1024:.1f} KiB in {seconds:.1f} s; metadata "
              f"{METADATA_NAME} read back: {json.dumps({k: meta[k] for k in meta if k != 'description'})}")
    if any(path == pt2_path for path, *_ in written):
        failed |= not verify_pt2_elsewhere(a, argv, pt2_path)
    if written:
        failed |= verify_here(a, module, runners, seq, seq_equal)
    print(f"{'FAILED' if failed else 'done'} in {time.perf_counter() - t_start:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
