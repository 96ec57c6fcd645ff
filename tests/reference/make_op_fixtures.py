#!/usr/bin/python3
"""Make the key_averages() fixtures the core's operator table is compared against.

Runs the article's profiling loop with the Python torch of one of the two LibTorch builds the core
links, for a few specs, 30 times each, and writes one JSON file per case under
tests/fixtures/key_averages/torch-MAJOR.MINOR/ (the core's tests read the folder of the LibTorch they
were built against):
  - Debian's python3-torch (/usr/bin/python3, LibTorch 1.13.1, no Kineto): torch-1.13/
  - the pinned wheel (scripts/setup-torch2.sh's venv, torch 2.11.0, Kineto): torch-2.11/
Every row keeps the spread it showed across the runs (min/max of the
call count and of the memory columns, and in how many runs it appeared), because the reference is not
perfectly repeatable: a tensor freed while a tiny operator runs is charged to that operator.

The workload must stay step for step what core/engine/profiler_session.cpp + core/engine/variants.cpp do:
  inputs made once (randn, seed), masks made once (True = masked out; SDPA gets the keep-mask),
  each step: record_function(variant){ q,k,v as laid out -> variant(q,k,v) } then, in train mode,
  out.square().mean().backward(); profiler.step().

Run: /usr/bin/python3 tests/reference/make_op_fixtures.py [--runs 6] [--only CASE] [--out DIR]
     "$(bash scripts/setup-torch2.sh)" tests/reference/make_op_fixtures.py
"""
import argparse
import json
import math
import os
import sys

import torch
import torch.autograd.profiler as autograd_profiler


class record_function:
    """torch.profiler.record_function as PyTorch 2.x implements it, on 1.13's own ops.

    1.13's Python record_function allocates two tensors per region (a torch.zeros(1) placeholder in
    __init__ and an aten::empty handle of sizeof(RecordFunction) bytes in __enter__), which show up as
    aten::zeros / aten::zero_ / aten::empty rows that are Python bookkeeping, not the workload. 2.x
    dropped them: it calls profiler::_record_function_enter_new, which returns a ScriptObject. 1.13 has
    that op too, so the reference uses it, for the variant region and (patched in below) for the
    ProfilerStep#k regions torch.profiler.profile opens. The C++ engine's regions are plain
    at::RecordFunction(USER_SCOPE), which is what _record_function_enter_new creates.
    """

    def __init__(self, name, args=None):
        self.name, self.args, self.record = name, args, None

    def __enter__(self):
        self.record = torch.ops.profiler._record_function_enter_new(self.name, self.args)
        return self

    def __exit__(self, *exc):
        torch.ops.profiler._record_function_exit._RecordFunction(self.record)
        self.record = None


TORCH2 = int(torch.__version__.split(".")[0]) >= 2
if TORCH2:
    record_function = torch.profiler.record_function  # already _record_function_enter_new
else:
    autograd_profiler.record_function = record_function  # used by torch.profiler.profile for ProfilerStep#k

CASES = [
    # name, variant, B, H, KVH, Nq, Nk, D, mask, key_lengths, layout, mode
    ("article_manual", "manual", 2, 8, 8, 512, 512, 64, "none", None, "bhnd", "train"),
    ("article_sdpa", "sdpa", 2, 8, 8, 512, 512, 64, "none", None, "bhnd", "train"),
    ("causal_manual", "manual", 1, 4, 4, 128, 128, 32, "causal", None, "bhnd", "train"),
    ("causal_sdpa", "sdpa", 1, 4, 4, 128, 128, 32, "causal", None, "bhnd", "train"),
    ("padding_manual_fwd", "manual", 2, 4, 4, 96, 96, 32, "padding", [96, 50], "bhnd", "forward"),
    ("padding_sdpa_fwd", "sdpa", 2, 4, 4, 96, 96, 32, "padding", [96, 50], "bhnd", "forward"),
    ("gqa_bnhd_manual", "manual", 2, 8, 2, 128, 128, 64, "none", None, "bnhd", "train"),
    ("gqa_bnhd_sdpa", "sdpa", 2, 8, 2, 64, 128, 64, "none", None, "bnhd", "train"),
]

SCHEDULE = dict(wait=1, warmup=1, active=3, repeat=1)


def expand_kv(t, heads):
    kv_heads = t.size(1)
    if kv_heads == heads:
        return t
    return t.repeat_interleave(heads // kv_heads, dim=1)


def manual(q, k, v, mask, causal):
    k = expand_kv(k, q.size(1))
    v = expand_kv(v, q.size(1))
    scale = 1.0 / math.sqrt(q.size(-1))
    scores = torch.matmul(q, k.transpose(-2, -1)) * scale
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    probabilities = torch.softmax(scores, dim=-1)
    return torch.matmul(probabilities, v)


def sdpa(q, k, v, keep_mask, causal):  # core/engine/compat.h sdpa()
    k = expand_kv(k, q.size(1))
    v = expand_kv(v, q.size(1))
    if TORCH2:
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=keep_mask, dropout_p=0.0,
                                                                is_causal=causal)
    out, _ = torch._C._nn._scaled_dot_product_attention(q, k, v, keep_mask, 0.0, False, causal)
    return out


