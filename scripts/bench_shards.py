#!/usr/bin/python3
"""How even attnwb's shards of a sweep are, measured: the split is by each point's expected
time at nominal speeds, not by count. This runs a sweep on this machine three ways and prints figures:

1. each point alone (`--shard i/P` with P = the number of points: LPT gives every shard one point),
   timing its process, and a start-up alone (a tiny one-point sweep), so a point's measured cost is
   its process time less the start-up;
2. the real split, `--shard k/S` for k = 0..S-1 one after another, timing each process (the makespan
   a cluster would see with S equal workers is the longest of them);
3. from the costs of (1), what two count-based splits would take: round-robin (point i to shard
   i mod S) and contiguous blocks, side by side with the cost-balanced split's prediction.

Also the share of the expected time each shard prints against the share of the measured time, and
checks that the S shards merged hold every point once.

Run: /usr/bin/python3 scripts/bench_shards.py [build/app/attnwb] [--shards 4]
         [--seq 128,256,512,1024,2048] [--variants manual,sdpa,chunked] [--budget 0.3] [--threads 1]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def timed(cmd):
    start = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"bench_shards: {' '.join(cmd)} exited {p.returncode}:\n{p.stderr[-2000:]}")
    return elapsed, p.stdout


def indices(path):
    with open(path) as f:
        return [pt["index"] for pt in json.load(f)["points"]]


def makespan(shards, cost, startup):
    return max(startup + sum(cost[i] for i in s) for s in shards)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("attnwb", nargs="?", default=os.path.join(ROOT, "build", "app", "attnwb"))
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--seq", default="128,256,512,1024,2048")
    ap.add_argument("--variants", default="manual,sdpa,chunked")
    ap.add_argument("--budget", default="0.3")
    ap.add_argument("--threads", default="1")
    a = ap.parse_args()
    sweep = [a.attnwb, "sweep", "--seq", a.seq, "--variants", a.variants, "--budget", a.budget,
             "--threads", a.threads, "--quiet"]
    points = len(a.seq.split(",")) * len(a.variants.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        startup, _ = timed([a.attnwb, "sweep", "--seq", "16", "--variants", "manual", "--batch", "1", "--heads", "1",
                            "--head-dim", "8", "--warmup", "0", "--budget", "0", "--min-repeats", "1", "--no-memory",
                            "--threads", a.threads, "--quiet"])
        print(f"start-up and a trivial point: {startup:.2f} s")
        cost = {}
        for i in range(points):
            t, _ = timed(sweep + ["--shard", f"{i}/{points}", "--json", os.path.join(tmp, "one-{shard}.json")])
            (index,) = indices(os.path.join(tmp, f"one-{i}-of-{points}.json"))
            cost[index] = max(t - startup, 0.0)
        print("measured cost per point, s (process less start-up), in sweep order:")
        print("  " + " ".join(f"{cost[i]:.2f}" for i in range(points)))

        shards, wall, share_expected = [], [], []
        outs = [os.path.join(tmp, f"sh-{k}-of-{a.shards}.json") for k in range(a.shards)]
        for k, out in enumerate(outs):
            t, stdout = timed(sweep + ["--shard", f"{k}/{a.shards}", "--json", os.path.join(tmp, "sh-{shard}.json")])
            m = re.search(r"([0-9.]+)% of the sweep's expected time", stdout)
            share_expected.append(float(m.group(1)) / 100 if m else float("nan"))
            shards.append(indices(out))
            wall.append(t)
        merged = os.path.join(tmp, "merged.json")
        subprocess.run([a.attnwb, "merge", *outs,
                        "--json", merged, "--quiet"], check=True, capture_output=True)
        assert sorted(indices(merged)) == list(range(points)), "the merge does not hold every point once"

        total = sum(cost.values())
        print(f"\n{a.shards} shards, cost-balanced split (attnwb --shard k/{a.shards}):")
        print("  shard  points  expected share  measured share  wall s")
        for k in range(a.shards):
            measured = sum(cost[i] for i in shards[k]) / total if total else float("nan")
            print(f"  {k:5d}  {len(shards[k]):6d}  {share_expected[k]:14.1%}  {measured:14.1%}  {wall[k]:6.2f}")
        mean_wall = statistics.mean(wall)
        print(f"  measured makespan {max(wall):.2f} s, mean {mean_wall:.2f} s: max/mean {max(wall) / mean_wall:.2f}")

        round_robin = [[i for i in range(points) if i % a.shards == k] for k in range(a.shards)]
        per = -(-points // a.shards)
        blocks = [list(range(k * per, min((k + 1) * per, points))) for k in range(a.shards)]
        ideal = startup + total / a.shards
        predicted = makespan(shards, cost, startup)
        print(f"\npredicted makespan from the per-point costs (ideal {ideal:.2f} s = start-up + total/{a.shards}):")
        for name, split in [("cost-balanced (attnwb)", shards), ("round-robin by count", round_robin),
                            ("contiguous by count", blocks)]:
            span = makespan(split, cost, startup)
            print(f"  {name:24s} {span:6.2f} s  ({span / ideal:.2f}x ideal, {span / predicted:.2f}x attnwb's)")
        print(f"\nwhole sweep on one worker would take about {startup + total:.2f} s; "
              f"speed-up with {a.shards} shards: {(startup + total) / max(wall):.2f}x (measured makespan)")


if __name__ == "__main__":
    main()
