"""Step (h) of the GPU check, the part without torch: a CUDA memory snapshot read three ways.

  replay(snapshot, device)   the snapshot's device_traces replayed in plain Python, as docs/inspect.md says
                             attnwb inspect does: allocated bytes after each event (alloc adds a block,
                             free_completed removes it), reserved bytes (segment_alloc / segment_map add,
                             segment_free / segment_unmap remove, starting from the final segments walked
                             back), the first peak, the blocks alive at it, the bytes under each frame there,
                             the blocks alive before recording began (the final state and the frees walked
                             back), and the events of each action
  parse_segsum / parse_trace torch.cuda._memory_viz's text summaries of the same file ("stats": segsum,
                             "trace"), run by snapshot_torch.py with the python under test
  snapshot_rules(...)        attnwb inspect FILE --json against both: every mismatch is a failed check

Pure data in, verdicts out, so that tests/gpu_check/test_snapshots.py tries them here on the committed
fixtures and on made-up mismatches.
"""
import gzip
import os
import pickle
import re
import shutil
import sys

from rules import Verdict

# The snapshot read as attnwb reads it, shared with the references that check attnwb here.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "reference"))
from snapshot_replay import alive_before, devices_of, final_state, frame_text, is_machinery  # noqa: E402

GROWS = ("segment_alloc", "segment_map")
SHRINKS = ("segment_free", "segment_unmap")


def curves(events, before, final_reserved):
    """Allocated and reserved bytes before the first event and after each; frees of dead addresses."""
    reserved = final_reserved
    for e in events:
        reserved += e["size"] if e["action"] in SHRINKS else -e["size"] if e["action"] in GROWS else 0
    live = dict(before)
    allocated = sum(s for s, _ in live.values())
    alloc_curve, reserved_curve, unmatched = [allocated], [reserved], 0
    for e in events:
        if e["action"] == "alloc":
            live[e["addr"]] = (e["size"], e.get("frames") or [])
            allocated += e["size"]
        elif e["action"] == "free_completed":
            if e["addr"] in live:
                allocated -= live.pop(e["addr"])[0]
            else:
                unmatched += 1
        reserved += e["size"] if e["action"] in GROWS else -e["size"] if e["action"] in SHRINKS else 0
        alloc_curve.append(allocated)
        reserved_curve.append(reserved)
    return alloc_curve, reserved_curve, unmatched


def live_after(events, before, n):
    live = dict(before)
    for e in events[:n]:
        if e["action"] == "alloc":
            live[e["addr"]] = (e["size"], e.get("frames") or [])
        elif e["action"] == "free_completed":
            live.pop(e["addr"], None)
    return live


def frames_of(live):
    """{frame: [bytes, blocks]}: every block counts once for every distinct frame of its stack (not the
    recording's machinery)."""
    out = {}
    for size, stack in live.values():
        for key in {frame_text(f) for f in stack if not is_machinery(f)}:
            slot = out.setdefault(key, [0, 0])
            slot[0] += size
            slot[1] += 1
    return out


def ordered(blocks):
    return sorted(([a, s] for a, (s, _) in blocks.items()), key=lambda x: (-x[1], x[0]))


def replay(snapshot, device):
    traces = snapshot.get("device_traces", [])
    events = traces[device] if device < len(traces) else []
    final, _, final_reserved = final_state(snapshot, device)
    before = alive_before(events, final)
    alloc_curve, reserved_curve, unmatched = curves(events, before, final_reserved)
    peak = max(alloc_curve)
    index = alloc_curve.index(peak)
    at_peak = live_after(events, before, index)
    actions = {}
    for e in events:
        actions[e["action"]] = actions.get(e["action"], 0) + 1
    return {"device": device, "events": len(events), "actions": actions,
            "alloc_sizes": [e["size"] for e in events if e["action"] == "alloc"],
            "peak_allocated_bytes": peak, "peak_after_events": index, "peak_reserved_bytes": max(reserved_curve),
            "final_allocated_bytes": sum(s for s, _ in final.values()), "final_reserved_bytes": final_reserved,
            "blocks": actions.get("alloc", 0) + len(before), "unmatched_frees": unmatched,
            "blocks_at_peak": ordered(at_peak), "frames_at_peak": frames_of(at_peak),
            "alive_before_recording": ordered(before)}


