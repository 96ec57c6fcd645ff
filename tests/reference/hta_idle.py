#!/usr/bin/env python3
"""HolisticTraceAnalysis's idle time breakdown of Kineto traces, as JSON.

    /work/hta-venv/bin/python tests/reference/hta_idle.py TRACE_OR_FOLDER... [--out FILE]

    # the expected file of the public traces (run from the repository root, with an HTA venv:
    # python3 -m venv V && V/bin/pip install HolisticTraceAnalysis==0.5.0 "pandas<2.2"):
    V/bin/python tests/reference/hta_idle.py --out tests/reference/hta_idle_expected.json \\
        ../shared/public-traces/hta/{a100_nccl,a100_80gb_rank0,v100_trace_diff_test}.json.gz

Each trace is read alone (linked into a temporary folder, which HTA's TraceAnalysis reads with its
defaults: the last ProfilerStep left out, times rounded to whole microseconds where fractional), and per
rank it prints HTA's own get_idle_time_breakdown(ranks=[rank], visualize=False): per stream the idle time
of each category (host_wait, kernel_wait, other) in microseconds. consecutive_kernel_delay is HTA's
default, 30 (us).
"""
import argparse
import contextlib
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hta_overlap import entry_name, trace_files, write_result  # noqa: E402: one way to find and write traces


def idle_of(ta, rank):
    df, _ = ta.get_idle_time_breakdown(ranks=[rank], visualize=False)
    streams = {}
    for _, row in df.iterrows():
        s = streams.setdefault(int(row["stream"]), {"stream": int(row["stream"]), "host_wait_us": 0.0,
                                                    "kernel_wait_us": 0.0, "other_us": 0.0})
        s[f"{row['idle_category']}_us"] = float(row["idle_time"])
    return sorted(streams.values(), key=lambda s: s["stream"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+", help="trace files (.json, .json.gz) or folders of them")
    ap.add_argument("--out", help="write the JSON here instead of stdout")
    args = ap.parse_args()
    try:
        from hta.trace_analysis import TraceAnalysis
    except ImportError:
        sys.exit(f"hta_idle: {sys.executable} has no HolisticTraceAnalysis (see this script's header)")
    from importlib.metadata import version

    result = {"hta_version": version("HolisticTraceAnalysis"), "consecutive_kernel_delay_us": 30, "traces": []}
    for path in trace_files(args.paths):
        entry = {"trace": entry_name(path), "ranks": []}
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(sys.stderr):
            os.symlink(os.path.abspath(path), os.path.join(tmp, os.path.basename(path)))
            ta = TraceAnalysis(trace_dir=tmp)
            for rank in ta.t.get_ranks():
                entry["ranks"].append({"rank": int(rank), "streams": idle_of(ta, rank)})
        result["traces"].append(entry)
    write_result(result, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
