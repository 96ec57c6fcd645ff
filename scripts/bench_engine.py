#!/usr/bin/python3
"""Engine benchmark: attnwb against the Python torch of the same LibTorch on this machine.

(a) attnwb bench median vs torch.utils.benchmark.Timer median, same large spec, interleaved runs, each
    side with glibc's default allocator settings and with the mmap/trim thresholds attnwb sets
    (core/engine/process_tuning.h): the allocator, not the engine, decides most of the difference here;
(b) per-iteration time of a tiny spec (1x1x64x64, train) in our engine vs the same loop in Python;
(c) peak-memory exponents of manual and chunked over N = 512..4096 (attnwb sweep, log-log fit).

Usage: /usr/bin/python3 scripts/bench_engine.py [path/to/attnwb]   (default build/app/attnwb: 1.13)
       "$(bash scripts/setup-torch2.sh)" scripts/bench_engine.py build-torch2/app/attnwb   (2.11)
The python's torch must be the LibTorch attnwb was built against.
Prints figures and ratios; asserts nothing (speed goals are read, not unit-tested).
"""
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch
from torch.utils.benchmark import Timer

ATTNWB = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] != "--timer-child" else os.path.join(os.path.dirname(__file__), "..", "build", "app", "attnwb")
THREADS = 1
torch.set_num_threads(THREADS)


def attnwb_bench(args, default_malloc=False):
    env = dict(os.environ, AWB_MALLOC_DEFAULT="1") if default_malloc else None
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([ATTNWB, "bench", "--quiet", "--threads", str(THREADS), "--no-overhead", "--json", f.name] + args,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        return json.load(open(f.name))["result"]


def tune_malloc_like_attnwb():
    import ctypes
    libc = ctypes.CDLL("libc.so.6")
    M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
    libc.mallopt(M_MMAP_THRESHOLD, 1 << 30)
    libc.mallopt(M_TRIM_THRESHOLD, 1 << 30)


def timer_child(b, h, n, d, tuned):
    """Runs in its own process (mallopt settings cannot be undone): prints the Timer's median in ms."""
    if tuned:
        tune_malloc_like_attnwb()
    q, k, v = python_inputs(b, h, n, d)
    m = Timer("step(q, k, v)", globals={"step": step, "q": q, "k": k, "v": v},
              num_threads=THREADS).blocked_autorange(min_run_time=4)
    print(json.dumps({"median_ms": m.median * 1e3, "blocks": len(m.times)}))


def python_timer(b, h, n, d, tuned):
    out = subprocess.run([sys.executable, __file__, "--timer-child", str(b), str(h), str(n), str(d), str(int(tuned))],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def python_inputs(b, h, n, d):
    torch.manual_seed(7)
    return [torch.randn(b, h, n, d, requires_grad=True) for _ in range(3)]


def attn(q, k, v):  # the article's three lines
    scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))
    return torch.matmul(torch.softmax(scores, dim=-1), v)


def step(q, k, v):
    out = attn(q, k, v)
    out.square().mean().backward()


def part_a():
    b, h, n, d = 2, 8, 1024, 64
    print(f"(a) large spec {b}x{h}x{n}x{d} float32 train, manual, {THREADS} thread: attnwb bench vs torch.utils.benchmark.Timer")
    runs = {key: [] for key in ("ours_tuned", "py_tuned", "ours_default", "py_default")}
    spec = ["--variant", "manual", "--batch", str(b), "--heads", str(h), "--seq", str(n), "--head-dim", str(d),
            "--budget", "4", "--no-memory"]
    for rnd in range(2):  # interleaved, so that drift of the machine hits both sides alike
        runs["ours_tuned"].append(attnwb_bench(spec)["timing"]["median_ns"] / 1e6)
        runs["py_tuned"].append(python_timer(b, h, n, d, True)["median_ms"])
        runs["ours_default"].append(attnwb_bench(spec, default_malloc=True)["timing"]["median_ns"] / 1e6)
        runs["py_default"].append(python_timer(b, h, n, d, False)["median_ms"])
        print("    round %d: mmap/trim thresholds 1 GiB: attnwb %.2f ms, Timer %.2f ms; glibc defaults: attnwb %.2f ms, "
              "Timer %.2f ms" % (rnd + 1, runs["ours_tuned"][-1], runs["py_tuned"][-1], runs["ours_default"][-1],
                                 runs["py_default"][-1]))
    m = {key: statistics.mean(v) for key, v in runs.items()}
    same_tuned = m["ours_tuned"] / m["py_tuned"]
    same_default = m["ours_default"] / m["py_default"]
    shipped = m["ours_tuned"] / m["py_default"]
    print(f"    => attnwb / Python, same allocator settings: {same_tuned:.3f} (thresholds 1 GiB), "
          f"{same_default:.3f} (glibc defaults)")
    print(f"    => attnwb as shipped / plain python3 (glibc defaults): {shipped:.3f}")
    return same_tuned, same_default, shipped


