#!/usr/bin/env python3
"""Cuts the attention-library fixtures (tests/fixtures/traces/libraries/) from the public traces.

The public traces are TraceLens' test data (AMD-AGI/TraceLens, MIT), in ../shared/public-traces/tracelens
beside the repository. Each fixture keeps, unchanged, the first few calls of one attention op and what
they launched: the op and every CPU op and runtime call inside its span on its thread, the kernels those
runtime calls started (by correlation id), the trace's metadata events and its top-level keys
(deviceProperties, baseTimeNanoseconds, ...). Python-function events are left out (they are most of
the bytes and no attention rule reads them).

    python3 tests/reference/make_attention_library_fixtures.py [PUBLIC_TRACELENS_DIR]
"""
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "tests", "fixtures", "traces", "libraries")
PUBLIC = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "..", "shared", "public-traces", "tracelens")

# (fixture, source trace, op name prefix, how many calls)
CUTS = [
    ("vllm_unified_attention.json.gz", "vllm_prefilldecode_piecewise/graph_execution.json.gz", "vllm::unified_attention_with_output", 3),
    ("sglang_paged_decode_capture.json.gz", "sglang_decode_capture/bs_32_rank0.json.gz", "sglang_profiler::attention_paged_attention_ragged", 3),
    ("xdit_sage_capture.json.gz", "xdit_flux.1_aiter_sage/capture_traces/capture_trace_rank_0.json.gz", "sage_fwd_1", 3),
]


def cut(source, prefix, count):
    with gzip.open(source, "rt") as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    calls = [e for e in events if e.get("ph") == "X" and e.get("name", "").startswith(prefix)][:count]
    keep = []
    correlations = set()
    for call in calls:
        lo, hi = call["ts"], call["ts"] + call["dur"]
        for e in events:
            if e.get("ph") != "X" or e.get("cat") not in ("cpu_op", "cuda_runtime", "user_annotation"):
                continue
            if e.get("tid") == call.get("tid") and e.get("pid") == call.get("pid") and lo <= e["ts"] and e["ts"] + e.get("dur", 0) <= hi:
                keep.append(e)
                if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {}):
                    correlations.add(e["args"]["correlation"])
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and e.get("args", {}).get("correlation") in correlations:
            keep.append(e)
        if e.get("ph") == "M":
            keep.append(e)
    seen, unique = set(), []
    for e in keep:
        key = json.dumps(e, sort_keys=True)
        if key not in seen:
            seen.add(key)
            unique.append(e)
    out = {k: v for k, v in trace.items() if k != "traceEvents"}
    out["traceEvents"] = unique
    return out, len(calls)


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, source, prefix, count in CUTS:
        path = os.path.join(PUBLIC, source)
        if not os.path.exists(path):
            sys.exit(f"missing {path}: the public traces are not beside the repository")
        trace, found = cut(path, prefix, count)
        with gzip.open(os.path.join(OUT, name), "wt") as f:
            json.dump(trace, f)
        print(f"{name}: {found} calls of {prefix}, {len(trace['traceEvents'])} events, from {source}")


if __name__ == "__main__":
    main()
