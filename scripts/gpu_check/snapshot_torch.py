"""Step (h) of the GPU check, PyTorch's side (run with the python under test, which has torch):

  record OUTDIR CASES.json   each case recorded as a Python user records it: inputs made (seeded, as
                             tests/reference/gpu_reference.py makes them), then
                             torch.cuda.memory._record_memory_history(max_entries=100000), the same steps
                             as attnwb profile runs (the variant under record_function, in train mode
                             out.square().mean().backward(), a device synchronise), _dump_snapshot to
                             OUTDIR/NAME.pytorch.pickle, and recording off again
  viz FILE...                torch.cuda._memory_viz's text summaries of each snapshot, as its command line
                             prints them: FILE.segsum.txt ("stats") and FILE.trace.txt ("trace"); one it
                             cannot make is said on stdout and not written

Stacks are symbolized in-process (TORCH_SYMBOLIZE_MODE=fast unless set), as attnwb does: LibTorch 2.11's
default, addr2line, can take minutes on libtorch_cuda.
"""
import argparse
import gzip
import json
import os
import pickle
import sys
import time

os.environ.setdefault("TORCH_SYMBOLIZE_MODE", "fast")

import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "reference"))
import gpu_reference as reference  # noqa: E402  (the variants and inputs, step for step as attnwb's)

MAX_ENTRIES = 100000  # attnwb's kMemoryHistoryEntries (core/engine/memory_history.h)


def record(case, out_dir):
    spec, steps = case["spec"], case["steps"]
    device = torch.device(spec["device"])
    fn = reference.make_variant(spec)
    torch.cuda.synchronize(device)  # as in a fresh process: nothing cached from a case before
    if hasattr(torch._C, "_cuda_clearCublasWorkspaces"):
        torch._C._cuda_clearCublasWorkspaces()
    torch.cuda.empty_cache()
    q, k, v = reference.make_inputs(spec)
    torch.cuda.synchronize(device)
    path = os.path.join(out_dir, case["name"] + ".pytorch.pickle")
    t0 = time.monotonic()
    torch.cuda.memory._record_memory_history(max_entries=MAX_ENTRIES)
    try:
        out = None
        for _ in range(steps):
            with torch.profiler.record_function(spec["variant"]):
                out = fn(q, k, v)
            if spec["mode"] == "train":
                out.square().mean().backward()
            torch.cuda.synchronize(device)
        t1 = time.monotonic()
        torch.cuda.memory._dump_snapshot(path)
    finally:
        torch.cuda.memory._record_memory_history(enabled=None)
    return {"name": case["name"], "path": path, "bytes": os.path.getsize(path), "steps_seconds": round(t1 - t0, 3),
            "dump_seconds": round(time.monotonic() - t1, 3), "torch": torch.__version__}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return pickle.load(f)


def viz(path):
    from torch.cuda import _memory_viz
    data = load(path)
    if isinstance(data, list):  # as its command line reads a segments-only dump
        data = {"segments": data, "traces": []}
    base = path[:-3] if path.endswith(".gz") else path
    failed = []
    for name, summary in (("segsum", _memory_viz.segsum), ("trace", _memory_viz.trace)):
        try:
            text = summary(data) + "\n"  # its command line print()s it
        except Exception as e:  # noqa: BLE001 (one summary it cannot make does not keep the other from it)
            failed.append(f"{name}: {e.__class__.__name__}: {e}")
            continue
        with open(f"{base}.{name}.txt", "w") as f:
            f.write(text)
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("out_dir")
    r.add_argument("cases")
    v = sub.add_parser("viz")
    v.add_argument("files", nargs="+")
    args = ap.parse_args()
    if args.cmd == "record":
        if not torch.cuda.is_available():
            sys.exit("snapshot_torch.py record: no CUDA device (torch.cuda.memory records the CUDA caching allocator)")
        for case in json.load(open(args.cases)):
            print(json.dumps(record(case, args.out_dir)), flush=True)
    else:  # what memory_viz cannot summarise is said here; the GPU check judges by the files written
        for path in args.files:
            t = time.monotonic()
            failed = viz(path)
            print(f"{path}: memory_viz in {time.monotonic() - t:.2f} s" + "".join(f"; {f}" for f in failed), flush=True)

if __name__ == "__main__":
    main()