def part_b():
    b, h, n, d = 1, 1, 64, 64
    print(f"(b) tiny spec {b}x{h}x{n}x{d} float32 train, manual, per iteration: our engine vs the same loop in Python")
    ours, theirs = [], []
    for rnd in range(2):
        r = attnwb_bench(["--variant", "manual", "--batch", str(b), "--heads", str(h), "--seq", str(n),
                          "--head-dim", str(d), "--budget", "3", "--min-sample", "0.05", "--no-memory"])
        ours.append(r["timing"]["median_ns"] / 1e3)
        q, k, v = python_inputs(b, h, n, d)
        for _ in range(200):
            step(q, k, v)
        per_iter = []
        iters = 500
        deadline = time.perf_counter() + 3
        while time.perf_counter() < deadline or len(per_iter) < 5:
            t0 = time.perf_counter()
            for _ in range(iters):
                step(q, k, v)
            per_iter.append((time.perf_counter() - t0) / iters * 1e6)
        theirs.append(statistics.median(per_iter))
        print(f"    round {rnd + 1}: attnwb {ours[-1]:.1f} us/iteration "
              f"({r['timing']['iterations_per_sample']} iterations x {r['timing']['repeats']} samples), "
              f"Python loop {theirs[-1]:.1f} us/iteration ({len(per_iter)} blocks of {iters})")
    ratio = statistics.mean(ours) / statistics.mean(theirs)
    print(f"    => attnwb / Python = {ratio:.3f} (below 1: less dispatch overhead than the interpreter loop)")
    return ratio


def part_c():
    seqs = "512,1024,2048,4096"
    print(f"(c) peak memory vs N = {seqs}, 1x4xNx64 float32 train, manual and chunked (block 128): attnwb sweep")
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([ATTNWB, "sweep", "--quiet", "--threads", str(THREADS), "--batch", "1", "--heads", "4",
                        "--head-dim", "64", "--seq", seqs, "--variants", "manual,chunked", "--budget", "0",
                        "--min-repeats", "1", "--warmup", "0", "--json", f.name],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sweep = json.load(open(f.name))
    for p in sweep["points"]:
        s = p["spec"]
        print(f"    {s['variant']:8s} N={s['seq_k']:5d}  peak {p['bench']['peak_bytes'] / 2**20:8.1f} MiB")
    exps = {}
    for fit in sweep["fits"]:
        if fit["metric"] == "peak_memory":
            variant = fit["series"].split()[0]
            exps[variant] = fit["fit"]["exponent"]
            print(f"    memory exponent {variant:8s} {fit['fit']['exponent']:.2f} (r^2 {fit['fit']['r_squared']:.4f})")
    return exps


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--timer-child":
        timer_child(*map(int, sys.argv[2:6]), tuned=bool(int(sys.argv[6])))
        sys.exit(0)
    print(f"torch {torch.__version__}, {THREADS} intra-op thread(s), attnwb = {ATTNWB}")
    t0 = time.time()
    a = part_a()
    b = part_b()
    c = part_c()
    print(f"summary: (a) large-spec ratio {a[0]:.3f} (same allocator settings, tuned), {a[1]:.3f} (glibc defaults), "
          f"{a[2]:.3f} (as shipped vs plain python3); (b) tiny-spec ratio {b:.3f}; "
          f"(c) memory exponents manual {c.get('manual', float('nan')):.2f}, chunked {c.get('chunked', float('nan')):.2f}; "
          f"{time.time() - t0:.0f} s")
