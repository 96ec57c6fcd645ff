"""PyTorch's own view of the workloads scripts/gpu_check/run.py runs with attnwb.

Runs with the python whose torch is the LibTorch attnwb was built against (on the lent H200 that is its
python3, torch 2.11.0+cu130; here the pinned wheel's venv). The workloads are step for step what
core/engine/profiler_session.cpp, core/engine/variants.cpp, core/engine/chunked_attention.cpp and core/engine/bench.cpp do:
inputs made once (seeded randn), each step record_function(variant){ variant(q, k, v) }, in train mode
out.square().mean().backward(), then (on CUDA) a device synchronise and profiler.step().

  profile CASES.json OUTDIR   each case under torch.profiler (CPU, + CUDA on a GPU), same schedule and
                              options as attnwb profile: OUTDIR/NAME.ref.json holds key_averages()
                              (calls, self / total CPU and device time, memory), the kernels (calls,
                              total time), the "Self CUDA time total" torch's table prints, the
                              ProfilerStep* row and torch.cuda.max_memory_allocated(); the trace goes
                              to OUTDIR/NAME.ref.trace.json (export_chrome_trace). A backend with no
                              kernel for the case is written as refused, with LibTorch's reason.
  bench SPEC.json OUT.json    torch.utils.benchmark.Timer's median of one step (blocked_autorange), and
                              on a GPU the chip's bf16 GEMM rate (8192^3, CUDA events) as the roof.

Writes JSON only; the agreement rules live in scripts/gpu_check/rules.py.
"""
import argparse
import json
import math
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_op_fixtures as reference  # noqa: E402  (manual and sdpa exactly as the op fixtures run them)

DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16, "bfloat16": torch.bfloat16}


