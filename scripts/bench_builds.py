#!/usr/bin/python3
"""The two LibTorch builds side by side on this machine, in one run: attnwb bench of manual, sdpa and
chunked on the article's workload (2, 8, 512, 64) float32 train, one thread, profiler off, and the
peak-memory exponent of each variant over N (attnwb sweep, (1, 4, N, 64) train), from build/
(Debian's LibTorch 1.13) and build-torch2/ (the wheel's 2.11). Rounds are interleaved (1.13, 2.11,
1.13, 2.11, ...) so that a noisy neighbour hits both; every figure is printed per round, then a
markdown table of the medians over rounds for docs/performance.md.

Run: /usr/bin/python3 scripts/bench_builds.py [--rounds 2] [--budget 3] [--seq 512,1024,2048,4096]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BUILDS = [("1.13", os.path.join(ROOT, "build", "app", "attnwb")),
          ("2.11", os.path.join(ROOT, "build-torch2", "app", "attnwb"))]
VARIANTS = ["manual", "sdpa", "chunked"]


def run_json(cmd, out):
    subprocess.run(cmd + ["--json", out, "--quiet"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)


def bench(attnwb, variant, budget, tmp):
    r = run_json([attnwb, "bench", "--variant", variant, "--threads", "1", "--budget", str(budget)],
                 os.path.join(tmp, "b.json"))["result"]
    t = r["timing"]
    return {"median_ms": t["median_ns"] / 1e6, "p10_ms": t["p10_ns"] / 1e6, "p90_ms": t["p90_ns"] / 1e6,
            "cold_ms": r["cold_ns"] / 1e6, "gflops": r["gflops_per_s"], "peak_mib": r["peak_bytes"] / 2**20,
            "overhead": r.get("profiler_overhead", float("nan")), "torch": r["environment"]["torch_version"],
            "blas": r["environment"]["blas"]}


def memory_exponents(attnwb, seq, tmp):
    d = run_json([attnwb, "sweep", "--seq", seq, "--variants", ",".join(VARIANTS), "--batch", "1", "--heads", "4",
                  "--threads", "1", "--budget", "0.2", "--min-repeats", "2"], os.path.join(tmp, "s.json"))
    out = {}
    for f in d["fits"]:
        if f["metric"] == "peak_memory":
            out[f["series"].split()[0]] = f["fit"]["exponent"]
    peaks = {}
    for p in d["points"]:
        if p["status"] == "ok":
            peaks.setdefault(p["spec"]["variant"], []).append(p["bench"]["peak_bytes"] / 2**20)
    return out, peaks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--budget", type=float, default=3)
    ap.add_argument("--seq", default="512,1024,2048,4096")
    args = ap.parse_args()
    for name, path in BUILDS:
        if not os.access(path, os.X_OK):
            sys.exit(f"{path} missing: build it first (scripts/build.sh, scripts/build.sh --torch2)")
    results = {(b, v): [] for b, _ in BUILDS for v in VARIANTS}
    with tempfile.TemporaryDirectory() as tmp:
        for rnd in range(args.rounds):
            for v in VARIANTS:
                for name, path in BUILDS:
                    r = bench(path, v, args.budget, tmp)
                    results[(name, v)].append(r)
                    print(f"round {rnd + 1} torch {r['torch']} {v:8s} median {r['median_ms']:7.2f} ms "
                          f"(p10 {r['p10_ms']:.2f}, p90 {r['p90_ms']:.2f}), cold {r['cold_ms']:.1f} ms, "
                          f"{r['gflops']:.1f} GFLOP/s, peak {r['peak_mib']:.1f} MiB, overhead {r['overhead']:.2f}x"
                          f" [{r['blas']}]", flush=True)
        exps = {}
        for name, path in BUILDS:
            exps[name] = memory_exponents(path, args.seq, tmp)
            print(f"torch {name}: peak-memory exponent vs N = {args.seq}: "
                  + ", ".join(f"{v} {e:.2f} ({exps[name][1][v][0]:.1f} to {exps[name][1][v][-1]:.1f} MiB)"
                              for v, e in exps[name][0].items()), flush=True)

    def med(b, v, k):
        return statistics.median(r[k] for r in results[(b, v)])

    print("\n| variant | LibTorch | median ms (p10-p90) | cold ms | GFLOP/s | peak MiB | profiler overhead | "
          "peak-memory exponent N=" + args.seq.replace(",", "..", 1).split(",")[0] + " |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for v in VARIANTS:
        for b, _ in BUILDS:
            print(f"| {v} | {b} | {med(b, v, 'median_ms'):.1f} ({med(b, v, 'p10_ms'):.1f}-{med(b, v, 'p90_ms'):.1f}) | "
                  f"{med(b, v, 'cold_ms'):.0f} | {med(b, v, 'gflops'):.0f} | {med(b, v, 'peak_mib'):.1f} | "
                  f"{med(b, v, 'overhead'):.2f}x | {exps[b][0].get(v, float('nan')):.2f} |")
    for v in VARIANTS:
        ratio = med("2.11", v, "median_ms") / med("1.13", v, "median_ms")
        print(f"{v}: 2.11 / 1.13 median time {ratio:.2f}, peak memory "
              f"{med('2.11', v, 'peak_mib') / med('1.13', v, 'peak_mib'):.2f}")


if __name__ == "__main__":
    main()
