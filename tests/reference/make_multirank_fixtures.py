"""Record real multi-process PyTorch profiler traces (gloo, CPU) as multi-rank fixtures.

Run with the pinned wheel's python (torch 2.11.0; scripts/setup-torch2.sh prints it):
    "$(bash scripts/setup-torch2.sh)" tests/reference/make_multirank_fixtures.py [--out DIR] [--only NAME ...]

Without --worker the script launches torchrun (python -m torch.distributed.run --standalone) once per
scenario, with OMP_NUM_THREADS=1; each rank runs the scenario under
torch.profiler.profile(activities=[CPU], record_shapes=True,
schedule(wait=1, warmup=1, active=3, repeat=1)),
calls prof.step() each iteration (so ProfilerStep#2..#4 are recorded) and writes its own
export_chrome_trace as DIR/SCENARIO/rank{R}.json (gzipped to rank{R}.json.gz only above 1.5 MB).

Scenarios (backend gloo; default DIR tests/fixtures/traces/gloo/):
  collectives/     world 4. Per step, in order, with a 256x256 matmul between collectives:
                   all_reduce (f32, 65536), all_gather_into_tensor, reduce_scatter_tensor,
                   all_to_all_single with uneven splits (rank r sends (r+1)*K+j elements to rank j),
                   broadcast from rank 0, a send/recv ring (isend to r+1, irecv from r-1, wait),
                   and one all_reduce (f32, 12288) on a sub-group, dist.new_group([0,1]) / ([2,3]).
  straggler/       world 4. all_reduce + all_gather + matmul; rank 2 sleeps 20 ms before each
                   all_reduce, so the other ranks wait on it.
  ring_attention/  world 4. Ring attention forward: q, k, v blocks [1, 4, 128, 32] per rank; 4 ring
                   steps of softmax(q k^T) v partials (online softmax, torch ops) while K and V move
                   to the next rank with dist.batch_isend_irecv; each call in
                   record_function("ring_attention").
  two_ranks_ws2/   world 2. One all_reduce (+ matmul) per step: "a different run".

--summarize (no recording) prints, for the fixtures in DIR, each rank's count of every c10d::* and
gloo:* event, and how well the ranks' clocks agree: the spread (max - min over ranks) of the start
and end of the k-th gloo:all_reduce of the 65536-element all_reduce on the default group, and
whether the first rank to finish it finished after the last rank started it (it must, if the
clocks agree).
"""
import argparse
import collections
import gzip
import json
import os
import shutil
import subprocess
import sys
import time
import warnings

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile, record_function, schedule

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DEFAULT = os.path.normpath(os.path.join(HERE, "..", "fixtures", "traces", "gloo"))
SCENARIOS = {"collectives": 4, "straggler": 4, "ring_attention": 4, "two_ranks_ws2": 2}
STEPS = 5  # wait=1 + warmup=1 + active=3
GZIP_ABOVE = 1_500_000
SEED = 1234


# ----------------------------------------------------------------------------- worker side


def compute(a):
    """Some CPU work between collectives, so communication and compute interleave."""
    return torch.matmul(a, a).tanh_()