def load(path):
    """The snapshot as Python's pickle reads it (plain data: no torch needed), plain or gzipped."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return pickle.load(f)


# ---- torch.cuda._memory_viz's text ------------------------------------------------------------------
def viz_size(num):
    """_memory_viz._format_size: how its summaries print bytes."""
    for unit in ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi"]:
        if abs(num) < 1024.0:
            return f"{num:3.1f}{unit}B"
        num /= 1024.0
    return f"{num:.1f}YiB"


def parse_segsum(text):
    """segsum ("stats"): segments, total_reserved, total_allocated as printed."""
    out = {}
    for key in ("segments", "total_reserved", "total_allocated"):
        m = re.search(rf"^{key}: (\S+)", text, re.M)
        if m:
            out[key] = m.group(1)
    return out


TRACE_LINES = [("alloc", re.compile(r"^\w+ = (?!cudaMalloc\()\S+\[\d+:(\S+)\]$")),
               ("segment_alloc", re.compile(r"^\w+ = cudaMalloc\(")),
               ("free_requested", re.compile(r"^del \S+ # ")),
               ("free_completed", re.compile(r"^# free completed for ")),
               ("segment_free", re.compile(r"^cudaFree\(")),
               ("oom", re.compile(r"^raise OutOfMemoryError "))]


def parse_trace(text):
    """trace: per device its entry count, the lines of each action and the sizes of the allocs, as printed."""
    devices, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^Device (\d+) -+$", line)
        if m:
            cur = devices.setdefault(int(m.group(1)), {"entries": None, "actions": {}, "alloc_sizes": []})
            continue
        if cur is None:
            continue
        m = re.match(r"^(\d+) entries$", line)
        if m and cur["entries"] is None:
            cur["entries"] = int(m.group(1))
            continue
        for action, pattern in TRACE_LINES:
            m = pattern.match(line)
            if m:
                cur["actions"][action] = cur["actions"].get(action, 0) + 1
                if action == "alloc":
                    cur["alloc_sizes"].append(m.group(1))
                break
    return devices


# ---- the rules ---------------------------------------------------------------------------------------
def differ(a, b, limit=3):
    if isinstance(a, dict):
        keys = sorted(set(a) | set(b))
        return "; ".join(f"{k}: attnwb {a.get(k)} vs {b.get(k)}" for k in keys if a.get(k) != b.get(k))[:400]
    return f"attnwb {str(a)[:200]} vs {str(b)[:200]}"


def attnwb_vs_replay(dev, ref):
    """One device: attnwb inspect's figures against the plain-Python replay, each group its own verdict."""
    d = ref["device"]
    out = []
    peak = {k: dev.get(k) for k in ("events", "peak_allocated_bytes", "peak_after_events", "blocks", "unmatched_frees")}
    want = {k: ref[k] for k in peak}
    out.append(Verdict(f"device {d}: peak allocated", "pass" if peak == want else "fail",
                       f"{ref['peak_allocated_bytes']} B after event {ref['peak_after_events']} of {ref['events']}, "
                       f"{ref['blocks']} blocks" if peak == want else differ(peak, want), **peak))
    got = [[b["address"], b["bytes"]] for b in dev.get("blocks_at_peak", [])]
    ok = got == ref["blocks_at_peak"]
    sizes = [s for _, s in ref["blocks_at_peak"]]
    out.append(Verdict(f"device {d}: blocks alive at the peak", "pass" if ok else "fail",
                       f"{len(got)} blocks, the largest {sizes[:4]} B" if ok else
                       f"{len(got)} vs {len(ref['blocks_at_peak'])} blocks: " + differ(got[:6], ref["blocks_at_peak"][:6]),
                       blocks=len(got)))
    frames = {f["frame"]: [f["bytes"], f["blocks"]] for f in dev.get("frames_at_peak", [])}
    ok = frames == ref["frames_at_peak"]
    out.append(Verdict(f"device {d}: bytes per frame at the peak", "pass" if ok else "fail",
                       f"{len(frames)} frames, bytes and blocks equal" if ok else
                       f"{len(frames)} vs {len(ref['frames_at_peak'])} frames: " + differ(frames, ref["frames_at_peak"]),
                       frames=len(frames)))
    res = {k: dev.get(k) for k in ("peak_reserved_bytes", "final_reserved_bytes", "final_allocated_bytes")}
    want = {k: ref[k] for k in res}
    out.append(Verdict(f"device {d}: reserved", "pass" if res == want else "fail",
                       f"peak {ref['peak_reserved_bytes']} B, at the snapshot {ref['final_reserved_bytes']} B reserved and "
                       f"{ref['final_allocated_bytes']} B allocated" if res == want else differ(res, want), **res))
    got = [[b["address"], b["bytes"]] for b in dev.get("alive_before_recording", [])]
    ok = got == ref["alive_before_recording"]
    out.append(Verdict(f"device {d}: alive before recording", "pass" if ok else "fail",
                       f"{len(got)} blocks, {sum(s for _, s in got)} B" if ok else differ(got[:6], ref["alive_before_recording"][:6]),
                       blocks=len(got)))
    return out


