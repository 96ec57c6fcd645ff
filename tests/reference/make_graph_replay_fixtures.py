#!/usr/bin/python3
"""Write the CUDA/HIP graph replay fixtures (core/results/graph_replay.h) into tests/fixtures/traces/graph_replay/.

Two pairs are cut from the public traces in ../shared/public-traces/tracelens (TraceLens' test data,
MIT, see that folder's README), one pair is made by hand:

  vllm/   vLLM prefill+decode, PIECEWISE CUDA graphs on an MI300X (ROCm: the launch calls name their
          kernels). graph_execution.json.gz: the first 3 hipGraphLaunch calls of the replay (4, 15 and 15
          kernels) with their kernels, and the CPU events between the first launch's start and the
          third's end (vllm::unified_attention_with_output runs between the graph pieces) with the
          runtime calls and device events linked to them. capture_traces/graph_capture_rank_0.json.gz:
          the first 3 capture regions (hipStreamBeginCapture .. hipStreamEndCapture) and everything the
          main thread recorded between the first region's start and the third one's end.
          capture_traces/execution_details.json names it, as vLLM writes it.
  xdit/   xDiT Flux.1 with aiter SAGE attention under torch.compile's CUDA graphs (ROCm).
          profile_trace_rank_0.json.gz: the first 2 of the 4 hipGraphLaunch calls (1566 kernels each)
          with their kernels, the CPU events between them and the ops around them.
          capture_traces/capture_trace_rank_0.json.gz: the one capture region (1567 launches: the
          replay recorded 1566 of them) with the ops inside it, the ops around it, and of the runtime
          calls only the launches and the capture's begin and end (the 6900 hipPointerGetAttribute,
          hipGetDevicePropertiesR0600 and hipStreamGetCaptureInfo calls are left out).
  cuda/   hand-made, CUDA style: cudaLaunchKernel calls do not name their kernels. capture_traces/
          capture.json holds two captured graphs: A (vllm::fused_layer > aten::mm, aten::softmax >
          aten::_softmax, aten::copy_: two kernels and a copy) and B (aten::add, aten::mul). replay.json
          replays A, B, A and one graph of 4 kernels that no capture has, then runs aten::relu normally.
          No execution_details.json: the folder's traces are the captures.

Python frames (python_function events) and flows are left out of every cut file; every other field is
kept as recorded. Output is deterministic (sorted keys, gzip mtime 0).
Run: /usr/bin/python3 tests/reference/make_graph_replay_fixtures.py [--public DIR] [--out DIR]
"""
import argparse
import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_PUBLIC = os.path.join(REPO, "..", "shared", "public-traces", "tracelens")
DEFAULT_OUT = os.path.join(REPO, "tests", "fixtures", "traces", "graph_replay")
DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation"}
CPU_CATS = {"cpu_op", "user_annotation", "cuda_runtime", "cuda_driver"}


def load(path):
    with gzip.open(path, "rt") as f:
        return json.load(f)


def write(path, trace):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = json.dumps(trace, sort_keys=True, separators=(",", ":")).encode()
    if path.endswith(".gz"):
        with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
            f.write(text)
    else:
        with open(path, "wb") as f:
            f.write(text)
    return len(text)


def end(e):
    return e["ts"] + e.get("dur", 0)


def with_events(trace, events):
    out = {k: v for k, v in trace.items() if k != "traceEvents"}
    meta = [e for e in trace["traceEvents"] if e.get("ph") == "M"]
    out["traceEvents"] = meta + sorted(events, key=lambda e: (e["ts"], -e.get("dur", 0)))
    return out


def cpu_events(trace, tid):
    return [e for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("cat") in CPU_CATS and e.get("tid") == tid]


def linked_device_events(trace, runtime_calls):
    correlations = {e["args"].get("correlation") for e in runtime_calls if e.get("cat") in ("cuda_runtime", "cuda_driver")}
    return [e for e in trace["traceEvents"]
            if e.get("ph") == "X" and e.get("cat") in DEVICE_CATS and e.get("args", {}).get("correlation") in correlations]


