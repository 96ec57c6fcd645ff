#!/usr/bin/env python3
"""attnwb inspect --collectives's HTA-comparable overlap (collectives.overlap_hta) against what
HolisticTraceAnalysis 0.5.0 itself computed on the public NCCL traces (hta_overlap_expected.json,
written by hta_overlap.py with an HTA venv): comm_comp_overlap_pctg, and the communication and hidden
time in whole microseconds, must be equal for each trace's rank (HTA's default: the last ProfilerStep
left out). Needs ../shared/public-traces beside the clone; says so and fails when it is missing.

    python3 tests/reference/check_hta_overlap.py ATTNWB
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def expected_traces(name):
    """The expected file's traces with their paths; None (said) when the public traces are missing."""
    with open(os.path.join(HERE, name)) as f:
        expected = json.load(f)
    for t in expected["traces"]:
        t["path"] = os.path.normpath(os.path.join(ROOT, t["trace"]))
        if not os.path.exists(t["path"]):
            print(f"FAIL: {t['path']} is missing: the public traces (../shared/public-traces beside the clone) are needed")
            return None
    return expected


def main():
    attnwb = sys.argv[1]
    expected = expected_traces("hta_overlap_expected.json")
    if expected is None:
        return 1
    failures = compared = 0
    for t in expected["traces"]:
        path = t["path"]
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "c.json")
            subprocess.run([attnwb, "inspect", "--collectives", "-q", "--rows", "1", "--json", out, path], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(out) as f:
                ours = {h["rank"]: h for h in json.load(f)["traces"][0]["collectives"]["overlap_hta"]}
        for want in t["exclude_last_profiler_step"]["ranks"]:
            got = ours.get(want["rank"])
            pairs = [("comp_comm_overlap_pctg", got and got["comp_comm_overlap_pctg"], want["comp_comm_overlap_pctg"]),
                     ("comm_us", got and got["comm_ns"] / 1000, want["comm_us"]),
                     ("overlap_us", got and got["hidden_ns"] / 1000, want["overlap_us"])]
            for what, g, w in pairs:
                compared += 1
                if g is None or abs(g - w) > 1e-9:
                    failures += 1
                    print(f"FAIL {t['trace']} rank {want['rank']}: {what}: attnwb {g}, HTA {w}")
            print(f"{t['trace']} rank {want['rank']}: attnwb {got and got['comp_comm_overlap_pctg']}%, HTA {want['comp_comm_overlap_pctg']}%")
    print(f"HTA overlap: {compared} figures compared, {failures} differ")
    return 1 if failures or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