def segsum_rule(inspected, segsum, snapshot):
    """memory_viz's segsum of the file: its segments and reserved bytes against attnwb's, its allocated bytes
    (the active blocks' requested sizes) against the file's."""
    got = {"segments": str(inspected.get("segments")),
           "total_reserved": viz_size(sum(d.get("final_reserved_bytes", 0) for d in inspected.get("devices", []))),
           "total_allocated": viz_size(sum(b.get("requested_size", b["size"]) for s in snapshot.get("segments", [])
                                           for b in s.get("blocks", []) if b["state"] == "active_allocated"))}
    want = {k: segsum.get(k) for k in got}
    ok = got == want
    return Verdict("memory_viz segsum", "pass" if ok else "fail",
                   f"{want['segments']} segments, {want['total_reserved']} reserved, {want['total_allocated']} allocated at the "
                   "snapshot" if ok else differ(got, want))


def trace_rule(dev, ref, trace):
    """memory_viz's trace of one device: its entries against attnwb's events, its lines of each action and the
    sizes of the allocs as printed against the replay's."""
    d = ref["device"]
    t = trace.get(d, {"entries": 0, "actions": {}, "alloc_sizes": []})  # memory_viz skips a device without events
    counted = {a: n for a, n in ref["actions"].items() if a in dict(TRACE_LINES)}
    want = {"entries": dev.get("events"), "actions": counted, "alloc_sizes": [viz_size(s) for s in ref["alloc_sizes"]]}
    ok = t == want
    return Verdict(f"device {d}: memory_viz trace", "pass" if ok else "fail",
                   f"{t['entries']} entries, " + ", ".join(f"{n} {a}" for a, n in sorted(counted.items())) +
                   ", every alloc's size as printed" if ok else
                   differ({k: str(v)[:120] for k, v in t.items()}, {k: str(v)[:120] for k, v in want.items()}))


