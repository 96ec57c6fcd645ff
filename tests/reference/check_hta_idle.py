#!/usr/bin/env python3
"""attnwb inspect --idle's HTA-comparable figure (idle_hta) against what HolisticTraceAnalysis 0.5.0 itself
computed on the public traces (hta_idle_expected.json, written by hta_idle.py with an HTA venv): per rank
and stream, the host wait, kernel wait and other idle time must be equal to the nanosecond (HTA's
microseconds). Also checks that the whole-trace rows (every event, no rounding) are split the same three
ways and that each stream's steps add up to at most its whole-trace row. Needs ../shared/public-traces
beside the clone; says so and fails when it is missing.

    python3 tests/reference/check_hta_idle.py ATTNWB
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_hta_overlap import expected_traces  # noqa: E402: one way to find the public traces
CATEGORIES = ("host_wait", "kernel_wait", "other")
# Traces with nanosecond timestamps: HTA rounds every time to whole microseconds, after which many kernels
# start in the same microsecond, and pandas' sort_values (quicksort, not stable) orders those ties its own
# way, which moves a few gaps between categories. There the figures may differ by this share of the
# stream's idle time; everywhere else they must be equal.
TIED_MICROSECONDS = {"v100_ns_resolution.pt.trace.json.gz": 0.005}


def inspect_idle(attnwb, path, tmp):
    out = os.path.join(tmp, "idle.json")
    proc = subprocess.run([attnwb, "inspect", path, "--idle", "--rows", "0", "--quiet", "--json", out],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"attnwb inspect exit {proc.returncode}: {proc.stderr[-400:]}")
    with open(out) as f:
        return json.load(f)["traces"][0]


def check_trace(attnwb, t, tmp):
    failures, compared = [], 0
    got = inspect_idle(attnwb, t["path"], tmp)
    ours = {(r["rank"] if r["rank"] >= 0 else 0, r["stream"]): r for r in got["idle_hta"]["rows"]}
    share = TIED_MICROSECONDS.get(os.path.basename(t["trace"]), 0.0)
    for rank in t["ranks"]:
        for s in rank["streams"]:
            tolerance = share * sum(s[f"{c}_us"] for c in CATEGORIES) + 1e-6
            row = ours.get((rank["rank"], s["stream"]))
            if row is None:
                failures.append(f"{t['trace']}: rank {rank['rank']} stream {s['stream']}: no idle_hta row")
                continue
            for c in CATEGORIES:
                compared += 1
                if abs(row[f"{c}_ns"] / 1000.0 - s[f"{c}_us"]) > tolerance:
                    failures.append(f"{t['trace']}: rank {rank['rank']} stream {s['stream']} {c}: "
                                    f"{row[f'{c}_ns'] / 1000.0} us, HTA {s[f'{c}_us']} us")
    steps = {}
    for r in got["idle"]:
        if r["step"] >= 0:
            key = (r["rank"], r["stream"])
            steps[key] = steps.get(key, 0) + r["host_wait_ns"] + r["kernel_wait_ns"] + r["other_ns"]
    for r in got["idle"]:
        whole = r["host_wait_ns"] + r["kernel_wait_ns"] + r["other_ns"]
        if r["step"] < 0 and steps.get((r["rank"], r["stream"]), 0) > whole:
            failures.append(f"{t['trace']}: stream {r['stream']}: its steps hold more idle time than the trace")
    return failures, compared


def main():
    attnwb = sys.argv[1]
    expected = expected_traces("hta_idle_expected.json")
    if expected is None:
        return 1
    failures, compared = [], 0
    for t in expected["traces"]:
        with tempfile.TemporaryDirectory() as tmp:
            f, n = check_trace(attnwb, t, tmp)
        failures += f
        compared += n
    for f in failures:
        print("FAIL:", f)
    print(f"check_hta_idle: {compared} figures of {len(expected['traces'])} traces compared with HTA "
          f"{expected['hta_version']}, {len(failures)} differ")
    return 1 if failures or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
