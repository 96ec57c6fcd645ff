"""Memory-snapshot fixtures (tests/fixtures/memory_snapshots/), for the snapshot pickle reader.

Run with torch 2.11 (scripts/setup-torch2.sh's venv): no CUDA device is needed. A CPU torch.profiler run
with profile_memory=True and with_stack=True, turned into a snapshot by torch's own
torch.cuda._memory_viz._profile_to_snapshot (what its profile_plot uses), gives the same dict that
torch.cuda.memory._snapshot() returns on a GPU: device_traces with alloc / free_requested / free_completed
and Python frames, and segments with the blocks alive at the end. The article's workload, small:
manual attention (the [B, H, N, N] scores materialised) and SDPA, forward and backward.

Written, each from the same dict:
  <variant>.p2.pickle, .p4.pickle, .p5.pickle   pickle protocols 2, 4 and 5 (torch writes the default, 4 on 3.11)
  <variant>.p4.pickle.gz                        gzipped
  <variant>.json                                the same dict as JSON: what the reader must reproduce
  <variant>.expected.json                       the replay of each device in plain Python: the peak, the
                                                blocks alive at it, the bytes under each frame there, the
                                                blocks alive before recording began
plus handmade.*: what a CPU profile does not produce (segments of several blocks in every
state, segment_alloc / segment_free / segment_map / segment_unmap, an oom with device_free, a snapshot
action, a block alive before recording began, allocator_settings, floats, bools, None, a tuple, a shared
frame list).
"""
import gzip
import json
import math
import pickle
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.cuda._memory_viz import _profile_to_snapshot

from snapshot_replay import alive_before, devices_of, final_state, is_machinery

out = Path(__file__).resolve().parents[1] / "fixtures" / "memory_snapshots"
out.mkdir(parents=True, exist_ok=True)


def manual(q, k, v):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores, dim=-1) @ v


def sdpa(q, k, v):
    return F.scaled_dot_product_attention(q, k, v)


def attention_snapshot(fn):
    torch.manual_seed(0)
    torch.set_num_threads(1)
    shape = (1, 2, 64, 16)
    q, k, v = (torch.randn(shape, requires_grad=True) for _ in range(3))
    fn(q, k, v).sum().backward()  # warm-up
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True,
                                with_stack=True, record_shapes=True) as prof:
        fn(q, k, v).sum().backward()
    return _profile_to_snapshot(prof)


def handmade():
    frame_a = {"filename": "model.py", "line": 12, "name": "attention"}
    frame_b = {"filename": "train.py", "line": 40, "name": "step"}
    shared = [frame_a, frame_b]  # one list object: the pickle memoizes it and refers to it again
    segments = [
        {"device": 0, "address": 1 << 20, "total_size": 2 << 20, "allocated_size": 1 << 20, "active_size": (1 << 20) + 4096,
         "requested_size": 1000000, "stream": 0, "segment_type": "large", "segment_pool_id": (0, 0), "is_expandable": False,
         "frames": shared,
         "blocks": [
             {"address": 1 << 20, "size": 1 << 20, "requested_size": 1000000, "state": "active_allocated", "frames": shared},
             {"address": (2 << 20), "size": 4096, "requested_size": 4000, "state": "active_awaiting_free", "frames": [frame_b]},
             {"address": (2 << 20) + 4096, "size": (1 << 20) - 4096, "requested_size": 0, "state": "inactive", "frames": []},
         ]},
        {"device": 0, "address": 1 << 30, "total_size": 512, "allocated_size": 512, "active_size": 512, "requested_size": 500,
         "stream": 7, "segment_type": "small", "segment_pool_id": (0, 1), "is_expandable": True, "frames": [],
         # alive before recording began: no alloc of it in the trace
         "blocks": [{"address": 1 << 30, "size": 512, "requested_size": 500, "state": "active_allocated", "frames": []}]},
    ]
    trace = [
        {"action": "segment_alloc", "addr": 1 << 20, "size": 2 << 20, "stream": 0, "time_us": 10, "frames": shared},
        {"action": "alloc", "addr": 1 << 20, "size": 1 << 20, "stream": 0, "time_us": 11, "frames": shared},
        {"action": "alloc", "addr": 2 << 20, "size": 4096, "stream": 0, "time_us": 12, "frames": [frame_b]},
        {"action": "free_requested", "addr": 2 << 20, "size": 4096, "stream": 0, "time_us": 13, "frames": [frame_b]},
        {"action": "segment_map", "addr": 3 << 20, "size": 1 << 21, "stream": 0, "time_us": 14, "frames": []},
        {"action": "segment_unmap", "addr": 3 << 20, "size": 1 << 21, "stream": 0, "time_us": 15, "frames": []},
        {"action": "oom", "size": 1 << 40, "stream": 0, "device_free": 123456789, "time_us": 16, "frames": shared},
        {"action": "snapshot", "addr": 0, "size": 0, "stream": 0, "time_us": 17, "frames": []},
        {"action": "segment_free", "addr": 5 << 20, "size": 1 << 20, "stream": 0, "time_us": 18, "frames": [],
         "compile_context": "N/A", "user_metadata": ""},
    ]
    return {"segments": segments, "device_traces": [trace],
            "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1, "garbage_collection_threshold": 0.0,
                                   "expandable_segments": False, "pinned_num_register_threads": 1, "release_lock_on_cudamalloc": False,
                                   "pinned_use_cuda_host_register": False, "roundup_power2_divisions": {"1": 0, "2": 0},
                                   "last_allocator_settings": None, "ratio": 0.25, "negative": -7, "big": 2**62 + 5}}


