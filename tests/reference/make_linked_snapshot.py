"""A profile and the memory snapshot of the same run (tests/fixtures/memory_snapshots/linked/), for
attnwb's attribution of a snapshot's allocations to the trace's operators (analysis/snapshot_ops).

Run with torch 2.11 (scripts/setup-torch2.sh's venv); no CUDA device is needed. One CPU torch.profiler
run of the article's manual attention, forward and backward, with profile_memory=True and
with_stack=True, written twice: its chrome trace (export_chrome_trace: baseTimeNanoseconds plus ts is
the time since the epoch) and its snapshot (torch.cuda._memory_viz._profile_to_snapshot). That
conversion writes no time_us, which CUDA snapshots carry (microseconds since the epoch, torch >= 2.1);
this script adds it from the memory profile's timeline, which _profile_to_snapshot walks to make the
trace, in the same order (an alloc per CREATE, free_requested and free_completed per DESTROY, both per
INCREMENT_VERSION), each time in ns since the epoch floored to microseconds as torch's are.

Written:
  manual.trace.json.gz   the chrome trace
  manual.pickle          the snapshot, with time_us (protocol 4)
  manual.link.json       what attnwb must find, computed here in plain Python from those two files:
                         for every alloc, the shortest CPU op (cpu_op or user_annotation) whose
                         [ts, ts + dur] meets the allocation's microsecond; per op name the
                         allocations, bytes, and those alive at the peak; the allocations under
                         aten::matmul and under aten::softmax (children included). And, to check the
                         attribution against PyTorch's own: key_averages()'s self CPU memory per op
                         (allocated minus freed inside it) beside the same sum from the snapshot.

With --recompute: manual.link.json computed again from the two files written before (no torch needed;
PyTorch's self CPU memory, measured by that run, is kept from the old manual.link.json).

With --agreement: five more runs, each allocation's op by that rule against the op holding its exact
time (what PyTorch's profiler attributes memory by); writes nothing.
"""
import gzip
import json
import math
import pickle
import shutil
import sys
from pathlib import Path

from snapshot_views_reference import lives

if "--recompute" not in sys.argv:
    import torch
    from torch.cuda._memory_viz import _profile_to_snapshot
    from torch.profiler._memory_profiler import Action, TensorKey

out = Path(__file__).resolve().parents[1] / "fixtures" / "memory_snapshots" / "linked"
out.mkdir(parents=True, exist_ok=True)
UNDER = ["aten::matmul", "aten::softmax"]


def manual(q, k, v):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores, dim=-1) @ v


def record():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    q, k, v = (torch.randn((2, 4, 128, 32), requires_grad=True) for _ in range(3))
    manual(q, k, v).sum().backward()  # warm-up
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True,
                                with_stack=True, record_shapes=True) as prof:
        manual(q, k, v).sum().backward()
    return prof


def with_times(prof, snapshot):
    """time_us on each trace event, from the timeline _profile_to_snapshot walked."""
    per_action = {Action.CREATE: 1, Action.DESTROY: 2, Action.INCREMENT_VERSION: 3}
    times = [t // 1000 for t, action, (key, _), _ in prof._memory_profile().timeline
             if isinstance(key, TensorKey) and action in per_action for _ in range(per_action[action])]
    trace = snapshot["device_traces"][-1]  # the CPU's: after the CUDA devices (none here)
    assert len(times) == len(trace), (len(times), len(trace))
    for e, t in zip(trace, times):
        e["time_us"] = t
    return snapshot


def cpu_ops(chrome):
    """(start ns, end ns, name) since the epoch: integers, as attnwb's importer rounds ts and dur."""
    base = chrome["baseTimeNanoseconds"]
    ops = []
    for e in chrome["traceEvents"]:
        if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "user_annotation"):
            start = base + round(e["ts"] * 1000)
            ops.append((start, start + round(e["dur"] * 1000), e["name"]))
    return ops


def holds(o, t_us):
    """The op ran during the allocation's microsecond [t_us, t_us + 1)."""
    return o[0] < (t_us + 1) * 1000 and o[1] >= t_us * 1000


def innermost(ops, t_us):
    """The shortest op running during the allocation's microsecond (on a thread: the innermost; of two
    ops in the same microsecond, the shorter: an allocator's aten::empty rather than the copy after it)."""
    holding = [o for o in ops if holds(o, t_us)]
    return min(holding, key=lambda o: (o[1] - o[0], -o[0])) if holding else None


def unplaced(ops, t_us):
    """Where an allocation no op made falls against the ops' span, in whole microseconds."""
    if t_us < min(o[0] for o in ops) // 1000:
        return "(before the trace began)"
    return "(after the trace ended)" if t_us > max(o[1] for o in ops) // 1000 else "(between operators)"


def peak_allocs(snapshot, device, window):
    """The allocs alive at the peak among the events timed inside WINDOW (the ops' span, microseconds)."""
    blocks, events = lives(snapshot, device)
    trace = snapshot["device_traces"][device]
    alloc = [0] * (events + 2)
    for _, size, _, _, begin, end in blocks:
        alloc[begin] += size
        alloc[end] -= size
    running, best, at = 0, -1, 0
    for x in range(events + 1):
        running += alloc[x]
        inside = x > 0 and window[0] <= trace[x - 1].get("time_us", -1) <= window[1]
        if inside and running > best:
            best, at = running, x
    return {b[3] for b in blocks if b[3] >= 0 and b[4] <= at < b[5]}, best


