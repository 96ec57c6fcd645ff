#!/usr/bin/env python3
"""attnwb's GPU time breakdown next to HolisticTraceAnalysis's temporal breakdown of the same traces.

    python3 -m venv ~/.cache/attention-workbench/venv-hta && ~/.cache/attention-workbench/venv-hta/bin/pip install HolisticTraceAnalysis
    ~/.cache/attention-workbench/venv-hta/bin/python tests/reference/hta_breakdown.py build/app/attnwb FOLDER

FOLDER holds one trace per rank (what HTA's TraceAnalysis reads). Per rank it prints HTA's idle,
compute and non-compute time over its span ("kernel_time") and ours (idle, computation, busy minus
computation, span). Known differences, by HTA's definitions (hta/analyzers/breakdown_analysis.py,
0.5.0): HTA floors times to whole microseconds, and counts every event on a device stream as busy,
device-side user annotations (gpu_user_annotation) included, which attnwb leaves out (spans, not work).
"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    attnwb, folder = sys.argv[1], sys.argv[2]
    try:
        from hta.trace_analysis import TraceAnalysis  # needs the HTA venv
    except ImportError:
        sys.exit(f"hta_breakdown: {sys.executable} has no HolisticTraceAnalysis (see this script's header)")
    if not os.path.isdir(folder):
        sys.exit(f"hta_breakdown: {folder}: not a folder (HTA reads a folder with one trace per rank)")

    hta = TraceAnalysis(trace_dir=folder).get_temporal_breakdown(visualize=False)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "i.json")
        subprocess.run([attnwb, "inspect", "--breakdown", "-q", "--rows", "1", "--json", out, folder],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            rows = json.load(f)["traces"][0]["gpu_breakdown"] or []
    ours = {(r["rank"] if r["rank"] is not None else 0): r for r in rows if r["step"] is None}
    print(f"{'rank':>4} {'':>8} {'idle us':>10} {'compute us':>11} {'non-compute us':>15} {'span us':>10}")
    for _, h in hta.iterrows():
        rank = int(h["rank"])
        print(f"{rank:>4} {'HTA':>8} {h['idle_time(us)']:>10.3f} {h['compute_time(us)']:>11.3f} "
              f"{h['non_compute_time(us)']:>15.3f} {h['kernel_time(us)']:>10.3f}")
        r = ours.get(rank)
        if r:
            print(f"{rank:>4} {'attnwb':>8} {r['idle_us']:>10.3f} {r['computation_us']:>11.3f} "
                  f"{r['busy_us'] - r['computation_us']:>15.3f} {r['span_us']:>10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
