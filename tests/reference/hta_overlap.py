#!/usr/bin/env python3
"""HolisticTraceAnalysis's communication/computation overlap of Kineto traces, as JSON.

    python3 -m venv /work/hta-venv && /work/hta-venv/bin/pip install HolisticTraceAnalysis==0.5.0 "pandas<2.2"
    /work/hta-venv/bin/python tests/reference/hta_overlap.py TRACE_OR_FOLDER... [--out FILE]

    # the expected file of the four public rank traces (run from the repository root):
    /work/hta-venv/bin/python tests/reference/hta_overlap.py --out tests/reference/hta_overlap_expected.json \
        ../shared/public-traces/hta/{a100_nccl,a100_80gb_rank0,a100_trace_diff_control,v100_trace_diff_test}.json.gz

Any venv with HolisticTraceAnalysis 0.5.0 does (hta_breakdown.py's ~/.cache/attention-workbench/venv-hta too).
A folder stands for the traces in it (*.json, *.json.gz). Each trace is read alone: it is linked into a
temporary folder of its own, which HTA's TraceAnalysis reads (the rank comes from distributedInfo), once
with include_last_profiler_step False (HTA's default) and once with True.

Per trace and setting it prints HTA's own get_comm_comp_overlap table (rank, comp_comm_overlap_pctg)
and get_temporal_breakdown row, and the figures behind the overlap, recomputed from the same HTA
dataframe with HTA's own helpers (hta/analyzers/communication_analysis.py, 0.5.0):
  comm_us     length of the union of COMMUNICATION kernels (all streams of the rank merged),
  comp_us     length of the union of COMPUTATION kernels,
  overlap_us  length of the time both unions are active,
  ratio       overlap_us / comm_us; HTA's pctg is round(100 * ratio, 2).
Times are HTA's: microseconds, ts rounded up and ends rounded down to whole microseconds when the trace
has fractional timestamps (HTA_DISABLE_NS_ROUNDING=1 turns that off; "ns_rounding" records it).
"per_iteration" applies the same formula to the GPU events of each HTA iteration (the ProfilerStep around
the launching CPU event; -1: none, or stream 0, which HTA leaves without one): HTA reports per rank only.
"""
import argparse
import contextlib
import json
import logging
import os
import sys
import tempfile

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def trace_files(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith((".json", ".json.gz")))
        elif os.path.isfile(p):
            out.append(p)
        else:
            sys.exit(f"hta_overlap: {p}: no such file or folder")
    return out


def overlap_figures(gpu, sym_table):
    """HTA's get_comm_comp_overlap_value on the GPU events `gpu`, with its parts kept."""
    from hta.utils.utils import get_kernel_type, KernelType, merge_kernel_intervals
    import numpy as np
    import pandas as pd

    types = gpu["name"].map(lambda n: get_kernel_type(sym_table[n]))
    comp = merge_kernel_intervals(gpu[types.eq(KernelType.COMPUTATION.name)].copy())
    comm = merge_kernel_intervals(gpu[types.eq(KernelType.COMMUNICATION.name)].copy())
    # As HTA: +1/-1 at communication starts/ends, +2/-2 at computation's; running == 3 is overlap.
    status = (pd.concat([comm.melt(var_name="status", value_name="time").replace({"ts": 1, "end": -1}),
                         comp.melt(var_name="status", value_name="time").replace({"ts": 2, "end": -2})])
              .sort_values(by="time").reset_index(drop=True))
    status["running"] = status["status"].cumsum()
    both = status[status["running"].eq(3)].merge(status.shift(-1).dropna(), left_index=True, right_index=True)
    overlap = float((both["time_y"] - both["time_x"]).sum())
    comm_us = float((comm["end"] - comm["ts"]).sum())
    counts = types.value_counts()
    return {
        "comm_us": comm_us,
        "comp_us": float((comp["end"] - comp["ts"]).sum()),
        "overlap_us": overlap,
        "ratio": overlap / comm_us if comm_us else None,
        "pctg": float(np.round(100 * (overlap / comm_us), 2)) if comm_us else None,  # HTA's rounding
        "comm_intervals": len(comm),
        "comp_intervals": len(comp),
        "events": {k: int(counts.get(k, 0)) for k in ("COMMUNICATION", "COMPUTATION", "MEMORY", "OTHER")},
    }