def sdpa_backend_scope(name):
    """attnwb's --sdpa-backend: torch.nn.attention.sdpa_kernel sets the flags core/engine/compat.cpp sets."""
    from contextlib import nullcontext
    if name in ("", "auto"):
        return nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backend = {"math": SDPBackend.MATH, "flash": SDPBackend.FLASH_ATTENTION,
               "efficient": SDPBackend.EFFICIENT_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[name]
    return sdpa_kernel([backend])


def accumulate_type(t):
    return torch.float32 if t.dtype in (torch.float16, torch.bfloat16) else t.dtype


def hidden_in_block(causal, i0, rows, j0, cols, device):
    if causal and j0 + cols - 1 > i0:
        qpos = torch.arange(i0, i0 + rows, dtype=torch.long, device=device).view(rows, 1)
        kpos = torch.arange(j0, j0 + cols, dtype=torch.long, device=device).view(1, cols)
        return kpos.gt(qpos)
    return None


def key_end(causal, i0, rows, nk):
    return min(nk, i0 + rows) if causal else nk


def block_scores(qi, kj, scale, causal, i0, j0):
    # C++'s mul_(double) is the Scalar overload (which records an aten::mul of its own); Python's
    # tensor.mul_(float) would take the Tensor overload.
    s = torch.ops.aten.mul_.Scalar(torch.matmul(qi, kj.transpose(-2, -1)).to(accumulate_type(qi)), scale)
    hidden = hidden_in_block(causal, i0, qi.size(2), j0, kj.size(2), qi.device)
    if hidden is not None:
        s.masked_fill_(hidden, -math.inf)
    return s


class ChunkedAttentionFunction(torch.autograd.Function):
    """core/engine/chunked_attention.cpp, op for op (no padding: the GPU check runs mask none and causal)."""

    @staticmethod
    def forward(ctx, q, k, v, block, scale, causal):
        nq, nk, b = q.size(2), k.size(2), block
        acc_type = accumulate_type(q)
        out = torch.empty_like(q, memory_format=torch.contiguous_format)
        lse = torch.empty((q.size(0), q.size(1), nq, 1), dtype=acc_type, device=q.device)
        for i0 in range(0, nq, b):
            rows = min(b, nq - i0)
            qi = q.narrow(2, i0, rows)
            m = torch.full((q.size(0), q.size(1), rows, 1), -math.inf, dtype=lse.dtype, device=lse.device)
            l = torch.zeros_like(m)
            acc = torch.zeros((q.size(0), q.size(1), rows, q.size(3)), dtype=lse.dtype, device=lse.device)
            for j0 in range(0, key_end(causal, i0, rows, nk), b):
                cols = min(b, nk - j0)
                s = block_scores(qi, k.narrow(2, j0, cols), scale, causal, i0, j0)
                m_new = torch.maximum(m, s.max(-1, True)[0])
                shift = m_new.masked_fill(m_new.isneginf(), 0.0)
                probs = (s - shift).exp_()
                rescale = (m - shift).exp_()
                l = l.mul_(rescale).add_(probs.sum(-1, True))
                acc = acc.mul_(rescale).add_(torch.matmul(probs.to(v.dtype), v.narrow(2, j0, cols)).to(acc_type))
                m = m_new
            out.narrow(2, i0, rows).copy_(acc.div_(l))
            lse.narrow(2, i0, rows).copy_(m.masked_fill(m.isneginf(), 0.0).add_(l.log()))
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.block, ctx.scale, ctx.causal = block, scale, causal
        return out

    @staticmethod
    def backward(ctx, dout):
        q, k, v, out, lse = ctx.saved_tensors
        b, scale, causal = ctx.block, ctx.scale, ctx.causal
        acc_type = accumulate_type(q)
        nq, nk = q.size(2), k.size(2)
        delta = (dout.to(acc_type) * out.to(acc_type)).sum(-1, True)
        lse_safe = lse.masked_fill(lse.isneginf(), math.inf)
        dq = torch.zeros(q.size(), dtype=acc_type, device=q.device)
        dk = torch.zeros(k.size(), dtype=acc_type, device=k.device)
        dv = torch.zeros(v.size(), dtype=acc_type, device=v.device)
        for i0 in range(0, nq, b):
            rows = min(b, nq - i0)
            qi = q.narrow(2, i0, rows)
            doi = dout.narrow(2, i0, rows)
            lse_i = lse_safe.narrow(2, i0, rows)
            delta_i = delta.narrow(2, i0, rows)
            dqi = dq.narrow(2, i0, rows)
            for j0 in range(0, key_end(causal, i0, rows, nk), b):
                cols = min(b, nk - j0)
                kj = k.narrow(2, j0, cols)
                vj = v.narrow(2, j0, cols)
                probs = block_scores(qi, kj, scale, causal, i0, j0).sub_(lse_i).exp_()
                dv.narrow(2, j0, cols).add_(torch.matmul(probs.transpose(-2, -1).to(q.dtype), doi).to(acc_type))
                dprobs = torch.matmul(doi, vj.transpose(-2, -1)).to(acc_type)
                dscores = probs.mul_(dprobs.sub_(delta_i)).to(q.dtype)
                dqi.add_(torch.matmul(dscores, kj).to(acc_type), alpha=scale)
                dk.narrow(2, j0, cols).add_(torch.matmul(dscores.transpose(-2, -1), qi).to(acc_type), alpha=scale)
        return dq.to(q.dtype), dk.to(k.dtype), dv.to(v.dtype), None, None, None


def make_variant(spec):
    """The attention function of a spec: fn(q, k, v) -> out, as core/engine/variants.cpp's forward()."""
    variant, mask = spec["variant"], spec.get("mask", "none")
    if mask not in ("none", "causal"):
        raise SystemExit(f"gpu_reference.py: mask '{mask}' is not mirrored here (none, causal)")
    causal = mask == "causal"
    device = torch.device(spec["device"])
    if variant == "manual":
        masked_out = torch.ones(spec["seq_q"], spec["seq_k"], dtype=torch.bool, device=device).triu(1) if causal else None
        return lambda q, k, v: reference.manual(q, k, v, masked_out, False)
    if variant == "sdpa":
        backend = spec.get("sdpa_backend", "auto")

        def sdpa(q, k, v):
            with sdpa_backend_scope(backend):
                return reference.sdpa(q, k, v, None, causal)
        return sdpa
    if variant == "chunked":
        block = spec.get("block_size", 128)

        def chunked(q, k, v):
            scale = 1.0 / math.sqrt(q.size(-1))
            return ChunkedAttentionFunction.apply(q, reference.expand_kv(k, q.size(1)), reference.expand_kv(v, q.size(1)),
                                                  block, scale, causal)
        return chunked
    raise SystemExit(f"gpu_reference.py: unknown variant '{variant}'")


def make_inputs(spec):
    torch.manual_seed(spec.get("seed", 7))
    opts = dict(dtype=DTYPES[spec["dtype"]], device=torch.device(spec["device"]))
    grad = spec["mode"] == "train"
    b, d = spec["batch"], spec["head_dim"]
    kvh = spec.get("kv_heads", spec["heads"])
    return (torch.randn(b, spec["heads"], spec["seq_q"], d, **opts).requires_grad_(grad),
            torch.randn(b, kvh, spec["seq_k"], d, **opts).requires_grad_(grad),
            torch.randn(b, kvh, spec["seq_k"], d, **opts).requires_grad_(grad))


def is_cuda_event(evt):
    return evt.device_type == torch.autograd.DeviceType.CUDA


def is_annotation(evt):
    return bool(getattr(evt, "is_user_annotation", False))


def rows_of(prof):
    """key_averages() as attnwb profile --json writes its operator rows (us, bytes)."""
    rows = []
    for a in prof.key_averages():
        rows.append({"name": a.key, "device_type": "cuda" if is_cuda_event(a) else "cpu", "calls": a.count,
                     "user_annotation": is_annotation(a) and is_cuda_event(a),
                     "self_cpu_us": a.self_cpu_time_total, "cpu_total_us": a.cpu_time_total,
                     "self_device_us": a.self_device_time_total, "device_total_us": a.device_time_total,
                     "cpu_memory_bytes": a.cpu_memory_usage, "self_cpu_memory_bytes": a.self_cpu_memory_usage,
                     "device_memory_bytes": a.device_memory_usage,
                     "self_device_memory_bytes": a.self_device_memory_usage})
    return rows


def kernels_of(prof):
    """Device activities (kernels, copies, sets) by name: calls and total time (us)."""
    kernels = {}
    for e in prof.events():
        if is_cuda_event(e) and not is_annotation(e):
            k = kernels.setdefault(e.name, {"name": e.name, "calls": 0, "total_us": 0.0})
            k["calls"] += 1
            k["total_us"] += e.time_range.elapsed_us()
    return sorted(kernels.values(), key=lambda k: -k["total_us"])


def profile_case(case, out_dir):
    spec, opts = case["spec"], case["options"]
    name = case["name"]
    cuda = spec["device"].startswith("cuda")
    device = torch.device(spec["device"])
    fn = make_variant(spec)
    if cuda:  # as in a fresh process (attnwb's): no cached blocks, no cuBLAS workspace kept from a case before
        torch.cuda.synchronize(device)
        if hasattr(torch._C, "_cuda_clearCublasWorkspaces"):
            torch._C._cuda_clearCublasWorkspaces()
        torch.cuda.empty_cache()
    q, k, v = make_inputs(spec)
    if cuda:
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
    sched = dict(wait=opts["wait"], warmup=opts["warmup"], active=opts["active"], repeat=opts["repeat"])
    steps = (sched["wait"] + sched["warmup"] + sched["active"]) * sched["repeat"]
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    result = {"name": name, "spec": spec, "options": opts, "torch_version": torch.__version__}
    try:
        with profile(activities=activities, schedule=schedule(**sched), record_shapes=opts["record_shapes"],
                     profile_memory=opts["profile_memory"], with_stack=False) as prof:
            out = None
            for _ in range(steps):
                with record_function(spec["variant"]):
                    out = fn(q, k, v)
                if spec["mode"] == "train":
                    out.square().mean().backward()
                if cuda:
                    torch.cuda.synchronize(device)
                prof.step()
    except RuntimeError as e:
        if "No available kernel" not in str(e) and "No viable backend" not in str(e):
            raise
        result["refused"] = str(e).splitlines()[0]
        return result
    trace_path = os.path.join(out_dir, name + ".ref.trace.json")
    prof.export_chrome_trace(trace_path)
    rows = rows_of(prof)
    result.update(
        operators=rows,
        kernels=kernels_of(prof),
        # torch's table footer (_build_table): self device time of the device events, user annotations left out.
        self_cuda_total_us=sum(e.self_device_time_total for e in prof.events() if is_cuda_event(e) and not is_annotation(e)),
        table_footer=[line for line in prof.key_averages().table(row_limit=1).splitlines() if "time total" in line],
        self_cpu_total_us=prof.key_averages().self_cpu_time_total,
        profiler_step=[r for r in rows if r["name"] == "ProfilerStep*"],
        cuda_peak_bytes=torch.cuda.max_memory_allocated(device) if cuda else -1,
        trace=os.path.basename(trace_path),
    )
    return result


def cmd_profile(args):
    cases = json.load(open(args.cases))
    os.makedirs(args.out, exist_ok=True)
    for case in cases:
        r = profile_case(case, args.out)
        with open(os.path.join(args.out, case["name"] + ".ref.json"), "w") as f:
            json.dump(r, f, indent=1)
        what = "refused: " + r["refused"] if "refused" in r else (
            f"{len(r['operators'])} rows, {len(r['kernels'])} kernels, Self CUDA {r['self_cuda_total_us']:.1f} us, "
            f"peak {r['cuda_peak_bytes']} B")
        print(f"{case['name']}: {what}", flush=True)


def gemm_roof(device, n=8192, iters=20):
    """bf16 n x n x n matrix products, CUDA events over `iters` after 3 warm-ups: TFLOP/s."""
    a = torch.randn(n, n, dtype=torch.bfloat16, device=device)
    b = torch.randn(n, n, dtype=torch.bfloat16, device=device)
    for _ in range(3):
        torch.matmul(a, b)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize(device)
    start.record()
    for _ in range(iters):
        torch.matmul(a, b)
    stop.record()
    stop.synchronize()
    seconds = start.elapsed_time(stop) / 1e3 / iters
    del a, b
    torch.cuda.empty_cache()
    return {"n": n, "iterations": iters, "ms": seconds * 1e3, "tflops": 2.0 * n ** 3 / seconds / 1e12}


def cmd_bench(args):
    from torch.utils.benchmark import Timer
    spec = json.load(open(args.spec))
    cuda = spec["device"].startswith("cuda")
    fn = make_variant(spec)
    q, k, v = make_inputs(spec)

    def step():
        out = fn(q, k, v)
        if spec["mode"] == "train":
            out.square().mean().backward()

    for _ in range(3):  # warm-up, as attnwb bench's cold iteration and warm-up
        step()
    # Timer runs with one thread unless told: attnwb bench runs with LibTorch's default, as here.
    m = Timer("step()", globals={"step": step}, num_threads=torch.get_num_threads()).blocked_autorange(
        min_run_time=args.min_run_time)
    result = {"spec": spec, "torch_version": torch.__version__, "timer": "torch.utils.benchmark.Timer.blocked_autorange",
              "median_ms": m.median * 1e3, "iqr_ms": m.iqr * 1e3, "blocks": len(m.times),
              "iterations_per_block": m.number_per_run, "threads": torch.get_num_threads()}
    del q, k, v
    if cuda and args.roof:
        torch.cuda.empty_cache()
        result["bf16_gemm_roof"] = gemm_roof(torch.device(spec["device"]))
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    roof = result.get("bf16_gemm_roof")
    print(f"Timer median {result['median_ms']:.4f} ms over {result['blocks']} blocks"
          + (f"; bf16 GEMM {roof['tflops']:.1f} TFLOP/s" if roof else ""), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("profile")
    p.add_argument("cases")
    p.add_argument("out")
    b = sub.add_parser("bench")
    b.add_argument("spec")
    b.add_argument("out")
    b.add_argument("--min-run-time", type=float, default=2.0)
    b.add_argument("--roof", action="store_true", help="also measure the bf16 GEMM roof (GPU)")
    args = ap.parse_args()
    {"profile": cmd_profile, "bench": cmd_bench}[args.command](args)


if __name__ == "__main__":
    main()
