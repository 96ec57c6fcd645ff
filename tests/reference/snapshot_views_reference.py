"""What the memory-snapshot views must show, computed in plain Python from the fixtures' JSON
(tests/fixtures/memory_snapshots/<name>.json, written by make_memory_snapshots.py): no torch needed.

For each fixture, <name>.views.json holds
  filters: a frame filter's replay (only blocks with a frame whose text contains the filter,
           case-insensitive, are counted): the peak, its index, the blocks alive at it, the blocks alive
           before recording, and the curve of allocated bytes after each event
  bands:   memory_viz's stacked picture (torch/utils/viz/MemoryViz.js, process_alloc_data) ported to
           Python on our event axis (x = 0 before the first event, i + 1 after event i; a shift is
           instant rather than memory_viz's three animation steps): the largest MAX_BANDS blocks stacked
           in the order they were allocated, the blocks alive before recording first (largest first);
           a free moves the blocks above it down; the rest is summarised above them.

and transformer.diff.json: attnwb diff of transformer_manual.pickle.gz against transformer_sdpa.pickle.gz
(make_transformer_snapshots.py), computed here: per device, each side's peak and, grouped by the frame
that allocated them (the innermost frame of Python code outside torch, else the innermost Python frame,
else the innermost frame), the bytes and blocks alive at each peak and the allocs over each trace.

Run: python3 tests/reference/snapshot_views_reference.py
"""
import gzip
import json
import pickle
import re
from pathlib import Path

from snapshot_replay import alive_before, devices_of, final_state, frame_text, is_machinery

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "memory_snapshots"
FILTERS = {"manual": ["softmax", "BACKWARD", "no such frame"], "sdpa": ["scaled_dot_product", "backward"],
           "handmade": ["attention", "step"]}
MAX_BANDS = 8


def matches(frames, text):
    return any(text.lower() in frame_text(f).lower() for f in frames or [])


def lives(snapshot, device):
    """Every block's life: (addr, size, frames, alloc_event or -1, begin x, end x)."""
    events = snapshot["device_traces"][device] if device < len(snapshot["device_traces"]) else []
    before = alive_before(events, final_state(snapshot, device)[0])
    end = len(events) + 1
    out, live = [], {}
    for addr, (size, frames) in sorted(before.items(), key=lambda kv: (-kv[1][0], kv[0])):
        live[addr] = len(out)
        out.append([addr, size, frames, -1, 0, end])
    for i, e in enumerate(events):
        if e["action"] == "alloc":
            if e["addr"] in live:
                out[live[e["addr"]]][5] = i + 1
            live[e["addr"]] = len(out)
            out.append([e["addr"], e["size"], e.get("frames") or [], i, i + 1, end])
        elif e["action"] == "free_completed" and e["addr"] in live:
            out[live.pop(e["addr"])][5] = i + 1
    return out, len(events)


def filtered(snapshot, device, text):
    blocks, events = lives(snapshot, device)
    kept = [b for b in blocks if matches(b[2], text)]
    curve = [sum(b[1] for b in kept if b[4] <= x < b[5]) for x in range(events + 1)]
    peak = max(curve)
    index = curve.index(peak)
    order = lambda bs: sorted(([b[0], b[1]] for b in bs), key=lambda x: (-x[1], x[0]))
    return {"peak_allocated": peak, "peak_index": index, "blocks": len(kept),
            "at_peak": order(b for b in kept if b[4] <= index < b[5]),
            "before_recording": order(b for b in kept if b[3] < 0), "allocated": curve}