def step_collectives(rank, world, state):
    x, a = state["x"], state["a"]
    dist.all_reduce(x)                                          # f32, 65536 elements
    a = compute(a)
    gathered = torch.empty(world * 4096)
    dist.all_gather_into_tensor(gathered, x[:4096].contiguous())
    a = compute(a)
    rs_out = torch.empty(4096)
    dist.reduce_scatter_tensor(rs_out, x[: world * 4096].contiguous())
    a = compute(a)
    k = 1024  # rank r sends (r+1)*k + j elements to rank j, so rank r gets (i+1)*k + r from rank i
    in_splits = [(rank + 1) * k + j for j in range(world)]
    out_splits = [(i + 1) * k + rank for i in range(world)]
    a2a_in = torch.full((sum(in_splits),), float(rank))
    a2a_out = torch.empty(sum(out_splits))
    dist.all_to_all_single(a2a_out, a2a_in, out_splits, in_splits)
    a = compute(a)
    b = x[:8192].clone() if rank == 0 else torch.empty(8192)
    dist.broadcast(b, src=0)
    a = compute(a)
    send_buf = torch.full((2048,), float(rank))
    recv_buf = torch.empty(2048)
    reqs = [dist.isend(send_buf, (rank + 1) % world), dist.irecv(recv_buf, (rank - 1) % world)]
    for req in reqs:
        req.wait()
    a = compute(a)
    sub = state["groups"][rank // 2]
    y = x[:12288].clone()  # a size no other collective uses, so it is easy to tell apart
    dist.all_reduce(y, group=sub)
    state["x"] = x / world
    state["a"] = compute(a) / 256.0


def step_straggler(rank, world, state):
    x, a = state["x"], state["a"]
    if rank == 2:
        time.sleep(0.020)  # arrives last at each all_reduce
    dist.all_reduce(x)
    a = compute(a)
    gathered = torch.empty(world * 4096)
    dist.all_gather_into_tensor(gathered, x[:4096].contiguous())
    state["x"] = x / world
    state["a"] = compute(a) / 256.0


def ring_attention(q, k, v, rank, world):
    """One ring attention forward: online softmax over the K/V blocks as they travel the ring."""
    with record_function("ring_attention"):
        scale = q.shape[-1] ** -0.5
        out = torch.zeros_like(q)
        row_max = torch.full(q.shape[:-1] + (1,), float("-inf"))
        row_sum = torch.zeros(q.shape[:-1] + (1,))
        for step in range(world):
            if step < world - 1:  # pass the current block on while computing with it
                k_next, v_next = torch.empty_like(k), torch.empty_like(v)
                ops = [dist.P2POp(dist.isend, k, (rank + 1) % world),
                       dist.P2POp(dist.isend, v, (rank + 1) % world),
                       dist.P2POp(dist.irecv, k_next, (rank - 1) % world),
                       dist.P2POp(dist.irecv, v_next, (rank - 1) % world)]
                reqs = dist.batch_isend_irecv(ops)
            scores = torch.matmul(q, k.transpose(-2, -1)) * scale
            block_max = scores.amax(dim=-1, keepdim=True)
            new_max = torch.maximum(row_max, block_max)
            p = torch.exp(scores - new_max)
            correction = torch.exp(row_max - new_max)
            row_sum = row_sum * correction + p.sum(dim=-1, keepdim=True)
            out = out * correction + torch.matmul(p, v)
            row_max = new_max
            if step < world - 1:
                for req in reqs:
                    req.wait()
                k, v = k_next, v_next
        return out / row_sum


def step_ring_attention(rank, world, state):
    state["out"] = ring_attention(state["q"], state["k"], state["v"], rank, world)


def step_two_ranks(rank, world, state):
    dist.all_reduce(state["x"])
    state["x"] /= world
    state["a"] = compute(state["a"]) / 256.0


def worker(scenario, out_dir):
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    warnings.filterwarnings("ignore", message="Warning: Profiler clears events")  # one cycle only
    dist.init_process_group("gloo")
    torch.manual_seed(SEED + rank)
    state = {"x": torch.randn(65536), "a": torch.randn(256, 256) / 16.0}
    if scenario == "collectives":  # every rank creates every group, in the same order
        state["groups"] = [dist.new_group([0, 1]), dist.new_group([2, 3])]
    if scenario == "ring_attention":
        state.update(q=torch.randn(1, 4, 128, 32), k=torch.randn(1, 4, 128, 32),
                     v=torch.randn(1, 4, 128, 32))
    step = {"collectives": step_collectives, "straggler": step_straggler,
            "ring_attention": step_ring_attention, "two_ranks_ws2": step_two_ranks}[scenario]
    path = os.path.join(out_dir, f"rank{rank}.json")

    def export(prof):
        prof.export_chrome_trace(path)

    dist.barrier()
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True,
                 schedule=schedule(wait=1, warmup=1, active=3, repeat=1), on_trace_ready=export) as prof:
        for _ in range(STEPS):
            step(rank, world, state)
            prof.step()
    dist.barrier()
    dist.destroy_process_group()
    if os.path.getsize(path) > GZIP_ABOVE:
        with open(path, "rb") as f, gzip.open(path + ".gz", "wb") as g:
            shutil.copyfileobj(f, g)
        os.remove(path)


# ----------------------------------------------------------------------------- launcher side


def launch(scenario, out):
    world = SCENARIOS[scenario]
    dest = os.path.join(out, scenario)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={world}",
           os.path.abspath(__file__), "--worker", "--scenario", scenario, "--out", dest]
    t0 = time.time()
    subprocess.run(cmd, env=env, check=True)
    files = sorted(os.listdir(dest))
    sizes = ", ".join(f"{f} {os.path.getsize(os.path.join(dest, f))} B" for f in files)
    print(f"{scenario}: {time.time() - t0:.1f} s; {sizes}", flush=True)


# ----------------------------------------------------------------------------- summary


def load(folder, name):
    for path in (os.path.join(folder, name), os.path.join(folder, name + ".gz")):
        if os.path.exists(path):
            with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
                return json.load(f)
    return None


def summarize(out):
    for scenario, world in SCENARIOS.items():
        folder = os.path.join(out, scenario)
        traces = [load(folder, f"rank{r}.json") for r in range(world)]
        if any(t is None for t in traces):
            print(f"{scenario}: missing traces in {folder}")
            continue
        print(f"== {scenario} (world {world})")
        counts = [collections.Counter(e["name"] for e in t["traceEvents"] if e.get("ph") == "X" and
                                      e["name"].startswith(("c10d::", "gloo:", "record_param_comms")))
                  for t in traces]
        for name in sorted(set().union(*counts)):
            print(f"  {name:28s}" + "".join(f" r{r}={c[name]:<3d}" for r, c in enumerate(counts)))
        calls = [sorted((e["ts"], e["ts"] + e["dur"]) for e in t["traceEvents"]
                        if e["name"] == "gloo:all_reduce" and e["args"]["Input Dims"] == [[65536]])
                 for t in traces]
        for k in range(min(len(c) for c in calls)):
            starts = [c[k][0] for c in calls]
            ends = [c[k][1] for c in calls]
            late = max(range(world), key=lambda r: starts[r])
            print(f"  all_reduce #{k}: start spread {max(starts) - min(starts):8.1f} us (last rank {late}),"
                  f" end spread {max(ends) - min(ends):7.1f} us,"
                  f" first end - last start {min(ends) - max(starts):8.1f} us (>= 0: causal)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=OUT_DEFAULT, help="folder holding one folder per scenario")
    parser.add_argument("--only", nargs="*", choices=sorted(SCENARIOS), help="scenarios to record")
    parser.add_argument("--summarize", action="store_true", help="print counts and clock spreads, record nothing")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.scenario, args.out)
        return
    if args.summarize:
        summarize(os.path.abspath(args.out))
        return
    print(f"torch {torch.__version__}", flush=True)
    for scenario in args.only or list(SCENARIOS):
        launch(scenario, os.path.abspath(args.out))


if __name__ == "__main__":
    main()
