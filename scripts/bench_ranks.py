#!/usr/bin/env python3
"""Multi-rank benchmark: `attnwb inspect FOLDER --collectives` against HolisticTraceAnalysis's
TraceAnalysis (its comm/comp overlap) on the same folder of rank traces, each run in a child process
(wall time and peak RSS), interleaved.

The folder holds N ranks of one run: a real trace (default HTA's v100_trace_diff_test, NCCL
all-to-all and all-reduce on a V100) grown to --size-mb by scripts/bench_import.py's grow (its events
repeated with shifted times and ids), written once per rank with that rank in its distributedInfo, so
the ranks' collectives match one to one.

    python3 scripts/bench_ranks.py --ranks 8 --size-mb 400                  # attnwb alone (HTA needs ~10x the files in RAM)
    python3 scripts/bench_ranks.py --ranks 4 --size-mb 50 --hta /work/hta-venv/bin/python
    python3 scripts/bench_ranks.py --ranks 8 --size-mb 50 --summaries     # rank summaries too

--summaries also times one rank's summary (`attnwb inspect RANK --summary`, what a Slurm task runs)
and `attnwb inspect` of the folder of the ranks' summaries, and prints their sizes.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_import as bi  # noqa: E402: the grow and the measurement are bench_import's

DEFAULT_SOURCE = os.path.join(bi.PUBLIC_TRACES, "hta", "v100_trace_diff_test.json.gz")

HTA_OVERLAP = ("import sys\n"
               "from hta.trace_analysis import TraceAnalysis\n"
               "a = TraceAnalysis(trace_dir=sys.argv[1])\n"
               "print(a.get_comm_comp_overlap(visualize=False).to_string())\n")


def rank_folder(grown, ranks, regenerate):
    """The folder of `ranks` copies of the grown trace, each saying its rank; reused when complete."""
    folder = f"{os.path.splitext(grown['path'])[0]}_x{ranks}ranks"
    os.makedirs(folder, exist_ok=True)
    old = b'"distributedInfo": {'
    for r in range(ranks):
        path = os.path.join(folder, f"rank{r}.json")
        if not regenerate and os.path.exists(path) and os.path.getsize(path) >= grown["bytes"]:
            continue
        with open(grown["path"], "rb") as src, open(path + ".part", "wb") as out:
            head = src.read(1 << 20)
            at = head.find(old)
            end = head.find(b"}", at)
            if at < 0 or end < 0:
                raise SystemExit(f"bench_ranks: {grown['path']} has no distributedInfo in its first MiB")
            info = json.dumps({"backend": "nccl", "rank": r, "world_size": ranks}).encode()
            out.write(head[:at] + b'"distributedInfo": ' + info + head[end + 1:])
            while chunk := src.read(1 << 24):
                out.write(chunk)
        os.replace(path + ".part", path)
    return folder


def workdir_of(folder):
    workdir = os.path.join(os.path.dirname(folder), "bench-ranks-out")
    os.makedirs(workdir, exist_ok=True)
    return workdir


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ranks", type=int, default=8)
    p.add_argument("--size-mb", type=int, default=100, help="each rank's trace, MB (10^6 bytes)")
    p.add_argument("--source", default=DEFAULT_SOURCE, help="the real trace grown into each rank's")
    p.add_argument("--attnwb", default="build/app/attnwb")
    p.add_argument("--hta", help="a python with HolisticTraceAnalysis installed: time its comm/comp overlap too")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--regenerate", action="store_true")
    p.add_argument("--summaries", action="store_true", help="time a rank's summary and the run opened from the summaries")
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args()
    grown = bi.grown_trace(args.source, args.size_mb, args.regenerate)
    folder = rank_folder(grown, args.ranks, args.regenerate)
    total = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder) if f.endswith(".json"))
    print(f"{folder}: {args.ranks} ranks x {grown['bytes'] / bi.MB:.1f} MB = {total / bi.MB:.1f} MB")
    for f in sorted(os.listdir(folder)):
        bi.warm_cache(os.path.join(folder, f))
    tools = [("attnwb inspect --collectives", [args.attnwb, "inspect", folder, "--collectives", "--quiet", "--rows", "5", "--timing"])]
    summaries = f"{folder}_summaries"
    if args.summaries:
        os.makedirs(summaries, exist_ok=True)
        for r in range(args.ranks):  # made once, untimed; rank 0's again below, timed
            out = os.path.join(summaries, f"rank{r}.json.gz")
            if args.regenerate or not os.path.exists(out):
                subprocess.run([args.attnwb, "inspect", os.path.join(folder, f"rank{r}.json"), "--summary", out, "--quiet"], check=True,
                               stdout=subprocess.DEVNULL)
        size = sum(os.path.getsize(os.path.join(summaries, f)) for f in os.listdir(summaries) if f.endswith(".json.gz"))
        print(f"{summaries}: {args.ranks} summaries, {size / bi.MB:.1f} MB gzipped ({size / total:.3f}x the traces)")
        tools.append(("attnwb inspect RANK0 --summary", [args.attnwb, "inspect", os.path.join(folder, "rank0.json"), "--summary",
                                                        os.path.join(workdir_of(folder), "rank0.summary.json.gz"), "--quiet"]))
        tools.append(("attnwb inspect SUMMARIES --collectives", [args.attnwb, "inspect", summaries, "--collectives", "--quiet", "--rows", "5"]))
    if args.hta:
        tools.append(("HTA TraceAnalysis + get_comm_comp_overlap", [args.hta, "-c", HTA_OVERLAP, folder]))
    workdir = workdir_of(folder)
    results = bi.measure(tools, args.repeat, total, workdir)
    print(f"\n{'tool':<44} {'wall s':>8} {'MB/s':>8} {'peak RSS MiB':>13} {'RSS / files':>12}")
    for label, r in results.items():
        if r.get("failed"):
            print(f"{label:<44} failed (exit {r['exit_code']})")
            continue
        print(f"{label:<44} {r['wall_s']:>8.2f} {r['mb_per_s']:>8.1f} {r['peak_rss_mib']:>13.0f} {r['rss_over_file']:>12.2f}")
    a, h = results.get(tools[0][0]), results.get(tools[-1][0]) if args.hta else None
    if h and not h.get("failed") and not a.get("failed"):
        print(f"attnwb is {h['wall_s'] / a['wall_s']:.1f}x faster than HTA and peaks at {a['peak_rss_bytes'] / h['peak_rss_bytes']:.2f}x its memory")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"folder": folder, "ranks": args.ranks, "bytes": total, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