def to_json(x):
    if isinstance(x, tuple):
        return [to_json(v) for v in x]
    if isinstance(x, list):
        return [to_json(v) for v in x]
    if isinstance(x, dict):
        return {str(k): to_json(v) for k, v in x.items()}
    return x


def frame_key(f):
    return f"{f.get('name', '')} ({f.get('filename', '')}:{f.get('line', 0)})"


def replay(snapshot, device):
    """Forward, event by event: a free of an address the trace never allocated, or a block active at the
    end that the trace never allocated, was alive before recording began."""
    events = snapshot["device_traces"][device] if device < len(snapshot["device_traces"]) else []
    final, final_allocated, final_reserved = final_state(snapshot, device)
    before = alive_before(events, final)
    live = dict(before)
    curve = [sum(s for s, _ in live.values())]
    for e in events:
        if e["action"] == "alloc":
            live[e["addr"]] = (e["size"], e.get("frames") or [])
        elif e["action"] == "free_completed":
            live.pop(e["addr"], None)
        curve.append(sum(s for s, _ in live.values()))
    peak = max(curve)
    peak_index = curve.index(peak)
    live = dict(before)
    for e in events[:peak_index]:
        if e["action"] == "alloc":
            live[e["addr"]] = (e["size"], e.get("frames") or [])
        elif e["action"] == "free_completed":
            live.pop(e["addr"], None)
    frames = {}
    for size, stack in live.values():
        for key in {frame_key(f) for f in stack if not is_machinery(f)}:
            frames[key] = frames.get(key, 0) + size
    order = lambda blocks: sorted(([a, s] for a, (s, _) in blocks.items()), key=lambda x: (-x[1], x[0]))
    return {"device": device, "events": len(events), "peak_allocated": peak, "peak_index": peak_index,
            "at_peak": order(live), "before_recording": order(before), "frames_at_peak": frames,
            "final_allocated": final_allocated, "final_reserved": final_reserved}


def expected(snapshot):
    return {"devices": [replay(snapshot, d) for d in devices_of(snapshot)]}


def write(name, snapshot, protocols):
    with open(out / f"{name}.expected.json", "w") as f:
        json.dump(expected(snapshot), f, indent=1)
        f.write("\n")
    with open(out / f"{name}.json", "w") as f:
        json.dump(to_json(snapshot), f, indent=1, sort_keys=False)
        f.write("\n")
    for p in protocols:
        (out / f"{name}.p{p}.pickle").write_bytes(pickle.dumps(snapshot, protocol=p))
    with gzip.GzipFile(out / f"{name}.p4.pickle.gz", "wb", mtime=0) as f:
        f.write(pickle.dumps(snapshot, protocol=4))


if __name__ == "__main__":
    print(f"torch {torch.__version__}, python {sys.version.split()[0]}")
    for name, fn in (("manual", manual), ("sdpa", sdpa)):
        snap = attention_snapshot(fn)
        write(name, snap, (2, 4, 5))
        trace = snap["device_traces"][-1]
        print(f"{name}: {len(trace)} trace entries, {len(snap['segments'])} segments, "
              f"{sum(len(s['blocks']) for s in snap['segments'])} blocks")
    write("handmade", handmade(), (2, 4, 5))
    # Snapshots whose layout is wrong, each for one message (bad/<what>.pickle).
    bad = {
        "segments_not_a_list": {"segments": 5},
        "size_a_str": {"device_traces": [[{"action": "alloc", "addr": 1, "size": "big"}]]},
        "unknown_action": {"device_traces": [[{"action": "user_thing", "addr": 1}, {"action": "alloc", "addr": 16, "size": 4}]]},
        "not_a_dict": [1, 2],
        "block_state": {"segments": [{"device": 0, "address": 0, "total_size": 8, "blocks": [{"size": 8, "state": "weird"}]}]},
    }
    (out / "bad").mkdir(exist_ok=True)
    for what, snapshot in bad.items():
        (out / "bad" / f"{what}.pickle").write_bytes(pickle.dumps(snapshot, protocol=4))
    print(f"written to {out}")