def make_inputs(case):
    _, variant, b, h, kvh, nq, nk, d, mask, lengths, layout, _ = case
    torch.manual_seed(7)

    def leaf(heads, n):
        shape = (b, heads, n, d) if layout == "bhnd" else (b, n, heads, d)
        return torch.randn(shape, dtype=torch.float32, requires_grad=(case[-1] == "train"))

    q, k, v = leaf(h, nq), leaf(kvh, nk), leaf(kvh, nk)
    masked_out = None
    causal = False
    if mask == "causal":
        if variant == "sdpa":
            causal = True
        else:
            masked_out = torch.ones(nq, nk, dtype=torch.bool).triu(1)  # top-left aligned, as SDPA is_causal
    elif mask == "padding":
        key_pos = torch.arange(nk).view(1, 1, 1, nk)
        lens = torch.tensor(lengths).view(b, 1, 1, 1)
        masked_out = key_pos >= lens
    mask_arg = masked_out
    if variant == "sdpa" and masked_out is not None:
        mask_arg = masked_out.logical_not()
    return q, k, v, mask_arg, causal


def laid_out(t, layout):
    return t if layout == "bhnd" else t.transpose(1, 2)


def run_once(case):
    name, variant, *_, layout, mode = case
    q, k, v, mask_arg, causal = make_inputs(case)
    fn = manual if variant == "manual" else sdpa
    steps = (SCHEDULE["wait"] + SCHEDULE["warmup"] + SCHEDULE["active"]) * SCHEDULE["repeat"]
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU],
        schedule=torch.profiler.schedule(**SCHEDULE),
        record_shapes=True,
        profile_memory=True,
        with_stack=False,
    ) as prof:
        for _ in range(steps):
            with record_function(variant):
                out = fn(laid_out(q, layout), laid_out(k, layout), laid_out(v, layout), mask_arg, causal)
            if mode == "train":
                out.square().mean().backward()
            prof.step()
    return [key_average_rows(prof, by_shape) for by_shape in (False, True)]


def key_average_rows(prof, by_shape, with_times=False):
    """prof.key_averages() as plain rows: calls and memory columns (+ self / total CPU us)."""
    rows = []
    for avg in prof.key_averages(group_by_input_shape=by_shape):
        row = {"name": avg.key, "input_shapes": str(avg.input_shapes) if by_shape else "", "calls": avg.count}
        if with_times:
            row.update(self_cpu_us=avg.self_cpu_time_total, cpu_total_us=avg.cpu_time_total)
        row.update(cpu_memory_bytes=avg.cpu_memory_usage, self_cpu_memory_bytes=avg.self_cpu_memory_usage)
        rows.append(row)
    return rows


def merge_runs(runs):
    merged = {}
    for rows in runs:
        for r in rows:
            key = (r["name"], r["input_shapes"])
            m = merged.setdefault(key, {"name": r["name"], "input_shapes": r["input_shapes"], "seen_in_runs": 0})
            m["seen_in_runs"] += 1
            for col in ("calls", "cpu_memory_bytes", "self_cpu_memory_bytes"):
                lo, hi = m.get(col + "_min"), m.get(col + "_max")
                m[col + "_min"] = r[col] if lo is None else min(lo, r[col])
                m[col + "_max"] = r[col] if hi is None else max(hi, r[col])
    return sorted(merged.values(), key=lambda m: (m["name"], m["input_shapes"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    version = ".".join(torch.__version__.split(".")[:2])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "fixtures", "key_averages",
                                                  "torch-" + version))
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    torch.set_num_threads(1)
    os.makedirs(args.out, exist_ok=True)
    for case in CASES:
        if args.only and case[0] != args.only:
            continue
        name, variant, b, h, kvh, nq, nk, d, mask, lengths, layout, mode = case
        fixture = {
            "generator": "tests/reference/make_op_fixtures.py",
            "torch_version": torch.__version__,
            "runs": args.runs,
            "spec": {"variant": variant, "batch": b, "heads": h, "kv_heads": kvh, "seq_q": nq, "seq_k": nk,
                     "head_dim": d, "dtype": "float32", "device": "cpu", "mode": mode, "mask": mask,
                     "key_lengths": lengths or [], "layout": layout, "seed": 7, "threads": 1},
            "schedule": SCHEDULE,
            "record_shapes": True,
            "profile_memory": True,
        }
        runs = [run_once(case) for _ in range(args.runs)]
        fixture["by_name"] = merge_runs([r[0] for r in runs])
        fixture["by_shape"] = merge_runs([r[1] for r in runs])
        path = os.path.join(args.out, name + ".json")
        with open(path, "w") as f:
            json.dump(fixture, f, indent=1)
            f.write("\n")
        unstable = [r["name"] for r in fixture["by_name"]
                    if r["seen_in_runs"] != args.runs or r["calls_min"] != r["calls_max"]
                    or r["cpu_memory_bytes_min"] != r["cpu_memory_bytes_max"]
                    or r["self_cpu_memory_bytes_min"] != r["self_cpu_memory_bytes_max"]]
        print(f"{name}: {len(fixture['by_name'])} rows, varying across runs: {unstable}", file=sys.stderr)


if __name__ == "__main__":
    main()