def cut_replay(trace, launches):
    """The first `launches` graph launches, the CPU events between them and around each, their device events."""
    graph = sorted((e for e in trace["traceEvents"] if e.get("cat") == "cuda_runtime" and e["name"].endswith("GraphLaunch")),
                   key=lambda e: e["ts"])[:launches]
    lo, hi, tid = graph[0]["ts"], end(graph[-1]), graph[0]["tid"]
    kept = [e for e in cpu_events(trace, tid)
            if (lo <= e["ts"] and end(e) <= hi) or any(e["ts"] <= g["ts"] and end(e) >= end(g) for g in graph)]
    device = [e for e in linked_device_events(trace, kept) if e.get("cat") != "gpu_user_annotation"]
    return with_events(trace, kept + device)


def cut_capture(trace, regions, launches_only=False):
    """The first `regions` capture regions and what the thread recorded from the first's start to the last's end."""
    rt = sorted((e for e in trace["traceEvents"] if e.get("cat") == "cuda_runtime"), key=lambda e: e["ts"])
    begins = [e for e in rt if e["name"].endswith("StreamBeginCapture")][:regions]
    ends = [e for e in rt if e["name"].endswith("StreamEndCapture")][:regions]
    lo, hi, tid = begins[0]["ts"], end(ends[-1]), begins[0]["tid"]

    def wanted(e):
        if e.get("cat") != "cuda_runtime" or not launches_only:
            return True
        return "Launch" in e["name"] or "Capture" in e["name"] or "Memcpy" in e["name"] or "Memset" in e["name"]

    kept = [e for e in cpu_events(trace, tid)
            if wanted(e) and ((lo <= e["ts"] and end(e) <= hi) or (e.get("cat") != "cuda_runtime" and e["ts"] <= lo and end(e) >= hi))]
    return with_events(trace, kept + linked_device_events(trace, kept))


def x(name, cat, ts, dur, tid, args, pid=100):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}


def op(name, ts, dur, ext, dims, types):
    return x(name, "cpu_op", ts, dur, 100, {"External id": ext, "Input Dims": dims, "Input type": types})


def launch(ts, ext, corr, name="cudaLaunchKernel"):
    return x(name, "cuda_runtime", ts, 2, 100, {"External id": ext, "correlation": corr})


def kernel(name, ts, dur, corr, cat="kernel", ext=None):
    args = {"device": 0, "stream": 7, "correlation": corr}
    if ext is not None:
        args["External id"] = ext
    return x(name, cat, ts, dur, 7, args, pid=0)


def hand_made_capture():
    f32 = ["float", "float"]
    events = [
        x("cudaStreamBeginCapture", "cuda_runtime", 1000, 3, 100, {"correlation": 11}),
        op("vllm::fused_layer", 1010, 90, 1, [[4, 64], [64, 128]], f32),
        op("aten::mm", 1020, 20, 2, [[4, 64], [64, 128]], f32),
        launch(1025, 2, 12),
        op("aten::softmax", 1050, 30, 3, [[4, 128], []], ["float", "Scalar"]),
        op("aten::_softmax", 1055, 20, 4, [[4, 128], [], []], ["float", "Scalar", "Scalar"]),
        launch(1060, 4, 13),
        op("aten::copy_", 1085, 10, 5, [[4, 128], [4, 128], []], ["float", "float", "Scalar"]),
        launch(1088, 5, 14, "cudaMemcpyAsync"),
        x("cudaStreamEndCapture", "cuda_runtime", 1200, 5, 100, {"correlation": 15}),
        x("cudaStreamBeginCapture", "cuda_runtime", 2000, 3, 100, {"correlation": 21}),
        op("aten::add", 2010, 20, 6, [[4, 128], [4, 128], []], ["float", "float", "Scalar"]),
        launch(2015, 6, 22),
        op("aten::mul", 2040, 20, 7, [[4, 128], [4, 128]], f32),
        launch(2045, 7, 23),
        x("cudaStreamEndCapture", "cuda_runtime", 2100, 5, 100, {"correlation": 24}),
    ]
    return {"schemaVersion": 1, "traceEvents": events, "traceName": "hand-made CUDA graph capture"}