def snapshot_rules(name, inspected, snapshot, segsum=None, trace=None):
    """inspected: attnwb inspect --json's snapshots[0]; snapshot: the pickle as Python loads it; segsum and trace:
    memory_viz's text of the same file (None: not made). Every verdict's rule starts with name."""
    replays = [replay(snapshot, d) for d in devices_of(snapshot)]
    listed = [d.get("device") for d in inspected.get("devices", [])]
    out = [Verdict("devices", "pass" if listed == [r["device"] for r in replays] else "fail",
                   f"attnwb lists devices {listed}, the replay {[r['device'] for r in replays]}")]
    for ref in replays:
        dev = next((x for x in inspected.get("devices", []) if x.get("device") == ref["device"]), None)
        if dev is not None:
            out += attnwb_vs_replay(dev, ref)
    if segsum is not None:
        out.append(segsum_rule(inspected, parse_segsum(segsum), snapshot))
    if trace is not None:
        devices = {x.get("device"): x for x in inspected.get("devices", [])}
        out += [trace_rule(devices.get(ref["device"], {}), ref, parse_trace(trace)) for ref in replays]
    if inspected.get("unknown_actions"):
        out.append(Verdict("unknown actions", "info", f"attnwb passed over {inspected['unknown_actions']}"))
    return [dict(v, rule=f"{name}: {v['rule']}") for v in out]


def recordings_rule(variant, ours, theirs):
    """The same workload recorded by attnwb (C++ stacks) and by PyTorch: their peaks, for the record (the
    two runs differ in what ran before recording, so this is information, not a check)."""
    a, b = ours["peak_allocated_bytes"], theirs["peak_allocated_bytes"]
    return Verdict(f"{variant}: attnwb's recording vs PyTorch's", "info",
                   f"peak allocated {a} B vs {b} B ({(a - b) / max(b, 1):+.1%}), {ours['events']} vs {theirs['events']} events, "
                   f"{len(ours['blocks_at_peak'])} vs {len(theirs['blocks_at_peak'])} blocks at the peak",
                   attnwb=a, pytorch=b)


GZIP_FROM = 1 << 20  # pickles larger than this come back gzipped (attnwb inspect reads .gz as it is)
WHAT = {"attnwb": "attnwb profile --memory-snapshot: C++ stacks, pickled by LibTorch (torch::cuda::_memory_snapshot_pickled, "
                  "protocol 2)",
        "pytorch": "torch.cuda.memory._record_memory_history(max_entries=100000), the same steps in Python, _dump_snapshot "
                   "(Python and C++ stacks, pickle protocol 4)",
        "cpu-fixture": "the committed CPU fixture (tests/fixtures/memory_snapshots), read three ways in a rehearsal"}


def write_fixtures(folder, files, env):
    """Gzips the large pickles in place and writes folder/README.md saying what each file is."""
    rows = []
    for name, path in files:
        if os.path.getsize(path) > GZIP_FROM:
            with open(path, "rb") as src, gzip.GzipFile(path + ".gz", "wb", mtime=0) as dst:
                shutil.copyfileobj(src, dst)
            os.remove(path)
            path += ".gz"
        variant, source = name.split(".", 1)
        rows.append(f"| `{os.path.basename(path)}` | {variant}: {WHAT.get(source, source)}; {os.path.getsize(path)} bytes |")
    devices = ", ".join(env.get("devices", []))
    said = (f"Recorded on {devices} with torch {env.get('torch')} (CUDA {env.get('cuda_built')}) by scripts/gpu-check.sh: the "
            "article's workload, fp16 (2, 8, 512, 64) train, the steps of attnwb profile's default schedule (5)." if devices else
            f"A rehearsal without a GPU (torch {env.get('torch')}): nothing recorded, the committed CPU fixtures read three ways.")
    text = ["# CUDA memory snapshots from the GPU check, step (h)", "", said, "",
            "| file | what |", "| --- | --- |"] + rows + [
            "| `NAME.inspect.json` | attnwb inspect NAME --json |",
            "| `NAME.replay.json` | the plain-Python replay of its device_traces (scripts/gpu_check/snapshots.py) |",
            "| `NAME.segsum.txt`, `NAME.trace.txt` | torch.cuda._memory_viz's summaries of the same file |", "",
            "The pickles are fixtures for tests/fixtures/memory_snapshots/gpu/ (copy them with their .replay.json)."]
    with open(os.path.join(folder, "README.md"), "w") as f:
        f.write("\n".join(text) + "\n")