def write_result(result, out):
    """The reference as JSON: to the file out, else to stdout."""
    text = json.dumps(result, indent=1) + "\n"
    if out:
        with open(out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def entry_name(path):
    """A trace as the expected files name it: ../shared/... relative to the repository, others absolute."""
    rel = os.path.relpath(os.path.abspath(path), REPO)
    return os.path.abspath(path) if rel.startswith(os.pardir + os.sep + os.pardir) else rel


def number(v):
    if v is None or v != v:  # None or NaN
        return None
    return int(v) if float(v).is_integer() else float(v)


def analyse(ta):
    t = ta.t
    sym_table = t.symbol_table.get_sym_table()
    overlap = ta.get_comm_comp_overlap(visualize=False)
    temporal = ta.get_temporal_breakdown(visualize=False)
    ranks = []
    for rank in t.get_ranks():
        df = t.get_trace(rank)
        gpu = df[df["stream"].ne(-1)]
        row = {
            "rank": int(rank),
            "comp_comm_overlap_pctg": number(overlap.loc[overlap["rank"].eq(rank), "comp_comm_overlap_pctg"].iloc[0]),
            "iterations": [int(i) for i in t.get_iterations(rank)],
            "streams": sorted(int(s) for s in gpu["stream"].unique()),
        }
        row.update(overlap_figures(gpu, sym_table))
        row["agrees_with_hta"] = row["pctg"] == row["comp_comm_overlap_pctg"] or (
            row["pctg"] is None and row["comp_comm_overlap_pctg"] is None)
        row["per_iteration"] = []
        for it, g in gpu.groupby(gpu["iteration"].fillna(-1).astype(int), sort=True):
            f = overlap_figures(g, sym_table)
            row["per_iteration"].append({"iteration": int(it), **{k: f[k] for k in
                                         ("comm_us", "comp_us", "overlap_us", "ratio", "pctg", "events")}})
        tb = temporal[temporal["rank"].eq(rank)].iloc[0]
        row["temporal_breakdown"] = {k: number(tb[k]) for k in temporal.columns if k != "rank"}
        ranks.append(row)
    return ranks


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        msg = record.getMessage()
        if " seconds" not in msg and "/tmp" not in msg:  # timings and temporary paths vary per run
            self.messages.append(msg)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+", help="trace files (.json, .json.gz) or folders of them")
    ap.add_argument("--out", help="write the JSON here instead of stdout")
    args = ap.parse_args()
    files = trace_files(args.paths)
    try:
        import hta  # noqa: F401
        from hta.trace_analysis import TraceAnalysis
        import pandas as pd
    except ImportError:
        sys.exit(f"hta_overlap: {sys.executable} has no HolisticTraceAnalysis (see this script's header)")
    from importlib.metadata import version

    result = {"hta_version": version("HolisticTraceAnalysis"), "pandas_version": pd.__version__,
              "ns_rounding": os.environ.get("HTA_DISABLE_NS_ROUNDING", "0") != "1", "traces": []}
    collect = Collect()
    for path in files:
        entry = {"trace": entry_name(path)}
        for include_last in (False, True):
            collect.messages = []
            log = logging.getLogger("hta")
            if collect not in log.handlers:  # HTA's setup_logger may have replaced the handlers
                log.addHandler(collect)
            # HTA's logging.config writes to stdout, which carries the JSON here.
            with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(sys.stderr):
                os.symlink(os.path.abspath(path), os.path.join(tmp, os.path.basename(path)))
                try:
                    ta = TraceAnalysis(trace_dir=tmp, include_last_profiler_step=include_last)
                    ranks = analyse(ta)
                except Exception as e:  # keep going: one bad trace must not hide the others
                    ranks, collect.messages = None, collect.messages + [f"{type(e).__name__}: {e}"]
            key = "include_last_profiler_step" if include_last else "exclude_last_profiler_step"
            entry[key] = {"ranks": ranks, "warnings": sorted(set(collect.messages))}
        result["traces"].append(entry)

    write_result(result, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