def hand_made_replay():
    events = []
    graphs = [(501, [("gemm_kernel", 100, "kernel"), ("softmax_kernel", 50, "kernel"), ("Memcpy DtoD (Device -> Device)", 10, "gpu_memcpy")]),
              (502, [("add_kernel", 10, "kernel"), ("mul_kernel", 10, "kernel")]),
              (503, [("gemm_kernel", 100, "kernel"), ("softmax_kernel", 50, "kernel"), ("Memcpy DtoD (Device -> Device)", 10, "gpu_memcpy")]),
              (504, [("gemm_kernel", 100, "kernel"), ("add_kernel", 10, "kernel"), ("mul_kernel", 10, "kernel"), ("add_kernel", 10, "kernel")])]
    for i, (corr, work) in enumerate(graphs):
        ts = 10000 + 1000 * i
        events.append(x("cudaGraphLaunch", "cuda_runtime", ts, 20, 200, {"correlation": corr}))
        at = ts + 100
        for name, dur, cat in work:
            events.append(kernel(name, at, dur, corr, cat))
            at += dur + 10
    events += [x("aten::relu", "cpu_op", 14000, 50, 200, {"External id": 77, "Input Dims": [[4, 128]], "Input type": ["float"]}),
               x("cudaLaunchKernel", "cuda_runtime", 14010, 5, 200, {"External id": 77, "correlation": 505}),
               kernel("relu_kernel", 14100, 20, 505, ext=77)]
    return {"schemaVersion": 1, "traceEvents": events, "traceName": "hand-made CUDA graph replay"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--public", default=DEFAULT_PUBLIC, help="the tracelens folder of the public traces")
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()
    sizes = {}
    vllm = os.path.join(args.public, "vllm_prefilldecode_piecewise")
    capture_name = "graph_capture_rank_0.1773709679453551615.pt.trace.json.gz"
    sizes["vllm/graph_execution.json.gz"] = write(os.path.join(args.out, "vllm", "graph_execution.json.gz"),
                                                  cut_replay(load(os.path.join(vllm, "graph_execution.json.gz")), 3))
    sizes["vllm/capture_traces/graph_capture_rank_0.json.gz"] = write(
        os.path.join(args.out, "vllm", "capture_traces", "graph_capture_rank_0.json.gz"),
        cut_capture(load(os.path.join(vllm, "capture_traces", capture_name)), 3))
    write(os.path.join(args.out, "vllm", "capture_traces", "execution_details.json"),
          [{"file": "graph_capture_rank_0.json.gz", "batch_size": 8192, "mode": "PIECEWISE"}])
    xdit = os.path.join(args.public, "xdit_flux.1_aiter_sage")
    sizes["xdit/profile_trace_rank_0.json.gz"] = write(os.path.join(args.out, "xdit", "profile_trace_rank_0.json.gz"),
                                                       cut_replay(load(os.path.join(xdit, "profile_trace_rank_0.json.gz")), 2))
    sizes["xdit/capture_traces/capture_trace_rank_0.json.gz"] = write(
        os.path.join(args.out, "xdit", "capture_traces", "capture_trace_rank_0.json.gz"),
        cut_capture(load(os.path.join(xdit, "capture_traces", "capture_trace_rank_0.json.gz")), 1, launches_only=True))
    write(os.path.join(args.out, "xdit", "capture_traces", "execution_details.json"),
          [{"file": "capture_trace_rank_0.json.gz", "batch_size": 1, "mode": "FULL"}])
    sizes["cuda/replay.json"] = write(os.path.join(args.out, "cuda", "replay.json"), hand_made_replay())
    sizes["cuda/capture_traces/capture.json"] = write(os.path.join(args.out, "cuda", "capture_traces", "capture.json"), hand_made_capture())
    for name, n in sizes.items():
        print(f"{name}: {n} bytes of JSON")


if __name__ == "__main__":
    main()