def expected(snapshot, chrome, prof):
    ops = cpu_ops(chrome)
    device = len(snapshot["device_traces"]) - 1
    trace = snapshot["device_traces"][device]
    at_peak, peak = peak_allocs(snapshot, device, (min(o[0] for o in ops) // 1000, max(o[1] for o in ops) // 1000))
    by_op, net, allocs, under = {}, {}, [], {name: [] for name in UNDER}
    for i, e in enumerate(trace):
        if e["action"] not in ("alloc", "free_completed"):
            continue
        op = innermost(ops, e["time_us"])
        name = op[2] if op else None
        key = name or unplaced(ops, e["time_us"])
        net[key] = net.get(key, 0) + (e["size"] if e["action"] == "alloc" else -e["size"])
        if e["action"] != "alloc":
            continue
        allocs.append([i, name])
        row = by_op.setdefault(key, {"allocations": 0, "bytes": 0, "at_peak": 0, "bytes_at_peak": 0})
        row["allocations"] += 1
        row["bytes"] += e["size"]
        if i in at_peak:
            row["at_peak"] += 1
            row["bytes_at_peak"] += e["size"]
        # under NAME: the innermost op is, or lies within, an op named NAME
        for parent in UNDER:
            if op and any(o[2] == parent and o[0] <= op[0] and op[1] <= o[1] for o in ops):
                under[parent].append(i)
    torch_self = ({e.key: e.self_cpu_memory_usage for e in prof.key_averages() if e.self_cpu_memory_usage} if prof else
                  json.loads((out / "manual.link.json").read_text())["torch_self_cpu_memory"])
    return {"device": device, "allocations": len(allocs), "in_ops": sum(1 for _, n in allocs if n), "peak_allocated": peak,
            "innermost": allocs, "by_op": by_op, "under": under,
            "net_by_op": net, "torch_self_cpu_memory": torch_self}


def agreement(runs):
    """How often the rule attnwb uses (and innermost() here) names the op that PyTorch's profiler, with
    exact times, would: the shortest op running at the allocation's nanosecond. Against it, the rule
    on microseconds and the plain "deepest op running at the microsecond's start"."""
    counts = {"window (attnwb)": 0, "at the microsecond's start": 0, "allocations": 0}
    for _ in range(runs):
        prof = record()
        prof.export_chrome_trace("/tmp/awb-linked-agreement.json")
        ops = cpu_ops(json.loads(Path("/tmp/awb-linked-agreement.json").read_text()))
        for t, action, (key, _), _ in prof._memory_profile().timeline:
            if not isinstance(key, TensorKey) or action not in (Action.CREATE, Action.INCREMENT_VERSION):
                continue
            exact = [o for o in ops if o[0] <= t <= o[1]]
            truth = min(exact, key=lambda o: (o[1] - o[0], -o[0])) if exact else None
            start = [o for o in ops if o[0] <= t // 1000 * 1000 <= o[1]]
            counts["allocations"] += 1
            counts["window (attnwb)"] += innermost(ops, t // 1000) == truth
            counts["at the microsecond's start"] += (min(start, key=lambda o: (o[1] - o[0], -o[0])) if start else None) == truth
    print(counts)


def main():
    if "--agreement" in sys.argv:
        return agreement(5)
    if "--recompute" in sys.argv:
        snapshot = pickle.loads((out / "manual.pickle").read_bytes())
        chrome = json.loads(gzip.decompress((out / "manual.trace.json.gz").read_bytes()))
        want = expected(snapshot, chrome, None)
        (out / "manual.link.json").write_text(json.dumps(want, indent=1) + "\n")
        return print(f"wrote {out / 'manual.link.json'} again: {want['allocations']} allocations, {want['in_ops']} inside ops")
    prof = record()
    chrome_path = out / "manual.trace.json"
    prof.export_chrome_trace(str(chrome_path))
    with open(chrome_path, "rb") as src, gzip.GzipFile(str(chrome_path) + ".gz", "wb", mtime=0) as dst:
        shutil.copyfileobj(src, dst)
    chrome = json.loads(chrome_path.read_text())
    chrome_path.unlink()
    snapshot = with_times(prof, _profile_to_snapshot(prof))
    with open(out / "manual.pickle", "wb") as f:
        pickle.dump(snapshot, f, protocol=4)
    want = expected(snapshot, chrome, prof)
    (out / "manual.link.json").write_text(json.dumps(want, indent=1) + "\n")
    agree = [k for k, v in want["torch_self_cpu_memory"].items() if want["net_by_op"].get(k) == v]
    print(f"wrote {out}: {want['allocations']} allocations, {want['in_ops']} inside ops; "
          f"allocated minus freed agrees with torch's self CPU memory for {', '.join(sorted(agree))}")


if __name__ == "__main__":
    main()