def bands(snapshot, device, max_entries):
    """process_alloc_data's loop: current is the stack of drawn blocks; a free splices one out and
    pushes a new offset for each block above it."""
    blocks, events = lives(snapshot, device)
    draw = set(sorted(range(len(blocks)), key=lambda i: (-blocks[i][1], i))[:max_entries])
    actions = sorted([(b[4], 1, i) for i, b in enumerate(blocks) if i in draw] +
                     [(b[5], 0, i) for i, b in enumerate(blocks) if i in draw and b[5] <= events])
    current, data, total, banded = [], {}, 0, [[0, 0]]
    for x, alloc, i in actions:
        size = blocks[i][1]
        if alloc:
            data[i] = {"addr": blocks[i][0], "size": size, "begin": x, "end": blocks[i][5], "bottom": [[x, total]]}
            current.append(i)
            total += size
        else:
            idx = len(current) - 1 - current[::-1].index(i)
            current.pop(idx)
            for j in current[idx:]:
                data[j]["bottom"].append([x, data[j]["bottom"][-1][1] - size])
            total -= size
        if banded[-1][0] == x:
            banded[-1][1] = total
        else:
            banded.append([x, total])
    return {"max_bands": max_entries, "bands": [data[i] for i in sorted(data)], "banded": banded}


def file_of(f):
    filename = f.get("filename", "")
    if filename not in ("", "none"):
        return filename
    m = re.match(r"(.*?\.py)\(", f.get("name", ""))
    return m.group(1) if m else ""


def allocated_by(frames):
    python = [f for f in frames or [] if file_of(f).endswith(".py") and len(file_of(f)) > 3]
    torch_python = lambda f: (file_of(f).startswith("torch/") or "/torch/" in file_of(f)
                              or "/site-packages/torch" in file_of(f) or "/dist-packages/torch" in file_of(f))
    aten_op = [f for f in frames or [] if f.get("name", "").startswith("at::_ops::") and "::call(" in f.get("name", "")]
    shown = [f for f in frames or [] if not is_machinery(f)]
    chosen = next((f for f in python if not torch_python(f)),
                  python[0] if python else aten_op[0] if aten_op else shown[0] if shown else (frames[0] if frames else None))
    return frame_text(chosen) if chosen else "(no stack recorded)"


def diff_side(snapshot, device):
    blocks, events = lives(snapshot, device)
    curve = [0] * (events + 2)
    for b in blocks:
        curve[b[4]] += b[1]
        curve[b[5]] -= b[1]
    running, peak, index = 0, -1, 0
    for x in range(events + 1):
        running += curve[x]
        if running > peak:
            peak, index = running, x
    groups = {}
    for b in blocks:
        g = groups.setdefault(allocated_by(b[2]), {"peak_bytes": 0, "peak_blocks": 0, "allocs": 0, "alloc_bytes": 0})
        if b[4] <= index < b[5]:
            g["peak_bytes"] += b[1]
            g["peak_blocks"] += 1
        if b[3] >= 0:
            g["allocs"] += 1
            g["alloc_bytes"] += b[1]
    return peak, groups


def snapshot_diff(a, b):
    out = []
    for d in sorted(set(devices_of(a)) | set(devices_of(b))):
        peak_a, ga = diff_side(a, d)
        peak_b, gb = diff_side(b, d)
        empty = {"peak_bytes": 0, "peak_blocks": 0, "allocs": 0, "alloc_bytes": 0}
        rows = {k: {"a": ga.get(k, empty), "b": gb.get(k, empty)} for k in set(ga) | set(gb)}
        out.append({"device": d, "peak_a": peak_a, "peak_b": peak_b, "rows": rows})
    return {"devices": out}


if __name__ == "__main__":
    a, b = (pickle.loads(gzip.open(FIXTURES / f"transformer_{n}.pickle.gz").read()) for n in ("manual", "sdpa"))
    (FIXTURES / "transformer.diff.json").write_text(json.dumps(snapshot_diff(a, b), indent=None, sort_keys=True) + "\n")
    print("transformer: manual against sdpa")
    for name, texts in FILTERS.items():
        snapshot = json.loads((FIXTURES / f"{name}.json").read_text())
        views = {"devices": [{"device": d, "filters": {t: filtered(snapshot, d, t) for t in texts},
                              "bands": bands(snapshot, d, MAX_BANDS)} for d in devices_of(snapshot)]}
        (FIXTURES / f"{name}.views.json").write_text(json.dumps(views, indent=None) + "\n")
        print(f"{name}: {len(devices_of(snapshot))} device(s), filters {texts}")
