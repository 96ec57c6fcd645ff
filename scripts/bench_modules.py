#!/usr/bin/env python3
"""Module-variant benchmark: a user's attention module run by attnwb against the same file run by
Python's torch of the same LibTorch, on this machine.

(a) large spec 2x8x1024x64 float32 forward: `attnwb bench --variant PATH --json` median vs
    torch.utils.benchmark.Timer median of the same file (.pt: torch.jit.load; .pt2:
    torch._inductor.aoti_load_package), same thread count, interleaved rounds, ratio printed; attnwb's built-in
    `manual` alongside (what the module path costs against the engine's own ops);
(b) per-call overhead: a trivial module (q + 0) on a tiny spec 1x1x16x16: attnwb bench median vs the Timer of
    the same module call in Python, per-call microseconds and their difference.

The Timer runs in a child process with glibc's mmap/trim thresholds set as attnwb sets them
(core/engine/process_tuning.h; see scripts/bench_engine.py for what the allocator alone changes).
Modules: by default exported here first with scripts/export_attention.py (about 1.5 min, the .pt2 compiles);
--pt/--pt2 give existing files (their static sizes must fit the specs above).

Usage: "$(bash scripts/setup-torch2.sh)" scripts/bench_modules.py [--attnwb build-torch2/app/attnwb] [--threads 1]
       /usr/bin/python3 scripts/bench_modules.py --attnwb build/app/attnwb      (1.13 build: .pt only)
The python's torch must be the LibTorch attnwb was built against. Prints figures; asserts nothing.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LARGE = dict(batch=2, heads=8, seq=1024, head_dim=64)
TINY = dict(batch=1, heads=1, seq=16, head_dim=16)
PASSTHROUGH = '''import torch


def passthrough(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return q + 0
'''


def attnwb_bench(a, variant, spec, budget):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        cmd = [a.attnwb, "bench", "--quiet", "--threads", str(a.threads), "--no-overhead", "--no-memory",
               "--mode", "forward", "--variant", variant, "--budget", str(budget), "--json", f.name]
        for key, value in spec.items():
            cmd += ["--" + key.replace("_", "-"), str(value)]
        run = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            raise SystemExit(f"bench_modules: {' '.join(cmd)} failed: {run.stderr.strip().splitlines()[-1:]}")
        timing = json.load(open(f.name))["result"]["timing"]
        return timing["median_ns"] / 1e3, timing


def python_timer(a, path, spec, min_run_time):
    """The Timer's median of one call of the file, in microseconds, measured in a child process."""
    args = [sys.executable, __file__, "--timer-child", path, json.dumps(spec), str(a.threads), str(min_run_time)]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["median_us"]


def timer_child(path, spec, threads, min_run_time):
    import ctypes
    from torch.utils.benchmark import Timer
    libc = ctypes.CDLL("libc.so.6")
    libc.mallopt(-3, 1 << 30)  # M_MMAP_THRESHOLD, as attnwb
    libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD
    torch.set_num_threads(threads)
    if path.endswith(".pt2"):
        # The C++ AOTIModelPackageLoader the workbench calls (run(vector<Tensor>)), through its Python binding.
        # Not aoti_load_package's wrapper: its pytree handling costs ~1.9 ms per call on the passthrough module.
        loader = torch._C._aoti.AOTIModelPackageLoader(path, "model", False, 1, -1)
        stmt, module = "module.run([q, k, v])", loader
    else:
        stmt, module = "module(q, k, v)", torch.jit.load(path)
    torch.manual_seed(0)
    b, h, n, d = spec["batch"], spec["heads"], spec["seq"], spec["head_dim"]
    q, k, v = (torch.randn(b, h, n, d) for _ in range(3))
    m = Timer(stmt, globals={"module": module, "q": q, "k": k, "v": v},
              num_threads=threads).blocked_autorange(min_run_time=min_run_time)
    print(json.dumps({"median_us": m.median * 1e6}))


