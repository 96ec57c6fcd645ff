#!/usr/bin/python3
"""Make the peak-memory fixtures the benchmark's allocation tracker is compared against.

attnwb bench measures peak memory in one extra iteration on fresh inputs: tracking starts, q/k/v are
made (randn, requires_grad), one step runs (manual attention, then in train mode
out.square().mean().backward()), everything is released. This script runs the same iteration under
the Python torch profiler of the same LibTorch build with profile_memory=True and replays its [memory]
events (running sum, maximum), which is the reference: the same LibTorch allocator reports to both.
It writes tests/fixtures/peak_memory/torch-MAJOR.MINOR.json.

Run: /usr/bin/python3 tests/reference/make_peak_fixtures.py           (Debian's 1.13)
     "$(bash scripts/setup-torch2.sh)" tests/reference/make_peak_fixtures.py   (the 2.11 wheel)
"""
import argparse
import json
import math

import torch
from torch.profiler import ProfilerActivity, profile

CASES = [  # (batch, heads, seq, head_dim, mode)
    (2, 8, 512, 64, "train"),
    (2, 8, 512, 64, "forward"),
    (1, 2, 2048, 16, "train"),
    (1, 4, 1000, 32, "train"),
]


def attn(q, k, v):  # core/engine/variants.cpp ManualAttention, mask none
    scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))
    return torch.matmul(torch.softmax(scores, dim=-1), v)


def peak_bytes(b, h, n, d, mode):
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as p:
        torch.manual_seed(7)
        q, k, v = [torch.randn(b, h, n, d, requires_grad=mode == "train") for _ in range(3)]
        out = attn(q, k, v)
        if mode == "train":
            out.square().mean().backward()
        del out, q, k, v
    events = sorted((e for e in p.profiler.kineto_results.events() if e.name() == "[memory]"), key=lambda e: e.start_ns() if hasattr(e, "start_ns") else e.start_us())
    current = peak = 0
    for e in events:
        current += e.nbytes()
        peak = max(peak, current)
    return peak


def main():
    parser = argparse.ArgumentParser()
    version = ".".join(torch.__version__.split(".")[:2])
    parser.add_argument("--out", default=f"tests/fixtures/peak_memory/torch-{version}.json")
    args = parser.parse_args()
    torch.set_num_threads(1)
    cases = []
    for b, h, n, d, mode in CASES:
        peaks = {peak_bytes(b, h, n, d, mode) for _ in range(3)}
        assert len(peaks) == 1, f"peak not repeatable: {peaks}"
        cases.append({"batch": b, "heads": h, "seq": n, "head_dim": d, "mode": mode, "peak_bytes": peaks.pop()})
        print(cases[-1])
    with open(args.out, "w") as f:
        json.dump({"torch_version": torch.__version__, "variant": "manual", "dtype": "float32", "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
