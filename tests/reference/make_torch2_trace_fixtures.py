"""Make real PyTorch 2.x (Kineto) chrome traces and what torch's own key_averages() says of them.

Run with the pinned wheel's python (torch 2.11.0; scripts/setup-torch2.sh prints it):
    "$(bash scripts/setup-torch2.sh)" tests/reference/make_torch2_trace_fixtures.py [--out DIR]

Writes tests/fixtures/traces/torch2/ (default): for each case a trace as torch writes it and
NAME.expected.json with key_averages() of that same profile, by name and by input shape: calls,
self CPU and CPU total (us, as torch prints them, nanosecond-exact floats), CPU memory and self CPU
memory (bytes). tests/core/test_trace_fixtures.cpp imports each trace and must get exactly that.

Cases (CPU; the article's loop under torch.profiler.schedule(wait=1, warmup=1, active=2)):
  manual_train.json           the article's manual attention, export_chrome_trace
  sdpa_train_stack.pt.trace.json.gz
                              F.scaled_dot_product_attention (the CPU flash kernel), with_stack=True
                              (python_function events), written by tensorboard_trace_handler(use_gzip)
  gqa_padding_forward.json    manual attention, grouped-query heads (8 / 2), a padding mask, forward only
"""
import argparse
import glob
import json
import os
import shutil
import sys
import tempfile

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule, tensorboard_trace_handler

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_op_fixtures as reference  # noqa: E402  (the variants exactly as the op fixtures run them)

OUT_DEFAULT = os.path.join(HERE, "..", "fixtures", "traces", "torch2")
SCHEDULE = dict(wait=1, warmup=1, active=2, repeat=1)


def manual(q, k, v, masked_out):
    return reference.manual(q, k, v, masked_out, False)


def sdpa(q, k, v, masked_out):
    return reference.sdpa(q, k, v, None if masked_out is None else ~masked_out, False)


CASES = [
    # file, variant, (B, H, KVH, N, D), key lengths (padding) or None, train, with_stack, gzip handler
    ("manual_train.json", manual, (1, 2, 2, 64, 16), None, True, False, False),
    ("sdpa_train_stack.pt.trace.json.gz", sdpa, (1, 2, 2, 64, 16), None, True, True, True),
    ("gqa_padding_forward.json", manual, (2, 8, 2, 32, 16), [32, 20], False, False, False),
]


def run_case(out, case):
    name, fn, (b, h, kvh, n, d), lengths, train, with_stack, gz = case
    torch.manual_seed(7)
    q = torch.randn(b, h, n, d, requires_grad=train)
    k = torch.randn(b, kvh, n, d, requires_grad=train)
    v = torch.randn(b, kvh, n, d, requires_grad=train)
    masked_out = None
    if lengths:
        masked_out = torch.arange(n).view(1, 1, 1, n) >= torch.tensor(lengths).view(b, 1, 1, 1)
    variant = "manual" if fn is manual else "sdpa"
    tmp = tempfile.mkdtemp()
    handler = tensorboard_trace_handler(tmp, worker_name="fixture", use_gzip=True) if gz else None
    steps = SCHEDULE["wait"] + SCHEDULE["warmup"] + SCHEDULE["active"]
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(**SCHEDULE), record_shapes=True,
                 profile_memory=True, with_stack=with_stack, on_trace_ready=handler) as prof:
        for _ in range(steps):
            with record_function(variant):
                o = fn(q, k, v, masked_out)
            if train:
                o.square().mean().backward()
            prof.step()
    path = os.path.join(out, name)
    if gz:
        written = glob.glob(os.path.join(tmp, "*.pt.trace.json.gz"))
        assert len(written) == 1, written
        shutil.copyfile(written[0], path)
    else:
        prof.export_chrome_trace(path)
    shutil.rmtree(tmp)
    expected = {
        "generator": "tests/reference/make_torch2_trace_fixtures.py",
        "torch_version": torch.__version__,
        "kineto_available": bool(torch.autograd.kineto_available()),
        "file": name,
        "bytes": os.path.getsize(path),
        "with_stack": with_stack,
        "by_name": reference.key_average_rows(prof, False, with_times=True),
        "by_shape": reference.key_average_rows(prof, True, with_times=True),
    }
    with open(os.path.join(out, name.split(".")[0] + ".expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    print(f"{name}: {expected['bytes']} bytes, {len(expected['by_name'])} rows by name, "
          f"{len(expected['by_shape'])} by shape", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=OUT_DEFAULT)
    args = ap.parse_args()
    assert int(torch.__version__.split(".")[0]) >= 2, "run with torch 2.x (the wheel's venv)"
    torch.set_num_threads(1)
    os.makedirs(args.out, exist_ok=True)
    for case in CASES:
        run_case(args.out, case)


if __name__ == "__main__":
    main()