def export(a, target, name, spec, out, formats):
    cmd = [sys.executable, os.path.join(HERE, "export_attention.py"), target, "--name", name, "--out", out,
           "--formats", formats, "--batch", str(spec["batch"]), "--heads", str(spec["heads"]),
           "--head-dim", str(spec["head_dim"]), "--seq-min", str(min(16, spec["seq"])),
           "--seq-max", str(max(4096, spec["seq"]))]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"bench_modules: export of {target} failed:\n{run.stderr[-2000:]}")
    return [os.path.join(out, f"{name}.{fmt}") for fmt in formats.split(",")]


def compare(a, label, path, spec, budget, rounds):
    ours, theirs = [], []
    for rnd in range(rounds):  # interleaved, so that drift of the machine hits both sides alike
        ours.append(attnwb_bench(a, path, spec, budget)[0])
        theirs.append(python_timer(a, path, spec, budget))
        print(f"    {label} round {rnd + 1}: attnwb {ours[-1]:9.1f} us, Timer {theirs[-1]:9.1f} us")
    o, t = statistics.mean(ours), statistics.mean(theirs)
    print(f"    => {label}: attnwb / Python = {o / t:.3f}  (attnwb {o:.1f} us, Timer {t:.1f} us, "
          f"difference {o - t:+.1f} us per call)")
    return o, t


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--attnwb", default=os.path.join(ROOT, "build-torch2", "app", "attnwb"))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--pt", help="the .pt for (a) (default: examples/manual_attention.py exported here)")
    p.add_argument("--pt2", help="the .pt2 for (a)")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--budget", type=float, default=3, help="seconds of samples per measurement (a)")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    has_pt2 = hasattr(getattr(torch, "_inductor", None), "aoti_load_package")
    print(f"torch {torch.__version__}, {a.threads} intra-op thread(s), attnwb = {a.attnwb}")
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        formats = "pt,pt2" if has_pt2 else "pt"
        files = {}
        if a.pt or a.pt2:
            files = {k: v for k, v in (("pt", a.pt), ("pt2", a.pt2)) if v}
        else:
            print(f"exporting examples/manual_attention.py:manual_attention ({formats}) ...", flush=True)
            files = dict(zip(formats.split(","), export(a, os.path.join(ROOT, "examples", "manual_attention.py")
                                                         + ":manual_attention", "manual_attention", LARGE, tmp,
                                                         formats)))
        spec_text = "x".join(str(LARGE[k]) for k in ("batch", "heads", "seq", "head_dim"))
        print(f"(a) {spec_text} float32 forward, {a.threads} thread(s): attnwb bench vs torch.utils.benchmark.Timer")
        builtin = statistics.mean(attnwb_bench(a, "manual", LARGE, a.budget)[0] for _ in range(a.rounds))
        print(f"    built-in manual in attnwb: {builtin:.1f} us")
        results = {fmt: compare(a, os.path.basename(path), path, LARGE, a.budget, a.rounds)
                   for fmt, path in files.items()}
        for fmt, (o, _) in results.items():
            print(f"    => {fmt} module in attnwb / built-in manual = {o / builtin:.3f}")

        module_py = os.path.join(tmp, "passthrough_module.py")
        with open(module_py, "w") as f:
            f.write(PASSTHROUGH)
        print(f"(b) per-call overhead: passthrough (q + 0), {'x'.join(str(v) for v in TINY.values())} forward")
        tiny = export(a, module_py + ":passthrough", "passthrough", TINY, tmp, formats)
        overhead = {os.path.basename(path): compare(a, os.path.basename(path), path, TINY, 2, a.rounds)
                    for path in tiny}
    summary = "; ".join(f"{k} {o / t:.3f}" for k, (o, t) in results.items())
    summary += "; per-call difference " + ", ".join(f"{k} {o - t:+.1f} us" for k, (o, t) in overhead.items())
    print(f"summary: (a) attnwb / Python: {summary}; {time.time() - t0:.0f} s")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--timer-child":
        timer_child(sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
        sys.exit(0)
    main()
