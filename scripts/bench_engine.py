#!/usr/bin/python3
"""Engine benchmark (issue 3): attnwb against Debian's python3-torch (the same LibTorch) on this machine.

(a) attnwb bench median vs torch.utils.benchmark.Timer median, same large spec, interleaved runs;
(b) per-iteration time of a tiny spec (1x1x64x64, train) in our engine vs the same loop in Python;
(c) peak-memory exponents of manual and chunked over N = 512..4096 (attnwb sweep, log-log fit).

Usage: /usr/bin/python3 scripts/bench_engine.py [path/to/attnwb]   (default build/app/attnwb)
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

ATTNWB = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "build", "app", "attnwb")
THREADS = 1
torch.set_num_threads(THREADS)


def attnwb_bench(args):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([ATTNWB, "bench", "--quiet", "--threads", str(THREADS), "--no-overhead", "--json", f.name] + args,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return json.load(open(f.name))["result"]


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
    ours, theirs = [], []
    for rnd in range(2):  # interleaved, so that drift of the machine hits both alike
        r = attnwb_bench(["--variant", "manual", "--batch", str(b), "--heads", str(h), "--seq", str(n),
                          "--head-dim", str(d), "--budget", "4", "--no-memory"])
        ours.append(r["timing"]["median_ns"] / 1e6)
        q, k, v = python_inputs(b, h, n, d)
        m = Timer("step(q, k, v)", globals={"step": step, "q": q, "k": k, "v": v},
                  num_threads=THREADS).blocked_autorange(min_run_time=4)
        theirs.append(m.median * 1e3)
        print(f"    round {rnd + 1}: attnwb median {ours[-1]:.2f} ms ({r['timing']['repeats']} samples), "
              f"Timer median {theirs[-1]:.2f} ms ({len(m.times)} blocks)")
    ratio = statistics.mean(ours) / statistics.mean(theirs)
    print(f"    => attnwb / Python = {ratio:.3f} (1.0 = same; the same LibTorch runs the same ops)")
    return ratio


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
        print(f"    {s['variant']:8s} N={s['seq_k']:5d}  peak {p['bench']['peak_bytes'] / 2**20:8.1f} MiB  "
              f"median {p['bench']['timing']['median_ns'] / 1e6:9.1f} ms")
    exps = {}
    for fit in sweep["fits"]:
        if fit["metric"] == "peak_memory":
            variant = fit["series"].split()[0]
            exps[variant] = fit["fit"]["exponent"]
            print(f"    memory exponent {variant:8s} {fit['fit']['exponent']:.2f} (r^2 {fit['fit']['r_squared']:.4f})")
    return exps


if __name__ == "__main__":
    print(f"torch {torch.__version__}, {THREADS} intra-op thread(s), attnwb = {ATTNWB}")
    t0 = time.time()
    a = part_a()
    b = part_b()
    c = part_c()
    print(f"summary: (a) large-spec ratio {a:.3f}; (b) tiny-spec ratio {b:.3f}; "
          f"(c) memory exponents manual {c.get('manual', float('nan')):.2f}, chunked {c.get('chunked', float('nan')):.2f}; "
          f"{time.time() - t0:.0f} s")
